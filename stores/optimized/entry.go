package optimized

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"hash/maphash"
	"math/big"
	"net/netip"
	"reflect"
	"strings"

	"github.com/certbench/certbench/certstore"
)

// pairKey identifies a (certificate PEM, key PEM) pair by content (keyOf).
type pairKey [2]uint64

// entry is one parsed key pair, immutable once published and shared by
// every generation that holds the same pair bytes.
type entry struct {
	// cert is what handshakes are served; Leaf is nil (crypto/tls does
	// not read it for GetCertificate results).
	cert tls.Certificate
	// names encodes the indexed names (appendName); index keys are substrings.
	names string
	// chain is the interned chain of cert.Certificate[1:] (nil: generated).
	chain *chain
	// nExact, nWild and nIP count names by kind (saturating), to size indexes.
	nExact, nWild, nIP uint16
	// refs counts the published positions and defaults using the entry
	// (Update only, under Store.mu).
	refs int32
}

// Name kinds, the first byte of each record in entry.names.
const (
	kindExact = iota // a DNS name or common name, matched exactly
	kindWild         // "*.parent", stored as the parent
	kindIP           // a canonical IP address
)

// appendName appends one name record: kind, length as uvarint, bytes.
func appendName(b []byte, kind byte, name string) []byte {
	b = binary.AppendUvarint(append(b, kind), uint64(len(name)))
	return append(b, name...)
}

// nextName decodes the record at p and returns the next record's position
// (binary.Uvarint by hand: it takes a []byte, and s is a string).
func nextName(s string, p int) (kind byte, name string, next int) {
	kind = s[p]
	p++
	var n, shift uint
	for {
		c := s[p]
		p++
		n |= uint(c&0x7f) << shift
		if c < 0x80 {
			break
		}
		shift += 7
	}
	return kind, s[p : p+int(n)], p + int(n)
}

// encodeNames classifies and encodes names into one string, leaving out
// non-canonical IP addresses (an IP SNI is compared in canonical form).
func encodeNames(e *entry, names []string) {
	size := 0
	for _, n := range names {
		size += len(n) + 4
	}
	b := make([]byte, 0, size)
	for _, n := range names {
		if couldBeIP(n) {
			if addr, err := netip.ParseAddr(n); err == nil {
				if addr.Unmap().String() == n {
					b = appendName(b, kindIP, n)
					e.nIP = inc(e.nIP)
				}
				continue
			}
		}
		if len(n) > 2 && n[0] == '*' && n[1] == '.' {
			// certstore.WildcardParent of a name under this wildcard is
			// exactly n[2:].
			b = appendName(b, kindWild, n[2:])
			e.nWild = inc(e.nWild)
			continue
		}
		b = appendName(b, kindExact, n)
		e.nExact = inc(e.nExact)
	}
	e.names = string(b)
}

func inc(n uint16) uint16 {
	if n == ^uint16(0) {
		return n
	}
	return n + 1
}

// keyOf returns the content key of a pair: H(s0, cert) xor H(s1, key) and
// H(s2, cert) xor H(s3, key), four seeded 64-bit maphashes (a false match
// about 2^-128). The seeds are random per store and never leave it, so
// contents cannot be chosen to collide; hashing is cheaper than keeping
// the PEM bytes to compare.
func (s *Store) keyOf(p *certstore.KeyPair) pairKey {
	return pairKey{
		maphash.Bytes(s.seeds[0], p.CertPEM) ^ maphash.Bytes(s.seeds[1], p.KeyPEM),
		maphash.Bytes(s.seeds[2], p.CertPEM) ^ maphash.Bytes(s.seeds[3], p.KeyPEM),
	}
}

// chainKeyOf returns the content key of the intermediates' PEM text, as keyOf.
func (s *Store) chainKeyOf(rest []byte) pairKey {
	return pairKey{maphash.Bytes(s.seeds[0], rest), maphash.Bytes(s.seeds[2], rest)}
}

// parsed is the result of parsing one new pair.
type parsed struct {
	e *entry
	// leaf is the leaf DER; chainPEM the text after it when no interned
	// chain had it (acquireChain decodes it once per distinct chain).
	leaf     []byte
	chainKey pairKey
	chainPEM []byte
	// name is the first name, for errors.
	name string
}

// parse parses one pair with tls.X509KeyPair's acceptance rules. It only
// reads the store, so parses may run concurrently while Update holds s.mu.
func (s *Store) parse(pair *certstore.KeyPair) (res parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error parsing certificate: %v", r)
		}
	}()
	leafBlock, rest, err := leafPEM(pair.CertPEM)
	if err != nil {
		return res, err
	}
	keyBlock, err := keyPEM(pair.KeyPEM)
	if err != nil {
		return res, err
	}
	names, key, err := leafAndKey(leafBlock.Bytes, keyBlock.Type, keyBlock.Bytes)
	if len(names) > 0 {
		res.name = names[0]
	}
	if err != nil {
		return res, err
	}
	if len(names) == 0 {
		return res, errors.New("certificate has no name (no DNS name, IP address or common name)")
	}

	if k, ok := key.(*ecdsa.PrivateKey); ok {
		key = compactECDSA(k)
	}
	e := &entry{cert: tls.Certificate{PrivateKey: key}}
	encodeNames(e, names)
	res.e = e
	res.leaf = leafBlock.Bytes
	res.chainKey = s.chainKeyOf(rest)
	if c := s.chains[res.chainKey]; c != nil {
		e.chain = c
	} else {
		res.chainPEM = rest
	}
	return res, nil
}

// firstBlock returns the first PEM block of data whose type want accepts
// (nil: none), the text after it, and the types of the blocks before it.
func firstBlock(data []byte, want func(typ string) bool) (b *pem.Block, rest []byte, skipped []string) {
	for rest = data; ; skipped = append(skipped, b.Type) {
		if b, rest = pem.Decode(rest); b == nil || want(b.Type) {
			return b, rest, skipped
		}
	}
}

// leafPEM returns the first CERTIFICATE block of certPEM and the text
// after it, with tls.X509KeyPair's errors.
func leafPEM(certPEM []byte) (*pem.Block, []byte, error) {
	b, rest, skipped := firstBlock(certPEM, func(typ string) bool { return typ == "CERTIFICATE" })
	switch {
	case b != nil:
		return b, rest, nil
	case len(skipped) == 0:
		return nil, nil, errors.New("no PEM data in certificate input")
	case len(skipped) == 1 && strings.HasSuffix(skipped[0], "PRIVATE KEY"):
		return nil, nil, errors.New("no certificate PEM data in certificate input, but a private key; PEM inputs may have been switched")
	}
	return nil, nil, fmt.Errorf("no \"CERTIFICATE\" PEM block in certificate input after skipping PEM blocks of types %v", skipped)
}

// keyPEM returns the first private key block of keyPEM, with
// tls.X509KeyPair's errors.
func keyPEM(keyPEM []byte) (*pem.Block, error) {
	b, _, skipped := firstBlock(keyPEM, func(typ string) bool { return typ == "PRIVATE KEY" || strings.HasSuffix(typ, " PRIVATE KEY") })
	switch {
	case b != nil:
		return b, nil
	case len(skipped) == 0:
		return nil, errors.New("no PEM data in key input")
	case len(skipped) == 1 && skipped[0] == "CERTIFICATE":
		return nil, errors.New("a certificate rather than a key in the key PEM")
	}
	return nil, fmt.Errorf("no PEM block with type ending in \"PRIVATE KEY\" in key input after skipping PEM blocks of types %v", skipped)
}

// leafAndKey returns the names of a leaf and its parsed private key, with
// tls.X509KeyPair's errors in its order (leaf, key, mismatch). Only a leaf
// of readLeaf's profile whose key matches skips x509.ParseCertificate, so
// every error is crypto/x509's. names is set whenever the leaf parsed.
func leafAndKey(leafDER []byte, keyType string, keyDER []byte) (names []string, key crypto.PrivateKey, err error) {
	if f, ok := readLeaf(leafDER); ok {
		if k, err := parsePrivateKey(keyType, keyDER); err == nil && publicKeyIs(k, f.spki) {
			return certstore.NamesFrom(f.commonName, f.dnsNames, f.ips), k, nil
		}
	}
	leaf, err := x509.ParseCertificate(leafDER)
	if err != nil {
		return nil, nil, err
	}
	names = certstore.Names(leaf)
	if key, err = parsePrivateKey(keyType, keyDER); err != nil {
		return names, nil, err
	}
	if err := checkKeyMatch(leaf.PublicKey, key); err != nil {
		return names, nil, err
	}
	return names, key, nil
}

// publicKeyIs reports whether spki is the canonical DER of key's public key
// (then crypto/x509 parses it to that key); ECDSA and Ed25519 keys are
// compared as a fixed prefix per curve and the key bytes.
func publicKeyIs(key crypto.PrivateKey, spki []byte) bool {
	var prefix, point []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		prefix = spkiPrefix[k.Curve.Params().Name]
		if prefix == nil {
			break
		}
		p, err := k.PublicKey.Bytes()
		if err != nil {
			return false
		}
		point = p
	case ed25519.PrivateKey:
		prefix, point = spkiPrefix["Ed25519"], k.Public().(ed25519.PublicKey)
	}
	if prefix != nil {
		return len(spki) == len(prefix)+len(point) && bytes.Equal(spki[:len(prefix)], prefix) && bytes.Equal(spki[len(prefix):], point)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return false
	}
	der, err := x509.MarshalPKIXPublicKey(signer.Public())
	return err == nil && bytes.Equal(der, spki)
}

// spkiPrefix holds, per curve, a canonical SubjectPublicKeyInfo's bytes
// before the key (TestSPKIPrefixes checks them).
var spkiPrefix = map[string][]byte{
	"P-256":   {0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00},
	"P-384":   {0x30, 0x76, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x22, 0x03, 0x62, 0x00},
	"P-521":   {0x30, 0x81, 0x9b, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x23, 0x03, 0x81, 0x86, 0x00},
	"Ed25519": {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00},
}

// parsePrivateKey parses a private key DER as crypto/tls does, trying first
// the format its PEM type names.
func parsePrivateKey(typ string, der []byte) (crypto.PrivateKey, error) {
	pkcs1 := func() (crypto.PrivateKey, error) { return x509.ParsePKCS1PrivateKey(der) }
	pkcs8 := func() (crypto.PrivateKey, error) {
		k, err := x509.ParsePKCS8PrivateKey(der)
		if err != nil {
			return nil, err
		}
		switch k.(type) {
		case *rsa.PrivateKey, *ecdsa.PrivateKey, ed25519.PrivateKey:
			return k, nil
		}
		return nil, errUnknownPKCS8
	}
	sec1 := func() (crypto.PrivateKey, error) { return x509.ParseECPrivateKey(der) }
	order := [3]func() (crypto.PrivateKey, error){pkcs8, pkcs1, sec1}
	switch typ {
	case "RSA PRIVATE KEY":
		order = [3]func() (crypto.PrivateKey, error){pkcs1, pkcs8, sec1}
	case "EC PRIVATE KEY":
		order = [3]func() (crypto.PrivateKey, error){sec1, pkcs8, pkcs1}
	}
	for _, f := range order {
		if k, err := f(); err == nil {
			return k, nil
		} else if err == errUnknownPKCS8 {
			return nil, err
		}
	}
	return nil, errors.New("failed to parse private key")
}

var errUnknownPKCS8 = errors.New("unknown private key type in PKCS #8 wrapping")

// checkKeyMatch reports whether key is the private key of pub, with
// tls.X509KeyPair's errors.
func checkKeyMatch(pub any, key crypto.PrivateKey) error {
	switch pub.(type) {
	case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
	default:
		return errors.New("unknown public key algorithm")
	}
	priv, ok := key.(crypto.Signer)
	if !ok || reflect.TypeOf(priv.Public()) != reflect.TypeOf(pub) {
		return errors.New("private key type does not match public key type")
	}
	if !pub.(interface{ Equal(crypto.PublicKey) bool }).Equal(priv.Public()) {
		return errors.New("private key does not match public key")
	}
	return nil
}

// compactKey holds an ECDSA private key and its three integers in one
// allocation.
type compactKey struct {
	key     ecdsa.PrivateKey
	x, y, d big.Int
	words   [12]big.Word // X, Y and D of a P-256 key on a 64-bit platform
}

// compactECDSA returns a copy of k whose big.Ints share one allocation with
// the key. It is made before the key is used, so no precomputation
// crypto/ecdsa caches by key pointer is lost; keys too large for the array
// are returned as they are.
func compactECDSA(k *ecdsa.PrivateKey) *ecdsa.PrivateKey {
	xb, yb, db := k.X.Bits(), k.Y.Bits(), k.D.Bits()
	if len(xb)+len(yb)+len(db) > len(compactKey{}.words) {
		return k
	}
	c := new(compactKey)
	w := c.words[:]
	take := func(z *big.Int, b []big.Word) *big.Int {
		n := copy(w, b)
		z.SetBits(w[:n:n]) // a full slice: growing z never writes into the next value
		w = w[n:]
		return z
	}
	c.key.Curve = k.Curve
	c.key.X = take(&c.x, xb)
	c.key.Y = take(&c.y, yb)
	c.key.D = take(&c.d, db)
	return &c.key
}

// chain is an interned intermediate chain, shared by every entry with the
// same text. refs counts the current generation's entries using it; at
// zero it leaves the store's maps (held generations keep it alive).
type chain struct {
	ders [][]byte
	keys []pairKey // internDER keys of ders, to release them
	// keyInMap is the chain's key in s.chains.
	keyInMap pairKey
	refs     int
}

// der is one interned DER certificate, shared by every chain that has it.
type der struct {
	b    []byte
	refs int // chains in s.chains that hold it
}

// internDER returns the interned copy of b (verified byte for byte), or
// interns b itself.
func (s *Store) internDER(b []byte) ([]byte, pairKey) {
	k := s.chainKeyOf(b)
	if d := s.ders[k]; d != nil && string(d.b) == string(b) {
		d.refs++
		return d.b, k
	} else if d != nil {
		// A 128-bit collision between two different certificates: keep
		// the new one private rather than sharing the wrong bytes.
		return b, pairKey{}
	}
	s.ders[k] = &der{b: b, refs: 1}
	return b, k
}

// acquireChain finishes the entry of a successful parse: it interns the
// chain and builds cert.Certificate. It runs when the update is committed.
func (s *Store) acquireChain(p *parsed) {
	e := p.e
	c := e.chain
	if c == nil {
		c = s.chains[p.chainKey]
	}
	if c == nil {
		ders := certstore.AppendCertificateDERs(nil, p.chainPEM)
		c = &chain{ders: ders, keys: make([]pairKey, len(ders))}
		for i, b := range ders {
			c.ders[i], c.keys[i] = s.internDER(b)
		}
		s.chains[p.chainKey] = c
		c.keyInMap = p.chainKey
	}
	c.refs++
	e.chain = c
	certs := make([][]byte, 1+len(c.ders))
	certs[0] = p.leaf
	copy(certs[1:], c.ders)
	e.cert.Certificate = certs
}

// releaseChain drops one reference of an entry leaving the current
// generation.
func (s *Store) releaseChain(e *entry) {
	c := e.chain
	if c == nil {
		return
	}
	c.refs--
	if c.refs > 0 {
		return
	}
	delete(s.chains, c.keyInMap)
	for _, k := range c.keys {
		if k == (pairKey{}) {
			continue
		}
		if d := s.ders[k]; d != nil {
			d.refs--
			if d.refs == 0 {
				delete(s.ders, k)
			}
		}
	}
}

package certgen

import (
	"cmp"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	_ "embed"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"runtime"
	"sync"
	"time"

	"github.com/certbench/certbench/certstore"
)

// KeyType is the kind of key a generated leaf certificate has.
type KeyType string

// The key types a pool can hold.
const (
	P256    KeyType = "p256"    // derived from the seed
	RSA2048 KeyType = "rsa2048" // from a committed set (RSA keys cannot be generated deterministically)
	Mixed   KeyType = "mixed"   // every fourth leaf RSA-2048, the rest P-256
)

// PoolSpec says which certificates a pool holds. Equal specs give
// byte-identical pools on any machine and in any run.
type PoolSpec struct {
	Seed          uint64 // selects the keys, serials and names
	Count         int
	Key           KeyType // "" means P256
	MaxSANs       int     // DNS names per leaf, 1 to MaxSANs from the seed; 0 means 2
	WildcardEvery int     // every n-th certificate gets a wildcard name; 0 means 5, -1 none
	Domain        string  // of every name; "" means "example.test"
	IPEvery       int     // every n-th certificate gets an IP SAN (10.x.y.z); 0: none
}

func (s PoolSpec) withDefaults() PoolSpec {
	s.Key, s.MaxSANs = cmp.Or(s.Key, P256), cmp.Or(s.MaxSANs, 2)
	s.WildcardEvery, s.Domain = cmp.Or(s.WildcardEvery, 5), cmp.Or(s.Domain, "example.test")
	return s
}

func (s PoolSpec) validate() error {
	switch {
	case s.Count < 0:
		return fmt.Errorf("certgen: pool count %d is negative", s.Count)
	case s.Key != P256 && s.Key != RSA2048 && s.Key != Mixed:
		return fmt.Errorf("certgen: unknown key type %q (want %s, %s or %s)", s.Key, P256, RSA2048, Mixed)
	case s.MaxSANs < 1 || s.MaxSANs > 100:
		return fmt.Errorf("certgen: MaxSANs %d out of range 1..100", s.MaxSANs)
	case s.IPEvery < 0:
		return fmt.Errorf("certgen: IPEvery %d is negative", s.IPEvery)
	}
	return nil
}

// String names the spec compactly, for cache keys and messages.
func (s PoolSpec) String() string {
	s = s.withDefaults()
	str := fmt.Sprintf("seed=%d,count=%d,key=%s,sans=%d,wild=%d,domain=%s",
		s.Seed, s.Count, s.Key, s.MaxSANs, s.WildcardEvery, s.Domain)
	if s.IPEvery > 0 {
		str += fmt.Sprintf(",ip=%d", s.IPEvery)
	}
	return str
}

// Fixture is one generated certificate.
type Fixture struct {
	Index   int               // in its pool
	Version int               // 0 the original, n its n-th renewal
	Names   []string          // the leaf's DNS names, in SAN order
	Pair    certstore.KeyPair // PEM chain (leaf, issuer) and key
}

// Pool is a deterministic set of certificates.
type Pool struct {
	Spec  PoolSpec  // with defaults filled in
	Certs []Fixture // Certs[i].Index == i

	issuer *Issuer
	src    *Source // set for a pool made by Source.Pool
}

// NewPool generates the pool spec describes, spreading the work over all
// cores.
func NewPool(spec PoolSpec) (*Pool, error) {
	spec = spec.withDefaults()
	if err := spec.validate(); err != nil {
		return nil, err
	}
	p := &Pool{Spec: spec, Certs: make([]Fixture, spec.Count), issuer: NewIssuer(spec.Seed)}
	errs := make([]error, spec.Count)
	parallel(spec.Count, runtime.GOMAXPROCS(0), func(i int) { p.Certs[i], errs[i] = p.fixture(i, 0) })
	if err := cmp.Or(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

// Renewed returns version v (v >= 1) of certificate i: the same names with a
// new serial number and a new key, as an ACME renewal gives. For a pool of
// loaded certificates (Source.Pool) the key stays the original's: see
// Source.Pool.
func (p *Pool) Renewed(i, v int) (Fixture, error) {
	if i < 0 || i >= len(p.Certs) {
		return Fixture{}, fmt.Errorf("certgen: certificate %d not in a pool of %d", i, len(p.Certs))
	}
	if v < 1 {
		return Fixture{}, fmt.Errorf("certgen: renewal version %d, want >= 1", v)
	}
	if p.src != nil {
		return p.renewSourced(i, v)
	}
	return p.fixture(i, v)
}

// Issuer returns the certificate authority that signed the pool.
func (p *Pool) Issuer() *Issuer { return p.issuer }

// Certificates returns the pool's certificates at indexes [from, to) as
// configuration entries in the default store.
func (p *Pool) Certificates(from, to int) []certstore.Certificate {
	out := make([]certstore.Certificate, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, certstore.Certificate{KeyPair: p.Certs[i].Pair})
	}
	return out
}

func (p *Pool) keyType(i int) KeyType {
	if p.Spec.Key == Mixed {
		if i%4 == 3 {
			return RSA2048
		}
		return P256
	}
	return p.Spec.Key
}

func (p *Pool) fixture(i, v int) (Fixture, error) {
	s := p.Spec
	h := p.issuer.derive("names", uint64(i), 0)
	nsans := 1 + int(binary.BigEndian.Uint64(h[:8])%uint64(s.MaxSANs))
	names := make([]string, 0, nsans+1)
	names = append(names, fmt.Sprintf("svc-%06d.%s", i, s.Domain))
	for k := 1; k < nsans; k++ {
		names = append(names, fmt.Sprintf("alt%d.svc-%06d.%s", k, i, s.Domain))
	}
	if s.WildcardEvery > 0 && i%s.WildcardEvery == s.WildcardEvery-1 {
		names = append(names, fmt.Sprintf("*.wild-%06d.%s", i, s.Domain))
	}
	var key crypto.Signer
	var err error
	if p.keyType(i) == RSA2048 {
		key, err = rsaKey(i + v)
	} else {
		key, err = p.issuer.P256Key(uint64(i), uint64(v))
	}
	if err != nil {
		return Fixture{}, err
	}
	var ips []net.IP
	if s.IPEvery > 0 && i%s.IPEvery == s.IPEvery-1 {
		ips = []net.IP{net.IPv4(10, byte(i>>16), byte(i>>8), byte(i))}
	}
	pair, err := p.issuer.Issue(Leaf{
		Serial:      uint64(i)<<16 | uint64(v),
		CommonName:  names[0],
		DNSNames:    names,
		IPAddresses: ips,
		Key:         key,
	})
	if err != nil {
		return Fixture{}, fmt.Errorf("certgen: certificate %d version %d: %w", i, v, err)
	}
	return Fixture{Index: i, Version: v, Names: names, Pair: pair}, nil
}

// Issuer is a deterministic Ed25519 certificate authority. Ed25519
// signatures need no randomness, so everything it issues is reproducible.
type Issuer struct {
	seed    uint64
	key     ed25519.PrivateKey
	cert    *x509.Certificate
	certPEM []byte
}

// Epoch is the fixed NotBefore of generated certificates; leaves are valid
// for ten years from it unless a Leaf says otherwise.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// NewIssuer returns the certificate authority for seed.
func NewIssuer(seed uint64) *Issuer {
	is := &Issuer{seed: seed}
	h := is.derive("issuer", 0, 0)
	is.key = ed25519.NewKeyFromSeed(h[:])
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{Organization: []string{"certbench"}, CommonName: fmt.Sprintf("certbench fixture CA %d", seed)},
		NotBefore:             Epoch.AddDate(-1, 0, 0),
		NotAfter:              Epoch.AddDate(20, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            0,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, is.key.Public(), is.key)
	if err != nil {
		// The template is fixed and valid; this cannot fail.
		panic("certgen: self-signing the fixture CA: " + err.Error())
	}
	is.cert, _ = x509.ParseCertificate(der)
	is.certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return is
}

// Certificate returns the issuer's own certificate.
func (is *Issuer) Certificate() *x509.Certificate { return is.cert }

// Leaf describes a certificate for Issuer.Issue.
type Leaf struct {
	Serial              uint64
	CommonName          string // may be empty
	DNSNames            []string
	IPAddresses         []net.IP
	NotBefore, NotAfter time.Time     // default Epoch and Epoch plus ten years
	Key                 crypto.Signer // nil: P-256 derived from Serial
	KeyFor              crypto.Signer // when set, written as the PEM key instead (a mismatched pair)
}

// Issue makes a leaf certificate signed by the issuer and returns it as a
// PEM chain (leaf, then the issuer) with its PEM private key.
func (is *Issuer) Issue(l Leaf) (certstore.KeyPair, error) {
	key := l.Key
	if key == nil {
		k, err := is.P256Key(l.Serial, 1<<32)
		if err != nil {
			return certstore.KeyPair{}, err
		}
		key = k
	}
	if l.NotBefore.IsZero() {
		l.NotBefore = Epoch
	}
	if l.NotAfter.IsZero() {
		l.NotAfter = l.NotBefore.AddDate(10, 0, 0)
	}
	usage := x509.KeyUsageDigitalSignature
	if _, isRSA := key.Public().(interface{ Size() int }); isRSA {
		usage |= x509.KeyUsageKeyEncipherment
	}
	tmpl := &x509.Certificate{
		SerialNumber:          new(big.Int).SetUint64(l.Serial + 2),
		Subject:               pkix.Name{CommonName: l.CommonName},
		DNSNames:              l.DNSNames,
		IPAddresses:           l.IPAddresses,
		NotBefore:             l.NotBefore,
		NotAfter:              l.NotAfter,
		KeyUsage:              usage,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		OCSPServer:            []string{"http://ocsp.example.test"},
		IssuingCertificateURL: []string{"http://ca.example.test/ca.der"},
		CRLDistributionPoints: []string{"http://ca.example.test/ca.crl"},
	}
	der, err := x509.CreateCertificate(nil, tmpl, is.cert, key.Public(), is.key)
	if err != nil {
		return certstore.KeyPair{}, err
	}
	pemKey := key
	if l.KeyFor != nil {
		pemKey = l.KeyFor
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(pemKey)
	if err != nil {
		return certstore.KeyPair{}, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	certPEM = append(certPEM, is.certPEM...)
	return certstore.KeyPair{
		CertPEM: certPEM,
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// derive returns a 32-byte value that depends only on the issuer's seed, a
// purpose and two numbers.
func (is *Issuer) derive(purpose string, a, b uint64) [32]byte {
	var buf [24]byte
	binary.BigEndian.PutUint64(buf[0:], is.seed)
	binary.BigEndian.PutUint64(buf[8:], a)
	binary.BigEndian.PutUint64(buf[16:], b)
	h := sha256.New()
	h.Write([]byte("certbench/" + purpose + "\x00"))
	h.Write(buf[:])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// P256Key derives a P-256 key from the issuer's seed and the numbers a
// and b: the scalar is a hash, retried in the rare case it is not a valid
// scalar. Equal arguments give the same key.
func (is *Issuer) P256Key(a, b uint64) (*ecdsa.PrivateKey, error) {
	for try := uint64(0); try < 16; try++ {
		h := is.derive("p256", a, b^try<<40)
		k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), h[:])
		if err == nil {
			return k, nil
		}
	}
	return nil, errors.New("certgen: no valid P-256 scalar derived")
}

//go:embed rsa2048keys.pem
var rsaKeysPEM []byte

var rsaKeys = sync.OnceValues(func() ([]crypto.Signer, error) {
	var keys []crypto.Signer
	for b, rest := pem.Decode(rsaKeysPEM); b != nil; b, rest = pem.Decode(rest) {
		k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("certgen: committed RSA key %d: %w", len(keys), err)
		}
		keys = append(keys, k.(crypto.Signer))
	}
	if len(keys) == 0 {
		return nil, errors.New("certgen: no committed RSA keys")
	}
	return keys, nil
})

// rsaKey returns committed RSA-2048 key n (modulo the number committed).
func rsaKey(n int) (crypto.Signer, error) {
	keys, err := rsaKeys()
	if err != nil {
		return nil, err
	}
	return keys[n%len(keys)], nil
}

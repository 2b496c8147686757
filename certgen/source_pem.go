package certgen

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"

	"github.com/certbench/certbench/certstore"
)

// certInfo is what a source keeps of a parsed certificate.
type certInfo struct {
	der        []byte
	hash       [32]byte // of der
	spki       [32]byte // of the re-encoded public key, to pair with keys
	subject    string   // raw DER
	issuer     string   // raw DER
	skid, akid string
	isCA       bool
	selfSigned bool
	facts      CertFacts
}

// keyInfo is what a source keeps of a parsed private key.
type keyInfo struct {
	pemType string
	der     []byte
	spki    [32]byte
}

// pemItem is one usable PEM block of a file, in file order.
type pemItem struct {
	line int
	cert *certInfo
	key  *keyInfo
}

// certCache parses each distinct certificate once, however many files
// hold it (an intermediate in every chain file, say), by SHA-256.
type certCache struct{ m sync.Map }

func newCertCache() *certCache { return &certCache{} }

func (cc *certCache) get(der []byte) (*certInfo, error) {
	h := sha256.Sum256(der)
	if ci, ok := cc.m.Load(h); ok {
		return ci.(*certInfo), nil
	}
	ci, err := parseCertInfo(der, h)
	if err != nil {
		return nil, err
	}
	got, _ := cc.m.LoadOrStore(h, ci)
	return got.(*certInfo), nil
}

func parseCertInfo(der []byte, h [32]byte) (*certInfo, error) {
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	ci := &certInfo{
		der:        c.Raw,
		hash:       h,
		subject:    string(c.RawSubject),
		issuer:     string(c.RawIssuer),
		skid:       string(c.SubjectKeyId),
		akid:       string(c.AuthorityKeyId),
		isCA:       c.IsCA,
		selfSigned: bytes.Equal(c.RawSubject, c.RawIssuer),
	}
	if spki, err := x509.MarshalPKIXPublicKey(c.PublicKey); err == nil {
		ci.spki = sha256.Sum256(spki)
	} else {
		ci.spki = sha256.Sum256(c.RawSubjectPublicKeyInfo)
	}
	ci.facts.KeyType, ci.facts.KeyBits = keyKind(c.PublicKey)
	ci.facts.SANs = len(c.DNSNames) + len(c.IPAddresses)
	ci.facts.Names = certstore.Names(c)
	ci.facts.NotAfter = c.NotAfter
	return ci, nil
}

// keyKind names a public key for Shape.
func keyKind(pub crypto.PublicKey) (string, int) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		bits := k.N.BitLen()
		return fmt.Sprintf("rsa%d", bits), bits
	case *ecdsa.PublicKey:
		switch bits := k.Curve.Params().BitSize; bits {
		case 224, 256, 384, 521:
			return fmt.Sprintf("p%d", bits), bits
		default:
			return "other", bits
		}
	case ed25519.PublicKey:
		return "ed25519", 256
	}
	return "other", 0
}

func parseKeyInfo(b *pem.Block) (*keyInfo, error) {
	var key any
	var err error
	tries := []func([]byte) (any, error){
		x509.ParsePKCS8PrivateKey,
		func(d []byte) (any, error) { return x509.ParsePKCS1PrivateKey(d) },
		func(d []byte) (any, error) { return x509.ParseECPrivateKey(d) },
	}
	switch b.Type {
	case "RSA PRIVATE KEY":
		tries[0], tries[1] = tries[1], tries[0]
	case "EC PRIVATE KEY":
		tries[0], tries[2] = tries[2], tries[0]
	}
	for _, try := range tries {
		if key, err = try(b.Bytes); err == nil {
			break
		}
	}
	// The parsers' messages are not passed on: they could quote bytes
	// of the key.
	if err != nil {
		return nil, errors.New("private key does not parse as PKCS#1, PKCS#8 or SEC 1")
	}
	signer, ok := key.(interface{ Public() crypto.PublicKey })
	if !ok {
		return nil, errors.New("private key of an unsupported type")
	}
	spki, err := x509.MarshalPKIXPublicKey(signer.Public())
	if err != nil {
		return nil, errors.New("private key of an unsupported type")
	}
	return &keyInfo{pemType: b.Type, der: b.Bytes, spki: sha256.Sum256(spki)}, nil
}

var (
	pemBegin = []byte("-----BEGIN ")
	newline  = []byte("\n")
)

// parseBundle reads every PEM block of data in order: certificates and
// keys become items, anything else a skip naming file and line (text
// around blocks and CRLF endings are fine).
func parseBundle(data []byte, file string, certs *certCache) (items []pemItem, skips []Skip) {
	skip := func(line int, ignored bool, format string, args ...any) {
		skips = append(skips, Skip{File: file, Line: line, Reason: fmt.Sprintf(format, args...), Ignored: ignored})
	}
	rest := data
	line := 1
	blocks := 0
	for len(rest) > 0 {
		blk, after := pem.Decode(rest)
		if blk == nil {
			break
		}
		consumed := rest[:len(rest)-len(after)]
		begin := max(bytes.LastIndex(consumed, pemBegin), 0)
		if bad := bytes.Index(consumed[:begin], pemBegin); bad >= 0 {
			skip(line+bytes.Count(consumed[:bad], newline), false, "malformed PEM block (bad base64 or no matching END line)")
		}
		at := line + bytes.Count(consumed[:begin], newline)
		line += bytes.Count(consumed, newline)
		rest = after
		blocks++
		switch {
		case blk.Type == "CERTIFICATE":
			ci, err := certs.get(blk.Bytes)
			if err != nil {
				skip(at, false, "certificate does not parse: %v", err)
				continue
			}
			items = append(items, pemItem{line: at, cert: ci})
		case blk.Type == "ENCRYPTED PRIVATE KEY" || (strings.HasSuffix(blk.Type, "PRIVATE KEY") && strings.Contains(blk.Headers["Proc-Type"], "ENCRYPTED")):
			skip(at, false, "encrypted private key (decrypt it first)")
		case strings.HasSuffix(blk.Type, "PRIVATE KEY"):
			ki, err := parseKeyInfo(blk)
			if err != nil {
				skip(at, false, "%v", err)
				continue
			}
			items = append(items, pemItem{line: at, key: ki})
		case blk.Type == "EC PARAMETERS":
			// openssl ecparam -genkey writes these before the key.
		default:
			typ := blk.Type
			if len(typ) > 40 {
				typ = typ[:40] + "..."
			}
			skip(at, true, "%q block is neither a certificate nor a private key", typ)
		}
	}
	if i := bytes.Index(rest, pemBegin); i >= 0 {
		skip(line+bytes.Count(rest[:i], newline), false, "malformed PEM block (bad base64 or no matching END line)")
	} else if blocks == 0 && len(skips) == 0 {
		skip(0, true, "no PEM blocks")
	}
	return items, skips
}

func encodePEM(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// chainPEM encodes a leaf and its chain, the leaf first.
func chainPEM(leaf *certInfo, chain []*certInfo) []byte {
	n := 0
	for _, c := range append([]*certInfo{leaf}, chain...) {
		n += len(c.der)*4/3 + len(c.der)/48 + 64
	}
	out := make([]byte, 0, n)
	out = append(out, encodePEM("CERTIFICATE", leaf.der)...)
	for _, c := range chain {
		out = append(out, encodePEM("CERTIFICATE", c.der)...)
	}
	return out
}

// readCapped reads a regular file of at most limit bytes (capName raises
// it), refusing special files without blocking on them; its errors name
// no path (the caller adds the relative one).
func readCapped(path string, limit int64, capName string) ([]byte, error) {
	f, err := openNoBlock(path)
	if err != nil {
		return nil, plainFSError(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, plainFSError(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode())
	}
	if fi.Size() > limit {
		return nil, tooBig(fi.Size(), limit, capName)
	}
	var buf bytes.Buffer
	buf.Grow(int(fi.Size()) + 1)
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, plainFSError(err)
	}
	if int64(buf.Len()) > limit {
		return nil, tooBig(int64(buf.Len()), limit, capName)
	}
	return buf.Bytes(), nil
}

func tooBig(size, limit int64, capName string) error {
	return fmt.Errorf("file is %d bytes, over the %d-byte cap (raise SourceOptions.%s to read it)", size, limit, capName)
}

// notRegular says what kind of file a non-regular one is.
func notRegular(m fs.FileMode) error {
	what := "not a regular file"
	switch {
	case m&fs.ModeDir != 0:
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m&fs.ModeSymlink != 0:
		what = "a symbolic link"
	case m&fs.ModeIrregular != 0:
		what = "an irregular file"
	}
	return fmt.Errorf("refused: is %s, only regular files are read", what)
}

// collect reads n entries on up to workers goroutines, read(i) giving
// entry i's certificate (nil: none) and skips, and adds them to s in
// entry order; keep (nil: always) says whether a certificate is one of
// s.Certs.
func (s *Source) collect(n, workers int, read func(i int, cc *certCache) (*SourceCert, []Skip), keep func(i int, c *SourceCert) bool) {
	certs := make([]*SourceCert, n)
	skips := make([][]Skip, n)
	cc := newCertCache()
	parallel(n, workers, func(i int) { certs[i], skips[i] = read(i, cc) })
	for i, c := range certs {
		s.Skipped = append(s.Skipped, skips[i]...)
		if c != nil && (keep == nil || keep(i, c)) {
			s.Certs = append(s.Certs, *c)
			s.Stores = append(s.Stores, c.Stores...)
		}
	}
}

// parallel calls f(0..n-1) on up to workers goroutines.
func parallel(n, workers int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

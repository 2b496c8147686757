package optimized

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// poolLeaves returns the leaf DERs and key blocks of a certgen pool.
func poolLeaves(tb testing.TB, spec certgen.PoolSpec) (ders [][]byte, keys []*pem.Block) {
	tb.Helper()
	pool, err := certgen.NewPool(spec)
	if err != nil {
		tb.Fatal(err)
	}
	for _, fx := range pool.Certs {
		b, _ := pem.Decode(fx.Pair.CertPEM)
		k, _ := pem.Decode(fx.Pair.KeyPEM)
		if b == nil || k == nil {
			tb.Fatalf("fixture %d: no PEM", fx.Index)
		}
		ders, keys = append(ders, b.Bytes), append(keys, k)
	}
	return ders, keys
}

// checkFacts fails unless x509.ParseCertificate accepts der and gives the
// names and public key readLeaf found.
func checkFacts(t testing.TB, der []byte, f leafFacts) {
	t.Helper()
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		// readLeaf does not check the public key: the store uses its
		// reading only when the key is the canonical encoding of the
		// private key's. So x509 may reject only a key that is not.
		if pub, perr := x509.ParsePKIXPublicKey(f.spki); perr == nil {
			if again, merr := x509.MarshalPKIXPublicKey(pub); merr == nil && bytes.Equal(again, f.spki) {
				t.Fatalf("readLeaf read a leaf with a canonical public key that crypto/x509 rejects: %v", err)
			}
		}
		return
	}
	if got, want := certstore.NamesFrom(f.commonName, f.dnsNames, f.ips), certstore.Names(leaf); !slices.Equal(got, want) {
		t.Fatalf("names %q, crypto/x509 gives %q", got, want)
	}
	if !bytes.Equal(f.spki, leaf.RawSubjectPublicKeyInfo) {
		t.Fatalf("public key %x, crypto/x509 gives %x", f.spki, leaf.RawSubjectPublicKeyInfo)
	}
}

// Every leaf certgen makes (P-256 and RSA, with wildcards and IP SANs) is
// inside the profile, reads as crypto/x509 reads it, and has the key that
// leafAndKey checks without crypto/x509.
func TestReadLeafOnCertgenLeaves(t *testing.T) {
	ders, keys := poolLeaves(t, certgen.PoolSpec{Seed: 7, Count: 40, Key: certgen.Mixed, MaxSANs: 4, WildcardEvery: 3, IPEvery: 4})
	for i, der := range ders {
		key := keys[i]
		f, ok := readLeaf(der)
		if !ok {
			t.Fatalf("fixture %d: outside the profile", i)
		}
		checkFacts(t, der, f)
		k, err := parsePrivateKey(key.Type, key.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		if !publicKeyIs(k, f.spki) {
			t.Errorf("fixture %d: the key's canonical public key differs from the leaf's", i)
		}
	}
}

// A leaf outside the profile is left to crypto/x509: one with a URI SAN,
// one with name constraints, a version 1 leaf, one with trailing data.
func TestReadLeafOutsideTheProfile(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	make1 := func(mod func(*x509.Certificate)) []byte {
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(1),
			Subject:      pkix.Name{CommonName: "a.example.test"},
			NotBefore:    time.Unix(1e9, 0),
			NotAfter:     time.Unix(2e9, 0),
			DNSNames:     []string{"a.example.test"},
		}
		mod(tmpl)
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		return der
	}
	plain := make1(func(*x509.Certificate) {})
	if f, ok := readLeaf(plain); !ok {
		t.Fatal("a plain self-signed leaf is outside the profile")
	} else {
		checkFacts(t, plain, f)
	}
	for name, der := range map[string][]byte{
		"URI SAN":          make1(func(c *x509.Certificate) { c.URIs = []*url.URL{{Scheme: "spiffe", Host: "example.test", Path: "/a"}} }),
		"name constraints": make1(func(c *x509.Certificate) { c.PermittedDNSDomains = []string{"example.test"} }),
		"trailing data":    append(slices.Clone(plain), 0),
		"truncated":        plain[:len(plain)-1],
	} {
		if _, ok := readLeaf(der); ok {
			t.Errorf("%s: read inside the profile", name)
		}
	}
}

// FuzzReadLeaf checks readLeaf against crypto/x509: whatever it reads is
// a leaf x509.ParseCertificate accepts (unless its public key is not a
// canonical one, which the store never uses), with the same names and
// public key.
func FuzzReadLeaf(f *testing.F) {
	ders, _ := poolLeaves(f, certgen.PoolSpec{Seed: 3, Count: 8, Key: certgen.Mixed, MaxSANs: 3, WildcardEvery: 2, IPEvery: 3})
	for _, der := range ders {
		f.Add(der)
	}
	// Go's own test certificates, when the toolchain's sources are here.
	for _, dir := range []string{"crypto/tls/testdata", "crypto/x509/testdata"} {
		files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", dir, "*"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				continue
			}
			for {
				var b *pem.Block
				if b, data = pem.Decode(data); b == nil {
					break
				}
				if b.Type == "CERTIFICATE" {
					f.Add(b.Bytes)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, der []byte) {
		if facts, ok := readLeaf(der); ok {
			checkFacts(t, der, facts)
		}
	})
}

// The SubjectPublicKeyInfo prefixes publicKeyIs compares are those of
// x509.MarshalPKIXPublicKey, and a key of another curve or a different
// key is not taken for the leaf's.
func TestSPKIPrefixes(t *testing.T) {
	var keys []crypto.Signer
	for _, c := range []elliptic.Curve{elliptic.P256(), elliptic.P384(), elliptic.P521()} {
		k, err := ecdsa.GenerateKey(c, rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	_, ed, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys = append(keys, ed)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	keys = append(keys, rsaKey)
	for i, k := range keys {
		spki, err := x509.MarshalPKIXPublicKey(k.Public())
		if err != nil {
			t.Fatal(err)
		}
		for j, other := range keys {
			if got := publicKeyIs(other, spki); got != (i == j) {
				t.Errorf("key %d (%T) against the public key of key %d (%T): %v", j, other, i, k, got)
			}
		}
		if publicKeyIs(k, spki[:len(spki)-1]) || publicKeyIs(k, append(slices.Clone(spki), 0)) {
			t.Errorf("key %d (%T): a truncated or extended public key matched", i, k)
		}
	}
}

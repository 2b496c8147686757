package certgen

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"slices"
	"testing"

	"github.com/certbench/certbench/certstore"
)

func chainOf(t *testing.T, certPEM []byte) []*x509.Certificate {
	t.Helper()
	var out []*x509.Certificate
	for rest := certPEM; ; {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			return out
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
}

// TestSourcePoolRenewal checks that a renewal of a loaded certificate has
// the same names and public key (so the same type and size), a new serial
// and signature from the pool's issuer, a chain as long as the original's,
// and still pairs with the original key.
func TestSourcePoolRenewal(t *testing.T) {
	dir := t.TempDir()
	writeTestDir(t, dir, testSet(t))
	src := mustLoad(t, dir, SourceOptions{})
	pool, err := src.Pool()
	if err != nil {
		t.Fatal(err)
	}
	if len(pool.Certs) != len(src.Certs) || pool.Spec.Count != len(src.Certs) || pool.Spec.Key != FromSource {
		t.Fatalf("pool of %d (spec %v) from a source of %d", len(pool.Certs), pool.Spec, len(src.Certs))
	}
	for i := range pool.Certs {
		f := pool.Certs[i]
		if !bytes.Equal(f.Pair.CertPEM, src.Certs[i].CertPEM) || !slices.Equal(f.Names, src.Certs[i].Facts.Names) {
			t.Errorf("certificate %d is not the source's", i)
		}
		orig := chainOf(t, f.Pair.CertPEM)
		prevSerial := orig[0].SerialNumber
		for v := 1; v <= 2; v++ {
			r, err := pool.Renewed(i, v)
			if err != nil {
				t.Fatalf("Renewed(%d, %d): %v", i, v, err)
			}
			got := chainOf(t, r.Pair.CertPEM)
			if len(got) != len(orig) {
				t.Errorf("cert %d v%d: chain of %d, original %d", i, v, len(got), len(orig))
			}
			leaf := got[0]
			if !slices.Equal(certstore.Names(leaf), certstore.Names(orig[0])) || !slices.Equal(r.Names, f.Names) {
				t.Errorf("cert %d v%d: names %v, want %v", i, v, certstore.Names(leaf), certstore.Names(orig[0]))
			}
			if !bytes.Equal(leaf.RawSubjectPublicKeyInfo, orig[0].RawSubjectPublicKeyInfo) {
				t.Errorf("cert %d v%d: public key changed", i, v)
			}
			if leaf.SerialNumber.Cmp(orig[0].SerialNumber) == 0 || leaf.SerialNumber.Cmp(prevSerial) == 0 {
				t.Errorf("cert %d v%d: serial %v not new", i, v, leaf.SerialNumber)
			}
			prevSerial = leaf.SerialNumber
			if bytes.Equal(leaf.Signature, orig[0].Signature) {
				t.Errorf("cert %d v%d: same signature", i, v)
			}
			if err := leaf.CheckSignatureFrom(pool.Issuer().Certificate()); err != nil {
				t.Errorf("cert %d v%d: not signed by the pool's issuer: %v", i, v, err)
			}
			if !bytes.Equal(r.Pair.KeyPEM, f.Pair.KeyPEM) {
				t.Errorf("cert %d v%d: key PEM changed", i, v)
			}
			if _, err := tls.X509KeyPair(r.Pair.CertPEM, r.Pair.KeyPEM); err != nil {
				t.Errorf("cert %d v%d: renewed pair does not load: %v", i, v, err)
			}
		}
	}
	if _, err := pool.Renewed(len(pool.Certs), 1); err == nil {
		t.Error("Renewed past the end: no error")
	}
	// Deterministic: the same renewal twice is the same bytes.
	a, _ := pool.Renewed(0, 1)
	again, _ := src.Pool()
	b, _ := again.Renewed(0, 1)
	if !bytes.Equal(a.Pair.CertPEM, b.Pair.CertPEM) {
		t.Error("two renewals of the same certificate and version differ")
	}
}

package certgen

import (
	"bytes"
	"crypto/tls"
	"testing"
)

func TestPoolDeterministic(t *testing.T) {
	spec := PoolSpec{Seed: 7, Count: 20, Key: Mixed, MaxSANs: 3}
	a, err := NewPool(spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewPool(spec)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a.Certs {
		if !bytes.Equal(a.Certs[i].Pair.CertPEM, b.Certs[i].Pair.CertPEM) || !bytes.Equal(a.Certs[i].Pair.KeyPEM, b.Certs[i].Pair.KeyPEM) {
			t.Fatalf("certificate %d differs between two pools of the same spec", i)
		}
	}
	c, err := NewPool(PoolSpec{Seed: 8, Count: 20, Key: Mixed, MaxSANs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Certs[0].Pair.KeyPEM, c.Certs[0].Pair.KeyPEM) {
		t.Fatal("different seeds gave the same key")
	}
}

func TestPoolCertificatesParse(t *testing.T) {
	p, err := NewPool(PoolSpec{Seed: 1, Count: 12, Key: Mixed, MaxSANs: 4})
	if err != nil {
		t.Fatal(err)
	}
	wild := 0
	for _, f := range p.Certs {
		c, err := tls.X509KeyPair(f.Pair.CertPEM, f.Pair.KeyPEM)
		if err != nil {
			t.Fatalf("certificate %d: %v", f.Index, err)
		}
		if len(c.Certificate) != 2 {
			t.Errorf("certificate %d: chain of %d, want leaf and issuer", f.Index, len(c.Certificate))
		}
		if got, want := len(c.Leaf.DNSNames), len(f.Names); got != want {
			t.Errorf("certificate %d: %d DNS names, want %d", f.Index, got, want)
		}
		if err := c.Leaf.CheckSignatureFrom(p.Issuer().Certificate()); err != nil {
			t.Errorf("certificate %d: not signed by the pool issuer: %v", f.Index, err)
		}
		for _, n := range f.Names {
			if n[0] == '*' {
				wild++
			}
		}
	}
	if wild == 0 {
		t.Error("no wildcard names in a pool of 12 with the default WildcardEvery")
	}
}

func TestRenewed(t *testing.T) {
	p, err := NewPool(PoolSpec{Seed: 3, Count: 4, Key: Mixed})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Certs {
		r, err := p.Renewed(i, 1)
		if err != nil {
			t.Fatal(err)
		}
		old, _ := tls.X509KeyPair(p.Certs[i].Pair.CertPEM, p.Certs[i].Pair.KeyPEM)
		nw, err := tls.X509KeyPair(r.Pair.CertPEM, r.Pair.KeyPEM)
		if err != nil {
			t.Fatalf("renewal of %d: %v", i, err)
		}
		if old.Leaf.SerialNumber.Cmp(nw.Leaf.SerialNumber) == 0 {
			t.Errorf("renewal of %d kept the serial", i)
		}
		if bytes.Equal(p.Certs[i].Pair.KeyPEM, r.Pair.KeyPEM) {
			t.Errorf("renewal of %d kept the key", i)
		}
		if len(old.Leaf.DNSNames) != len(nw.Leaf.DNSNames) || old.Leaf.DNSNames[0] != nw.Leaf.DNSNames[0] {
			t.Errorf("renewal of %d changed the names", i)
		}
	}
	if _, err := p.Renewed(9, 1); err == nil {
		t.Error("renewing a certificate outside the pool gave no error")
	}
}

func TestPoolSpecErrors(t *testing.T) {
	for _, spec := range []PoolSpec{{Count: -1}, {Count: 1, Key: "dsa"}, {Count: 1, MaxSANs: 1000}} {
		if _, err := NewPool(spec); err == nil {
			t.Errorf("NewPool(%+v) gave no error", spec)
		}
	}
}

func BenchmarkNewPool1000(b *testing.B) {
	for b.Loop() {
		if _, err := NewPool(PoolSpec{Seed: 1, Count: 1000}); err != nil {
			b.Fatal(err)
		}
	}
}

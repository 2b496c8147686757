package store

import (
	"crypto/tls"
	"errors"
	"testing"

	"github.com/certbench/certbench/certgen"

	"github.com/certbench/certbench/certstore"
)

func pool(t *testing.T, n int) *certgen.Pool {
	t.Helper()
	p, err := certgen.CachedPool(certgen.PoolSpec{Seed: 7, Count: n})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHeldGeneration shows that a generation keeps the stores Traefik built
// for its refresh: Traefik replaces its map of stores, it does not mutate it.
func TestHeldGeneration(t *testing.T) {
	p := pool(t, 4)
	s := New()
	if _, err := s.Certificate(certstore.DefaultStore, &tls.ClientHelloInfo{ServerName: "x"}); !errors.Is(err, certstore.ErrNoCertificate) {
		t.Fatalf("before the first Update: error %v, want ErrNoCertificate", err)
	}
	if err := s.Update(&certstore.Config{Certificates: p.Certificates(0, 2)}); err != nil {
		t.Fatal(err)
	}
	held := s.Current()
	if err := s.Update(&certstore.Config{Certificates: p.Certificates(2, 4)}); err != nil {
		t.Fatal(err)
	}
	name := p.Certs[0].Names[0]
	c, err := held.Certificate(certstore.DefaultStore, &tls.ClientHelloInfo{ServerName: name})
	if err != nil || string(c.Certificate[0]) != string(first(t, p.Certs[0].Pair)) {
		t.Errorf("held generation: %q not served from its own refresh (err %v)", name, err)
	}
	c, err = s.Certificate(certstore.DefaultStore, &tls.ClientHelloInfo{ServerName: name})
	if err != nil || c.Leaf.Subject.CommonName != "TRAEFIK DEFAULT CERT" {
		t.Errorf("current generation: %q should get Traefik's generated default (err %v)", name, err)
	}
	if _, err := s.Certificate("nope", &tls.ClientHelloInfo{ServerName: name}); !errors.Is(err, certstore.ErrUnknownStore) {
		t.Errorf("unknown store: error %v, want ErrUnknownStore", err)
	}
	if _, err := s.Certificate("acme-tls/1", &tls.ClientHelloInfo{ServerName: name}); !errors.Is(err, certstore.ErrUnknownStore) {
		t.Errorf("Traefik's internal ACME store is exposed: error %v", err)
	}
	// No SNI and no connection: the adapter lends a connection without an
	// IP address, so Traefik serves the default instead of panicking.
	if c, err := s.Certificate(certstore.DefaultStore, &tls.ClientHelloInfo{}); err != nil || c == nil {
		t.Errorf("no SNI: %v", err)
	}
}

// TestBadDefaultPanics documents what Traefik does with a configured
// default that does not parse: it logs, leaves the store without a default,
// and the next lookup that needs the default dereferences nil.
func TestBadDefaultPanics(t *testing.T) {
	p := pool(t, 1)
	s := New()
	cfg := &certstore.Config{
		Certificates: p.Certificates(0, 1),
		Stores:       map[string]certstore.StoreConfig{certstore.DefaultStore: {DefaultCertificate: &certstore.KeyPair{CertPEM: []byte("x"), KeyPEM: []byte("y")}}},
	}
	if err := s.Update(cfg); err != nil {
		t.Fatalf("Traefik rejects nothing, yet Update returned %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a miss in a store without default did not panic; Traefik's behaviour changed (update the package documentation)")
		}
	}()
	s.Certificate(certstore.DefaultStore, &tls.ClientHelloInfo{ServerName: "miss.example.test"})
}

func first(t *testing.T, kp certstore.KeyPair) []byte {
	t.Helper()
	c, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c.Certificate[0]
}

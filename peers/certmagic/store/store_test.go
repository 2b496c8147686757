package store

import (
	"crypto/tls"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/certgen"

	"github.com/certbench/certbench/certstore"
	"go.uber.org/goleak"
)

func pool(t *testing.T, n int) *certgen.Pool {
	t.Helper()
	p, err := certgen.CachedPool(certgen.PoolSpec{Seed: 7, Count: n})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCloseStopsMaintenance checks that Close stops the goroutine
// certmagic.NewCache starts.
func TestCloseStopsMaintenance(t *testing.T) {
	certs := pool(t, 2).Certificates(0, 2) // before the snapshot: pools start workers
	running := goleak.IgnoreCurrent()      // goroutines from before the caches
	before := maintainers()
	var stores []*Store
	for range 5 {
		s := New()
		if err := s.Update(&certstore.Config{Certificates: certs}); err != nil {
			t.Fatal(err)
		}
		stores = append(stores, s)
	}
	// A goroutine the runtime has not run yet may not show its function:
	// wait (bounded) for all five to have started.
	n := maintainers()
	for deadline := time.Now().Add(30 * time.Second); n < before+5 && time.Now().Before(deadline); n = maintainers() {
		time.Sleep(10 * time.Millisecond)
	}
	if n != before+5 {
		t.Fatalf("expected a maintenance goroutine per cache: %d before the 5 caches, %d after", before, n)
	}
	for _, s := range stores {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s.Close() // twice is fine
	}
	if err := goleak.Find(running); err != nil {
		t.Errorf("goroutines still running after Close: %v", err)
	}
}

// maintainers counts the goroutines running certmagic's cache
// maintenance (started or not yet: a new goroutine shows its function
// too). Counting all goroutines instead depends on what else happens to
// be running, such as a pool's workers finishing.
func maintainers() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "certmagic.(*Cache).maintainAssets(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// TestRefreshRemovesAndRollsBack checks the refresh model: certificates no
// longer configured are removed, and a failed refresh removes what it added.
func TestRefreshRemovesAndRollsBack(t *testing.T) {
	p := pool(t, 4)
	s := New()
	defer s.Close()
	lookup := func(i int) (*tls.Certificate, error) {
		return s.Certificate(certstore.DefaultStore, &tls.ClientHelloInfo{ServerName: p.Certs[i].Names[0]})
	}
	isCert := func(c *tls.Certificate, i int) bool {
		return c != nil && c.Leaf != nil && c.Leaf.Subject.CommonName == p.Certs[i].Names[0]
	}
	if err := s.Update(&certstore.Config{Certificates: p.Certificates(0, 2)}); err != nil {
		t.Fatal(err)
	}
	if c, err := lookup(0); err != nil || !isCert(c, 0) {
		t.Fatalf("cert 0 not served: %v", err)
	}
	bad := append(p.Certificates(2, 4), certstore.Certificate{KeyPair: certstore.KeyPair{CertPEM: []byte("bad"), KeyPEM: []byte("bad")}})
	err := s.Update(&certstore.Config{Certificates: bad})
	var ce *certstore.CertificateError
	if !errors.As(err, &ce) || ce.Index != 2 {
		t.Fatalf("bad refresh: error %v, want a CertificateError with Index 2", err)
	}
	if c, _ := lookup(2); isCert(c, 2) {
		t.Error("a failed refresh left a certificate it added")
	}
	if c, err := lookup(0); err != nil || !isCert(c, 0) {
		t.Errorf("a failed refresh removed a certificate of the previous configuration: %v", err)
	}
	if err := s.Update(&certstore.Config{Certificates: p.Certificates(2, 4)}); err != nil {
		t.Fatal(err)
	}
	if c, _ := lookup(0); isCert(c, 0) {
		t.Error("a certificate no longer configured is still served")
	}
	if c, err := lookup(3); err != nil || !isCert(c, 3) {
		t.Errorf("cert 3 not served: %v", err)
	}
	if _, err := s.Certificate("nope", &tls.ClientHelloInfo{ServerName: "x"}); !errors.Is(err, certstore.ErrUnknownStore) {
		t.Errorf("unknown store: error %v, want ErrUnknownStore", err)
	}
}

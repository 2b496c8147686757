package naive

import (
	"bytes"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/certbench/certbench/certgen"

	"github.com/certbench/certbench/certstore"
	"go.uber.org/goleak"
)

// issuer signs every test certificate; it is deterministic.
var issuer = certgen.NewIssuer(42)

var serial uint64 = 1000

// issue makes a key pair for l, giving it a fresh serial.
func issue(t testing.TB, l certgen.Leaf) certstore.KeyPair {
	t.Helper()
	serial++
	l.Serial = serial
	kp, err := issuer.Issue(l)
	if err != nil {
		t.Fatal(err)
	}
	return kp
}

func dns(t testing.TB, names ...string) certstore.KeyPair {
	t.Helper()
	return issue(t, certgen.Leaf{DNSNames: names})
}

// defaultPair is a configured default certificate, so that tests do not pay
// for RSA key generation on every Update.
var defaultPair = sync.OnceValue(func() certstore.KeyPair {
	kp, err := issuer.Issue(certgen.Leaf{Serial: 1, CommonName: "default.test"})
	if err != nil {
		panic(err)
	}
	return kp
})

func withDefaults(cfg *certstore.Config, stores ...string) *certstore.Config {
	d := defaultPair()
	if cfg.Stores == nil {
		cfg.Stores = map[string]certstore.StoreConfig{}
	}
	cfg.Stores[certstore.DefaultStore] = certstore.StoreConfig{DefaultCertificate: &d}
	for _, s := range stores {
		cfg.Stores[s] = certstore.StoreConfig{DefaultCertificate: &d}
	}
	return cfg
}

func certs(pairs ...certstore.KeyPair) []certstore.Certificate {
	out := make([]certstore.Certificate, len(pairs))
	for i, p := range pairs {
		out[i] = certstore.Certificate{KeyPair: p}
	}
	return out
}

// served returns the PEM of the leaf certificate c, for comparisons.
func leafDER(c *tls.Certificate) []byte {
	if c == nil || len(c.Certificate) == 0 {
		return nil
	}
	return c.Certificate[0]
}

// derOf returns the DER of the leaf of kp.
func derOf(t testing.TB, kp certstore.KeyPair) []byte {
	t.Helper()
	c, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c.Certificate[0]
}

func TestLookupRules(t *testing.T) {
	exact := dns(t, "a.example.com")
	wild := dns(t, "*.example.com")
	first := dns(t, "dup.example.com", "x.example.com")
	second := dns(t, "dup.example.com", "y.example.com")
	wild1 := dns(t, "*.w.example.com", "p.example.com")
	wild2 := dns(t, "*.w.example.com", "q.example.com")
	mixedCase := dns(t, "MiXeD.Example.COM")
	ipv4 := issue(t, certgen.Leaf{IPAddresses: []net.IP{net.ParseIP("192.0.2.10")}})
	ipv6 := issue(t, certgen.Leaf{IPAddresses: []net.IP{net.ParseIP("2001:db8::1")}})
	cnOnly := issue(t, certgen.Leaf{CommonName: "cn-only.example.com"})
	other := dns(t, "other.example.com")

	cfg := withDefaults(&certstore.Config{
		Certificates: append(certs(exact, wild, first, second, wild1, wild2, mixedCase, ipv4, ipv6, cnOnly),
			certstore.Certificate{KeyPair: other, Stores: []string{"other"}}),
	}, "other")
	s := New()
	if err := s.Update(cfg); err != nil {
		t.Fatal(err)
	}
	def := derOf(t, defaultPair())

	tests := []struct {
		name  string
		store string
		sni   string
		want  []byte
	}{
		{"exact", "default", "a.example.com", derOf(t, exact)},
		{"exact beats wildcard", "default", "a.example.com", derOf(t, exact)},
		{"wildcard one label", "default", "b.example.com", derOf(t, wild)},
		{"wildcard not two labels", "default", "a.b.example.com", def},
		{"wildcard not the parent", "default", "example.com", def},
		{"case-insensitive SNI", "default", "A.EXAMPLE.COM", derOf(t, exact)},
		{"case-insensitive cert name", "default", "mixed.example.com", derOf(t, mixedCase)},
		{"first in config wins (exact)", "default", "dup.example.com", derOf(t, first)},
		{"first in config wins (exact, again from cache)", "default", "dup.example.com", derOf(t, first)},
		{"first in config wins (wildcard)", "default", "z.w.example.com", derOf(t, wild1)},
		{"IPv4 SAN", "default", "192.0.2.10", derOf(t, ipv4)},
		{"IPv6 SAN", "default", "2001:db8::1", derOf(t, ipv6)},
		{"IPv6 SAN other form", "default", "2001:DB8:0:0:0:0:0:1", derOf(t, ipv6)},
		{"IPv4-mapped IPv6", "default", "::ffff:192.0.2.10", derOf(t, ipv4)},
		{"common name", "default", "cn-only.example.com", derOf(t, cnOnly)},
		{"no SNI gets default", "default", "", def},
		{"miss gets default", "default", "nowhere.test", def},
		{"miss gets default again (not cached)", "default", "nowhere.test", def},
		{"single label", "default", "localhost", def},
		{"other store", "other", "other.example.com", derOf(t, other)},
		{"store isolation", "other", "a.example.com", def},
		{"default store isolation", "default", "other.example.com", derOf(t, wild)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Certificate(tc.store, &tls.ClientHelloInfo{ServerName: tc.sni})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(leafDER(got), tc.want) {
				t.Errorf("got certificate for %v, want another", got.Leaf.DNSNames)
			}
		})
	}

	t.Run("unknown store", func(t *testing.T) {
		_, err := s.Certificate("nope", &tls.ClientHelloInfo{ServerName: "a.example.com"})
		if !errors.Is(err, certstore.ErrUnknownStore) {
			t.Errorf("err = %v, want ErrUnknownStore", err)
		}
	})
	t.Run("internal ACME store is hidden", func(t *testing.T) {
		_, err := s.Certificate(ACMEStore, &tls.ClientHelloInfo{ServerName: "a.example.com"})
		if !errors.Is(err, certstore.ErrUnknownStore) {
			t.Errorf("err = %v, want ErrUnknownStore", err)
		}
	})
	t.Run("nil hello", func(t *testing.T) {
		got, err := s.Certificate("default", nil)
		if err != nil || !bytes.Equal(leafDER(got), def) {
			t.Errorf("got %v, %v; want the default", got, err)
		}
	})
}

// TestMatchesReference checks the store against certstore.Match on a pool
// with wildcards and several names per certificate.
func TestMatchesReference(t *testing.T) {
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 3, Count: 40, MaxSANs: 3, WildcardEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := withDefaults(&certstore.Config{Certificates: pool.Certificates(0, 40)})
	// Duplicates of earlier certificates, which must never win.
	cfg.Certificates = append(cfg.Certificates, pool.Certificates(0, 5)...)
	s := New()
	if err := s.Update(cfg); err != nil {
		t.Fatal(err)
	}
	var names [][]string
	var ders [][]byte
	for _, c := range cfg.Certificates {
		tc, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, certstore.Names(tc.Leaf))
		ders = append(ders, tc.Certificate[0])
	}
	var snis []string
	for _, f := range pool.Certs {
		for _, n := range f.Names {
			snis = append(snis, n, strings.ToUpper(n), strings.Replace(n, "*", "x", 1), "deep."+strings.Replace(n, "*", "x", 1))
		}
	}
	snis = append(snis, "", "example.test", "nothing.example.test")
	def := derOf(t, defaultPair())
	for _, sni := range snis {
		want := def
		if i := certstore.Match(names, sni); i >= 0 {
			want = ders[i]
		}
		for range 2 { // second time from the cache
			got, err := s.Certificate("default", &tls.ClientHelloInfo{ServerName: sni})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(leafDER(got), want) {
				t.Fatalf("SNI %q: got %v, want certificate %d", sni, got.Leaf.DNSNames, certstore.Match(names, sni))
			}
		}
	}
}

func TestBeforeFirstUpdate(t *testing.T) {
	s := New()
	for _, store := range []string{"default", "nope"} {
		if _, err := s.Certificate(store, &tls.ClientHelloInfo{ServerName: "a.example.com"}); !errors.Is(err, certstore.ErrNoCertificate) {
			t.Errorf("Certificate(%q) err = %v, want ErrNoCertificate", store, err)
		}
		if _, err := s.Current().Certificate(store, &tls.ClientHelloInfo{}); !errors.Is(err, certstore.ErrNoCertificate) {
			t.Errorf("Current().Certificate(%q) err = %v, want ErrNoCertificate", store, err)
		}
	}
}

func TestGeneratedDefault(t *testing.T) {
	s := New()
	if err := s.Update(&certstore.Config{Certificates: certs(dns(t, "a.example.com"))}); err != nil {
		t.Fatal(err)
	}
	c, err := s.Certificate("default", &tls.ClientHelloInfo{ServerName: "unknown.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Leaf == nil || c.Leaf.Subject.CommonName != DefaultCertCommonName {
		t.Fatalf("default certificate leaf = %v, want CN %q", c.Leaf, DefaultCertCommonName)
	}
	if d := c.Leaf.NotAfter.Sub(c.Leaf.NotBefore); d < 364*24*time.Hour || d > 366*24*time.Hour {
		t.Errorf("default certificate valid for %v, want a year", d)
	}
	if len(c.Leaf.DNSNames) != 1 || !strings.HasSuffix(c.Leaf.DNSNames[0], ".traefik.default") {
		t.Errorf("default certificate names %v, want one *.traefik.default name", c.Leaf.DNSNames)
	}
	// The generated default is new on every refresh, as in Traefik.
	if err := s.Update(&certstore.Config{Certificates: certs(dns(t, "a.example.com"))}); err != nil {
		t.Fatal(err)
	}
	c2, err := s.Certificate("default", &tls.ClientHelloInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(leafDER(c), leafDER(c2)) {
		t.Error("the generated default certificate survived a refresh")
	}
}

func TestBadInputsKeepPreviousGeneration(t *testing.T) {
	good := dns(t, "good.example.com")
	otherKey := dns(t, "unrelated.example.com")
	mismatch := good
	mismatch.KeyPEM = otherKey.KeyPEM
	noNames := issue(t, certgen.Leaf{})
	garbage := bytes.Repeat([]byte("garbage!"), 5<<20/8)
	pemGarbage := append([]byte("-----BEGIN CERTIFICATE-----\n"), garbage...)
	badDER := []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
	d := defaultPair()

	tests := []struct {
		name      string
		cfg       *certstore.Config
		wantIndex int
		wantStore string
		wantName  string
	}{
		{"malformed PEM", withDefaults(&certstore.Config{Certificates: certs(good, certstore.KeyPair{CertPEM: []byte("not pem"), KeyPEM: good.KeyPEM})}), 1, "", ""},
		{"empty cert", withDefaults(&certstore.Config{Certificates: certs(good, certstore.KeyPair{KeyPEM: good.KeyPEM})}), 1, "", ""},
		{"empty key", withDefaults(&certstore.Config{Certificates: certs(good, certstore.KeyPair{CertPEM: good.CertPEM})}), 1, "", "good.example.com"},
		{"nil slices", withDefaults(&certstore.Config{Certificates: []certstore.Certificate{{}}}), 0, "", ""},
		{"key mismatch", withDefaults(&certstore.Config{Certificates: certs(good, mismatch)}), 1, "", "good.example.com"},
		{"no names", withDefaults(&certstore.Config{Certificates: certs(noNames)}), 0, "", ""},
		{"bad DER", withDefaults(&certstore.Config{Certificates: certs(certstore.KeyPair{CertPEM: badDER, KeyPEM: good.KeyPEM})}), 0, "", ""},
		{"5 MB garbage", withDefaults(&certstore.Config{Certificates: certs(good, certstore.KeyPair{CertPEM: garbage, KeyPEM: garbage})}), 1, "", ""},
		{"5 MB garbage in PEM", withDefaults(&certstore.Config{Certificates: certs(certstore.KeyPair{CertPEM: pemGarbage, KeyPEM: pemGarbage})}), 0, "", ""},
		{"undeclared store", withDefaults(&certstore.Config{Certificates: []certstore.Certificate{{KeyPair: good}, {KeyPair: good, Stores: []string{"nope"}}}}), 1, "", "good.example.com"},
		{"empty store name", withDefaults(&certstore.Config{Certificates: []certstore.Certificate{{KeyPair: good, Stores: []string{""}}}}), 0, "", "good.example.com"},
		{"bad default", &certstore.Config{Certificates: certs(good), Stores: map[string]certstore.StoreConfig{
			"default": {DefaultCertificate: &d},
			"zzz":     {DefaultCertificate: &mismatch},
		}}, -1, "zzz", "good.example.com"},
		{"empty default", &certstore.Config{Certificates: certs(good), Stores: map[string]certstore.StoreConfig{
			"default": {DefaultCertificate: &certstore.KeyPair{}},
		}}, -1, "default", ""},
	}

	s := New()
	prev := dns(t, "prev.example.com")
	if err := s.Update(withDefaults(&certstore.Config{Certificates: certs(prev)}, "zzz")); err != nil {
		t.Fatal(err)
	}
	want := derOf(t, prev)
	held := s.Current()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(tc.cfg)
			var ce *certstore.CertificateError
			if !errors.As(err, &ce) {
				t.Fatalf("Update err = %v (%T), want a *certstore.CertificateError", err, err)
			}
			if ce.Index != tc.wantIndex || ce.Store != tc.wantStore || ce.Name != tc.wantName {
				t.Errorf("error names index %d, store %q, name %q; want %d, %q, %q (%v)",
					ce.Index, ce.Store, ce.Name, tc.wantIndex, tc.wantStore, tc.wantName, err)
			}
			if s.Current() != held {
				t.Error("the published generation changed")
			}
			got, err := s.Certificate("default", &tls.ClientHelloInfo{ServerName: "prev.example.com"})
			if err != nil || !bytes.Equal(leafDER(got), want) {
				t.Errorf("after a rejected update: got %v, %v; want the previous certificate", got, err)
			}
		})
	}
	if err := s.Update(nil); err == nil {
		t.Error("Update(nil) succeeded")
	}
}

func TestDuplicateKeyFirstWins(t *testing.T) {
	a := dns(t, "b.example.com", "a.example.com")
	b := dns(t, "a.example.com", "B.example.com") // same SAN key
	s := New()
	if err := s.Update(withDefaults(&certstore.Config{Certificates: certs(a, b)})); err != nil {
		t.Fatal(err)
	}
	g := s.current()
	if n := len(g.stores["default"].entries); n != 1 {
		t.Errorf("default store holds %d certificates, want 1", n)
	}
	got, _ := s.Certificate("default", &tls.ClientHelloInfo{ServerName: "b.example.com"})
	if !bytes.Equal(leafDER(got), derOf(t, a)) {
		t.Error("the second certificate with the same names won")
	}
}

func TestGenerationIsASnapshot(t *testing.T) {
	v1 := dns(t, "svc.example.com")
	v2 := dns(t, "svc.example.com")
	s := New()
	if err := s.Update(withDefaults(&certstore.Config{Certificates: certs(v1)})); err != nil {
		t.Fatal(err)
	}
	old := s.Current()
	if err := s.Update(withDefaults(&certstore.Config{Certificates: certs(v2)})); err != nil {
		t.Fatal(err)
	}
	hello := &tls.ClientHelloInfo{ServerName: "svc.example.com"}
	got, _ := old.Certificate("default", hello)
	if !bytes.Equal(leafDER(got), derOf(t, v1)) {
		t.Error("a held generation answered from a later configuration")
	}
	got, _ = s.Certificate("default", hello)
	if !bytes.Equal(leafDER(got), derOf(t, v2)) {
		t.Error("the store did not answer from the new configuration")
	}
	// A store removed by a refresh is gone from the new generation only.
	if err := s.Update(withDefaults(&certstore.Config{}, "extra")); err != nil {
		t.Fatal(err)
	}
	withExtra := s.Current()
	if err := s.Update(withDefaults(&certstore.Config{})); err != nil {
		t.Fatal(err)
	}
	if _, err := withExtra.Certificate("extra", hello); err != nil {
		t.Errorf("held generation lost store extra: %v", err)
	}
	if _, err := s.Certificate("extra", hello); !errors.Is(err, certstore.ErrUnknownStore) {
		t.Errorf("store extra after it was removed: err = %v, want ErrUnknownStore", err)
	}
}

func TestNoGoroutineGrowth(t *testing.T) {
	s := New()
	cfg := withDefaults(&certstore.Config{Certificates: certs(dns(t, "a.example.com"))}, "x", "y")
	if err := s.Update(cfg); err != nil {
		t.Fatal(err)
	}
	before := goleak.IgnoreCurrent()
	for range 20 {
		if err := s.Update(cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Certificate("x", &tls.ClientHelloInfo{ServerName: "a.example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := goleak.Find(before); err != nil {
		t.Errorf("goroutines grew over 20 refreshes: %v", err)
	}
}

// TestConcurrentLookupsAndUpdates runs lookups during refreshes (for the race
// detector) and checks every answer comes from one whole configuration.
func TestConcurrentLookupsAndUpdates(t *testing.T) {
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 9, Count: 20, WildcardEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	// Configuration A serves even certificates, B odd ones; a generation
	// holds either, never both.
	var a, b []certstore.Certificate
	for i := range pool.Certs {
		if i%2 == 0 {
			a = append(a, pool.Certificates(i, i+1)...)
		} else {
			b = append(b, pool.Certificates(i, i+1)...)
		}
	}
	cfgs := []*certstore.Config{withDefaults(&certstore.Config{Certificates: a}), withDefaults(&certstore.Config{Certificates: b})}
	s := New()
	if err := s.Update(cfgs[0]); err != nil {
		t.Fatal(err)
	}
	def := derOf(t, defaultPair())
	done := make(chan struct{})
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				g := s.Current()
				parity := -1
				for i := range 4 {
					idx := (n + r + i) % len(pool.Certs)
					got, err := g.Certificate("default", &tls.ClientHelloInfo{ServerName: pool.Certs[idx].Names[0]})
					if err != nil {
						t.Error(err)
						return
					}
					if bytes.Equal(leafDER(got), def) {
						continue
					}
					if parity == -1 {
						parity = idx % 2
					}
					if idx%2 != parity {
						t.Errorf("one generation served certificates from both configurations")
						return
					}
				}
			}
		})
	}
	for i := range 20 {
		if err := s.Update(cfgs[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
}

func TestRegistered(t *testing.T) {
	info, err := certstore.LookupFactory("naive")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := info.New().(*Store); !ok {
		t.Errorf("factory made a %T", info.New())
	}
}

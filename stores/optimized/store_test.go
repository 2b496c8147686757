package optimized

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"weak"

	"github.com/certbench/certbench/certgen"

	"github.com/certbench/certbench/certstore"
	"go.uber.org/goleak"
)

// fixture is a special certificate for the lookup tests.
type fixture struct {
	label  string
	pair   certstore.KeyPair
	stores []string
	names  []string // certstore.Names of the leaf
	leaf   []byte
}

var longName = strings.Repeat("l", 60) + "." + strings.Repeat("m", 60) + "." + strings.Repeat("n", 60) + ".example.com"

// lookupFixtures returns the certificates of the lookup table, in
// configuration order, and the configured default of store "other".
var lookupFixtures = sync.OnceValues(func() ([]fixture, fixture) {
	is := certgen.NewIssuer(42)
	mk := func(serial uint64, label, cn string, dns []string, ips []string, stores ...string) fixture {
		var netIPs []net.IP
		for _, ip := range ips {
			netIPs = append(netIPs, net.ParseIP(ip))
		}
		pair, err := is.Issue(certgen.Leaf{Serial: serial, CommonName: cn, DNSNames: dns, IPAddresses: netIPs})
		if err != nil {
			panic(err)
		}
		c, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
		if err != nil {
			panic(err)
		}
		return fixture{label: label, pair: pair, stores: stores, names: certstore.Names(c.Leaf), leaf: c.Certificate[0]}
	}
	certs := []fixture{
		mk(1, "exactA", "", []string{"a.example.com", "*.wild.example.com"}, nil),
		mk(2, "wild2", "", []string{"*.wild.example.com", "b.example.com"}, nil),
		mk(3, "exactX", "", []string{"x.wild.example.com"}, nil),
		mk(4, "ips", "", nil, []string{"10.0.0.1", "2001:db8::1"}),
		mk(5, "cn", "Upper.Example.COM", nil, nil),
		mk(6, "dupA", "", []string{"a.example.com", "c.example.com"}, nil),
		mk(7, "other", "", []string{"other.example.com", "*.o.example.com"}, nil, "other"),
		mk(8, "both", "", []string{"both.example.com"}, nil, certstore.DefaultStore, "other"),
		mk(9, "cnip", "192.0.2.7", nil, nil),
		mk(10, "odd", "", []string{"*.", "*", "1.2.3", "*.1.2.3", "::FFFF:10.9.9.9", longName}, nil),
		mk(11, "ip2", "", []string{"d.example.com"}, []string{"10.0.0.1"}),
		mk(13, "ip6letter", "", []string{"*.2.3.4"}, []string{"fd00::1"}),
		mk(14, "unicode", "ÉXAMPLE.TEST", nil, nil),
		mk(15, "kelvin", "\u212AELVIN.TEST", nil, nil),
		mk(16, "uwild", "*.ÜBER.TEST", nil, nil),
	}
	def := mk(12, "otherDef", "", []string{"otherdef.example.com"}, nil)
	return certs, def
})

func lookupConfig() *certstore.Config {
	certs, def := lookupFixtures()
	cfg := &certstore.Config{Stores: map[string]certstore.StoreConfig{
		"other": {DefaultCertificate: &def.pair},
		"empty": {},
	}}
	for _, f := range certs {
		cfg.Certificates = append(cfg.Certificates, certstore.Certificate{KeyPair: f.pair, Stores: f.stores})
	}
	return cfg
}

// reference returns the label certstore.Match serves for sni in store, or
// "" for the store's default.
func reference(store, sni string) string {
	certs, _ := lookupFixtures()
	var names [][]string
	var labels []string
	for _, f := range certs {
		c := certstore.Certificate{Stores: f.stores}
		for _, st := range certstore.StoresOf(&c) {
			if st == store {
				names = append(names, f.names)
				labels = append(labels, f.label)
			}
		}
	}
	if i := certstore.Match(names, sni); i >= 0 {
		return labels[i]
	}
	return ""
}

// labelOf names the certificate c: a fixture label, "otherDef", or
// "generated" for anything else.
func labelOf(c *tls.Certificate) string {
	certs, def := lookupFixtures()
	if c == nil || len(c.Certificate) == 0 {
		return "<none>"
	}
	for _, f := range append(certs, def) {
		if bytes.Equal(f.leaf, c.Certificate[0]) {
			return f.label
		}
	}
	return "generated"
}

func mustUpdate(t testing.TB, s *Store, cfg *certstore.Config) {
	t.Helper()
	if err := s.Update(cfg); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func lookup(s certstore.Lookup, store, sni string) (*tls.Certificate, error) {
	return s.Certificate(store, &tls.ClientHelloInfo{ServerName: sni})
}

func TestLookupRules(t *testing.T) {
	s := New()
	mustUpdate(t, s, lookupConfig())
	const def = certstore.DefaultStore
	tests := []struct {
		name, store, sni, want string
	}{
		{"exact", def, "a.example.com", "exactA"},
		{"exact first in config wins", def, "c.example.com", "dupA"},
		{"uppercase SNI", def, "A.Example.COM", "exactA"},
		{"wildcard", def, "y.wild.example.com", "exactA"},
		{"wildcard first in config wins", def, "b.wild.example.com", "exactA"},
		{"exact beats earlier wildcard", def, "x.wild.example.com", "exactX"},
		{"exact beats wildcard uppercase", def, "X.WILD.example.com", "exactX"},
		{"wildcard one label only", def, "a.b.wild.example.com", "generated"},
		{"wildcard not the parent", def, "wild.example.com", "generated"},
		{"literal wildcard SNI", def, "*.wild.example.com", "exactA"},
		{"second name of wildcard cert", def, "b.example.com", "wild2"},
		{"IPv4 SAN", def, "10.0.0.1", "ips"},
		{"IPv4-mapped IPv6 SNI", def, "::ffff:10.0.0.1", "ips"},
		{"IPv6 SAN", def, "2001:db8::1", "ips"},
		{"IPv6 SAN non-canonical uppercase", def, "2001:DB8:0::1", "ips"},
		{"IP SNI no wildcard", def, "1.2.3.4", "generated"},
		{"common name lowercased", def, "upper.example.com", "cn"},
		{"common name uppercase SNI", def, "UPPER.example.com", "cn"},
		{"IP common name", def, "192.0.2.7", "cnip"},
		{"empty SNI", def, "", "generated"},
		{"miss", def, "nothing.example.com", "generated"},
		{"single label miss", def, "localhost", "generated"},
		{"trailing dot", def, "a.example.com.", "generated"},
		{"store-only cert absent from default", def, "other.example.com", "generated"},
		{"cert in both stores, default", def, "both.example.com", "both"},
		{"literal star name", def, "*", "odd"},
		{"literal star-dot name", def, "*.", "odd"},
		{"name that looks like an IP but is not one", def, "1.2.3", "odd"},
		{"wildcard over a non-IP", def, "9.1.2.3", "generated"},
		{"wildcard over a non-IP name", def, "x.1.2.3", "odd"},
		{"non-canonical IP DNS name unreachable", def, "::ffff:10.9.9.9", "generated"},
		{"long name", def, longName, "odd"},
		{"long name uppercase", def, strings.ToUpper(longName), "odd"},
		{"store cert", "other", "other.example.com", "other"},
		{"store wildcard", "other", "z.o.example.com", "other"},
		{"store cert in both", "other", "both.example.com", "both"},
		{"store miss gets configured default", "other", "a.example.com", "otherDef"},
		{"store empty SNI", "other", "", "otherDef"},
		{"declared empty store", "empty", "a.example.com", "generated"},
	}
	g := s.Current()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := reference(tt.store, tt.sni)
			if want == "" {
				want = "generated"
				if tt.store == "other" {
					want = "otherDef"
				}
			}
			if want != tt.want {
				t.Fatalf("test bug: certstore.Match serves %s, the table says %s", want, tt.want)
			}
			for _, l := range []certstore.Lookup{s, g} {
				c, err := lookup(l, tt.store, tt.sni)
				if err != nil {
					t.Fatalf("Certificate(%q, %q): %v", tt.store, tt.sni, err)
				}
				if got := labelOf(c); got != tt.want {
					t.Errorf("Certificate(%q, %q) = %s, want %s", tt.store, tt.sni, got, tt.want)
				}
			}
		})
	}

	if _, err := lookup(s, "nope", "a.example.com"); !errors.Is(err, certstore.ErrUnknownStore) {
		t.Errorf("unknown store: error %v, want ErrUnknownStore", err)
	}
	if c, err := s.Certificate(def, nil); err != nil || labelOf(c) != "generated" {
		t.Errorf("nil hello: %s, %v; want the generated default", labelOf(c), err)
	}
	a, _ := lookup(s, def, "nothing")
	b, _ := lookup(s, "empty", "nothing")
	if a != b {
		t.Error("stores without a configured default serve different generated defaults")
	}
	if a.Leaf != nil {
		t.Error("served certificate keeps its Leaf")
	}
}

func TestNoConfiguration(t *testing.T) {
	s := New()
	g := s.Current()
	for _, store := range []string{certstore.DefaultStore, "other"} {
		if _, err := lookup(s, store, "a.example.com"); !errors.Is(err, certstore.ErrNoCertificate) {
			t.Errorf("store %q before Update: %v, want ErrNoCertificate", store, err)
		}
	}
	mustUpdate(t, s, lookupConfig())
	if _, err := lookup(g, certstore.DefaultStore, "a.example.com"); !errors.Is(err, certstore.ErrNoCertificate) {
		t.Errorf("held empty generation after Update: %v, want ErrNoCertificate", err)
	}
}

// FuzzLookup checks lookups against certstore.Match, the reference.
func FuzzLookup(f *testing.F) {
	for _, sni := range []string{
		"a.example.com", "A.EXAMPLE.COM", "y.wild.example.com", "*.wild.example.com", "wild.example.com",
		"10.0.0.1", "::ffff:10.0.0.1", "2001:DB8::1", "fe80::1%eth0", "fe80::1%ETH0", "1.2.3", "01.2.3.4",
		"1.2.3.4%x", "x.1.2.3", "*", "*.", ".", "..", "a.", ".a", "ÄA.example.com", "Ä.wild.example.com",
		"K.wild.example.com", "\xff.WILD.example.com", longName, strings.ToUpper(longName) + "X",
		"upper.example.com", "192.0.2.7", "::FFFF:10.9.9.9", "z.o.example.com", "",
		"Éxample.test", "ÉxAmple.test", "éxample.test", "\u212Aelvin.test", "a.Über.test", "a.über.TEST",
	} {
		f.Add(sni)
	}
	s := New()
	mustUpdate(f, s, lookupConfig())
	f.Fuzz(func(t *testing.T, sni string) {
		if addr, err := netip.ParseAddr(sni); err == nil && certstore.NormalizeServerName(sni) != addr.Unmap().String() {
			t.Skip("certstore.Match does not treat this address as one (see TestIPv6LetterFirst)")
		}
		for _, store := range []string{certstore.DefaultStore, "other"} {
			want := reference(store, sni)
			if want == "" {
				want = "generated"
				if store == "other" {
					want = "otherDef"
				}
			}
			c, err := lookup(s, store, sni)
			if err != nil {
				t.Fatalf("Certificate(%q, %q): %v", store, sni, err)
			}
			if got := labelOf(c); got != want {
				t.Errorf("Certificate(%q, %q) = %s, certstore.Match says %s", store, sni, got, want)
			}
		}
	})
}

// TestUnicodeCase checks that non-ASCII letters of the SNI are lowercased
// whether or not it also has an ASCII capital, as certstore.Names lowercases
// the certificate's names (certstore.NormalizeServerName).
func TestUnicodeCase(t *testing.T) {
	s := New()
	mustUpdate(t, s, lookupConfig())
	for _, tt := range []struct{ sni, want string }{
		{"Éxample.test", "unicode"},
		{"ÉxAmple.test", "unicode"},
		{"éxample.test", "unicode"},
		{"ÉXAMPLE.TEST", "unicode"},
		{"\u212Aelvin.test", "kelvin"},
		{"kelvin.test", "kelvin"},
		{"KELVIN.test", "kelvin"},
		{"a.Über.test", "uwild"},
		{"a.ÜBER.TEST", "uwild"},
		{"\u212A.wild.example.com", "exactA"},
		{"x.\u212A.wild.example.com", "generated"},
	} {
		c, err := lookup(s, certstore.DefaultStore, tt.sni)
		if err != nil {
			t.Fatal(err)
		}
		if got := labelOf(c); got != tt.want {
			t.Errorf("Certificate(%q) = %s, want %s", tt.sni, got, tt.want)
		}
		if ref := reference(certstore.DefaultStore, tt.sni); ref != tt.want && !(ref == "" && tt.want == "generated") {
			t.Errorf("certstore.Match(%q) = %q, want %s", tt.sni, ref, tt.want)
		}
	}
}

// FuzzCouldBeIP checks the filter that keeps lookups from calling
// netip.ParseAddr: it must never say no to an address, and for strings
// without a colon it must be exact.
func FuzzCouldBeIP(f *testing.F) {
	for _, s := range []string{"1.2.3.4", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.1.1.1", "1.2.3", "1.2.3.4.",
		"1..2.3", "1.2.3.4%z", "::1", "a.b", "", "1234.1.1.1", "1.2.3.04", "10.0.0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := netip.ParseAddr(s)
		could := couldBeIP(s)
		if err == nil && !could {
			t.Errorf("couldBeIP(%q) = false for an address", s)
		}
		if err != nil && could && !strings.Contains(s, ":") {
			t.Errorf("couldBeIP(%q) = true for a non-address without a colon", s)
		}
	})
}

func TestLookupAllocations(t *testing.T) {
	s := New()
	mustUpdate(t, s, lookupConfig())
	for _, tt := range []struct{ name, store, sni string }{
		{"hit", certstore.DefaultStore, "a.example.com"},
		{"wildcard hit", certstore.DefaultStore, "y.wild.example.com"},
		{"miss", certstore.DefaultStore, "nothing.example.com"},
		{"single-label miss", certstore.DefaultStore, "localhost"},
		{"uppercase hit", certstore.DefaultStore, "A.EXAMPLE.COM"},
		{"uppercase wildcard", certstore.DefaultStore, "Y.Wild.Example.Com"},
		{"uppercase miss", certstore.DefaultStore, "NOTHING.example.com"},
		{"IPv4", certstore.DefaultStore, "10.0.0.1"},
		{"IPv4 miss", certstore.DefaultStore, "10.0.0.2"},
		{"IPv6", certstore.DefaultStore, "2001:db8::1"},
		{"IPv4-mapped", certstore.DefaultStore, "::ffff:10.0.0.1"},
		{"empty SNI", certstore.DefaultStore, ""},
		{"named store hit", "other", "other.example.com"},
		{"named store miss", "other", "nothing.example.com"},
		{"lowercase non-ASCII hit", certstore.DefaultStore, "éxample.test"},
		{"lowercase non-ASCII wildcard", certstore.DefaultStore, "a.über.test"},
	} {
		hello := &tls.ClientHelloInfo{ServerName: tt.sni}
		allocs := testing.AllocsPerRun(100, func() {
			if c, err := s.Certificate(tt.store, hello); c == nil || err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per lookup, want 0", tt.name, allocs)
		}
	}
}

// freshCopy returns cfg with every PEM in a new buffer, the way a proxy
// re-reads its configuration.
func freshCopy(cfg *certstore.Config) *certstore.Config {
	out := &certstore.Config{Stores: map[string]certstore.StoreConfig{}}
	for name, sc := range cfg.Stores {
		if sc.DefaultCertificate != nil {
			sc.DefaultCertificate = &certstore.KeyPair{CertPEM: bytes.Clone(sc.DefaultCertificate.CertPEM), KeyPEM: bytes.Clone(sc.DefaultCertificate.KeyPEM)}
		}
		out.Stores[name] = sc
	}
	for _, c := range cfg.Certificates {
		c.CertPEM, c.KeyPEM = bytes.Clone(c.CertPEM), bytes.Clone(c.KeyPEM)
		c.Stores = append([]string(nil), c.Stores...)
		out.Certificates = append(out.Certificates, c)
	}
	return out
}

func served(t *testing.T, l certstore.Lookup, p *certgen.Pool, from, to int) []*tls.Certificate {
	t.Helper()
	var out []*tls.Certificate
	for i := from; i < to; i++ {
		c, err := lookup(l, certstore.DefaultStore, p.Certs[i].Names[0])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func TestReuse(t *testing.T) {
	p := pool(t, 20)
	s := New()
	cfg := configOf(p, 0, 20)
	cfg.Stores = map[string]certstore.StoreConfig{"x": {DefaultCertificate: &p.Certs[19].Pair}}
	mustUpdate(t, s, cfg)
	before := served(t, s, p, 0, 20)
	defBefore, _ := lookup(s, "x", "nothing")
	genBefore, _ := lookup(s, certstore.DefaultStore, "nothing")
	for i, c := range before {
		if labelOf(c) != "generated" || c == genBefore {
			t.Fatalf("certificate %d not served", i)
		}
		if &c.Certificate[1][0] != &before[0].Certificate[1][0] {
			t.Errorf("certificate %d does not share the issuer DER", i)
		}
	}
	if defBefore != before[19] {
		t.Error("a configured default that is also a configured certificate is parsed twice")
	}

	// The same configuration in new buffers: nothing is published.
	gen := s.cur.Load()
	mustUpdate(t, s, freshCopy(cfg))
	if s.cur.Load() != gen {
		t.Error("an unchanged configuration published a new generation")
	}

	// One renewed, one dropped, one added: the others are the same
	// pointers.
	r, err := p.Renewed(5, 1)
	if err != nil {
		t.Fatal(err)
	}
	next := freshCopy(cfg)
	next.Certificates[5].KeyPair = r.Pair
	next.Certificates = next.Certificates[:19]
	mustUpdate(t, s, next)
	after := served(t, s, p, 0, 19)
	for i := range after {
		if i == 5 {
			if after[i] == before[i] {
				t.Error("renewed certificate still serves the old entry")
			}
			if c, _ := tls.X509KeyPair(r.Pair.CertPEM, r.Pair.KeyPEM); !bytes.Equal(c.Certificate[0], after[i].Certificate[0]) {
				t.Error("renewed certificate not served")
			}
			continue
		}
		if after[i] != before[i] {
			t.Errorf("unchanged certificate %d got a new *tls.Certificate", i)
		}
	}
	if d, _ := lookup(s, "x", "nothing"); d != defBefore {
		t.Error("unchanged configured default got a new *tls.Certificate")
	}
	if g, _ := lookup(s, certstore.DefaultStore, "nothing"); g != genBefore {
		t.Error("the generated default was made again")
	}
	if c, _ := lookup(s, certstore.DefaultStore, p.Certs[19].Names[0]); c != genBefore {
		t.Error("dropped certificate still served")
	}
}

func TestDuplicatePairParsedOnce(t *testing.T) {
	p := pool(t, 2)
	s := New()
	cfg := &certstore.Config{Certificates: []certstore.Certificate{
		{KeyPair: p.Certs[0].Pair},
		{KeyPair: p.Certs[1].Pair, Stores: []string{"a"}},
		{KeyPair: p.Certs[0].Pair, Stores: []string{"a"}},
	}, Stores: map[string]certstore.StoreConfig{"a": {}}}
	mustUpdate(t, s, cfg)
	c1, _ := lookup(s, certstore.DefaultStore, p.Certs[0].Names[0])
	c2, _ := lookup(s, "a", p.Certs[0].Names[0])
	if c1 != c2 || labelOf(c1) != "generated" {
		t.Error("the same pair twice gave two entries")
	}
	if len(s.entries) != 2 {
		t.Errorf("%d entries, want 2", len(s.entries))
	}
}

// badConfigs returns configurations Update must reject, with the
// CertificateError Index (and Store for -1) each must report.
func badConfigs(t *testing.T) []struct {
	name  string
	cfg   *certstore.Config
	index int
	store string
	first string
} {
	p := pool(t, 20)
	is := p.Issuer()
	other := p.Certs[1].Pair
	mismatch, err := is.Issue(certgen.Leaf{Serial: 900, DNSNames: []string{"mismatch.example.test"}, KeyFor: mustKey(t, p)})
	if err != nil {
		t.Fatal(err)
	}
	noNames, err := is.Issue(certgen.Leaf{Serial: 901})
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 5<<20)
	rand.Read(garbage)
	with := func(i int, pair certstore.KeyPair, stores ...string) *certstore.Config {
		cfg := configOf(p, 0, 10)
		cfg.Certificates[i] = certstore.Certificate{KeyPair: pair, Stores: stores}
		return cfg
	}
	pemGarbage := []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
	badDefault := configOf(p, 0, 10)
	badDefault.Stores = map[string]certstore.StoreConfig{"b": {}, "x": {DefaultCertificate: &certstore.KeyPair{CertPEM: garbage, KeyPEM: other.KeyPEM}}}
	twoBad := with(3, certstore.KeyPair{})
	twoBad.Certificates[7].CertPEM = nil
	return []struct {
		name  string
		cfg   *certstore.Config
		index int
		store string
		first string
	}{
		{"5 MB garbage cert", with(2, certstore.KeyPair{CertPEM: garbage, KeyPEM: other.KeyPEM}), 2, "", ""},
		{"5 MB garbage key", with(4, certstore.KeyPair{CertPEM: other.CertPEM, KeyPEM: garbage}), 4, "", ""},
		{"nil slices", with(0, certstore.KeyPair{}), 0, "", ""},
		{"empty slices", with(9, certstore.KeyPair{CertPEM: []byte{}, KeyPEM: []byte{}}), 9, "", ""},
		{"DER garbage in PEM", with(5, certstore.KeyPair{CertPEM: pemGarbage, KeyPEM: other.KeyPEM}), 5, "", ""},
		{"switched PEM", with(5, certstore.KeyPair{CertPEM: other.KeyPEM, KeyPEM: other.CertPEM}), 5, "", ""},
		{"key of another certificate", with(6, certstore.KeyPair{CertPEM: other.CertPEM, KeyPEM: p.Certs[2].Pair.KeyPEM}), 6, "", p.Certs[1].Names[0]},
		{"mismatched key", with(1, mismatch), 1, "", "mismatch.example.test"},
		{"no names", with(8, noNames), 8, "", ""},
		{"unknown store", with(3, other, "nope"), 3, "", p.Certs[1].Names[0]},
		{"empty store name", with(3, other, ""), 3, "", p.Certs[1].Names[0]},
		{"lowest index wins", twoBad, 3, "", ""},
		{"bad default", badDefault, -1, "x", ""},
	}
}

func mustKey(t *testing.T, p *certgen.Pool) *ecdsaKey {
	t.Helper()
	c, err := tls.X509KeyPair(p.Certs[3].Pair.CertPEM, p.Certs[3].Pair.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c.PrivateKey.(*ecdsaKey)
}

func TestBadUpdateKeepsGeneration(t *testing.T) {
	p := pool(t, 20)
	s := New()
	good := configOf(p, 10, 20)
	mustUpdate(t, s, good)
	gen := s.cur.Load()
	before := served(t, s, p, 10, 20)
	chains, ders := len(s.chains), len(s.ders)
	for _, tt := range badConfigs(t) {
		t.Run(tt.name, func(t *testing.T) {
			err := s.Update(tt.cfg)
			var ce *certstore.CertificateError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v (%T), want a *certstore.CertificateError", err, err)
			}
			if ce.Index != tt.index || ce.Store != tt.store {
				t.Errorf("error names certificate %d of store %q, want %d of %q: %v", ce.Index, ce.Store, tt.index, tt.store, err)
			}
			if tt.first != "" && ce.Name != tt.first {
				t.Errorf("error Name %q, want %q: %v", ce.Name, tt.first, err)
			}
			if s.cur.Load() != gen {
				t.Fatal("a rejected update replaced the generation")
			}
			for i, c := range served(t, s, p, 10, 20) {
				if c != before[i] {
					t.Errorf("certificate %d changed after a rejected update", 10+i)
				}
			}
			if len(s.chains) != chains || len(s.ders) != ders || s.chains[firstChainKey(s)].refs != 10 {
				t.Error("a rejected update changed the intern tables")
			}
		})
	}
	if err := s.Update(nil); err == nil {
		t.Error("Update(nil) succeeded")
	}
	mustUpdate(t, s, configOf(p, 0, 10))
	if c, _ := lookup(s, certstore.DefaultStore, p.Certs[0].Names[0]); labelOf(c) != "generated" || c == nil {
		t.Error("store did not take a good configuration after rejected ones")
	}
}

func firstChainKey(s *Store) pairKey {
	for k := range s.chains {
		return k
	}
	return pairKey{}
}

func TestParallelParseReportsLowestIndex(t *testing.T) {
	p := pool(t, 100)
	s := New()
	cfg := configOf(p, 0, 100)
	cfg.Certificates[70].KeyPEM = nil
	cfg.Certificates[40].CertPEM = []byte("junk")
	cfg.Certificates[95].KeyPEM = p.Certs[0].Pair.KeyPEM
	var ce *certstore.CertificateError
	if err := s.Update(cfg); !errors.As(err, &ce) || ce.Index != 40 {
		t.Fatalf("error %v, want certificate 40", err)
	}
	mustUpdate(t, s, configOf(p, 0, 100))
	if got := len(s.entries); got != 100 {
		t.Errorf("%d entries, want 100", got)
	}
	for i, c := range served(t, s, p, 0, 100) {
		if !bytes.Equal(c.Certificate[0], mustLeaf(t, p.Certs[i].Pair)) {
			t.Fatalf("certificate %d: wrong leaf served", i)
		}
	}
}

func mustLeaf(t *testing.T, pair certstore.KeyPair) []byte {
	c, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	return c.Certificate[0]
}

func TestHeldGenerationUnaffected(t *testing.T) {
	p := pool(t, 20)
	s := New()
	mustUpdate(t, s, configOf(p, 0, 10))
	g := s.Current()
	old := served(t, g, p, 0, 10)
	mustUpdate(t, s, configOf(p, 10, 20))
	mustUpdate(t, s, &certstore.Config{Stores: map[string]certstore.StoreConfig{"z": {}}})
	for i, c := range served(t, g, p, 0, 10) {
		if c != old[i] {
			t.Errorf("held generation serves a different certificate %d", i)
		}
	}
	if _, err := lookup(g, "z", "x"); !errors.Is(err, certstore.ErrUnknownStore) {
		t.Errorf("held generation sees a store declared later: %v", err)
	}
	if c, _ := lookup(s, certstore.DefaultStore, p.Certs[0].Names[0]); c == old[0] {
		t.Error("current generation still serves a removed certificate")
	}
}

func TestReleasesDroppedEntries(t *testing.T) {
	p := pool(t, 100)
	s := New()
	mustUpdate(t, s, configOf(p, 0, 10))
	wp := weak.Make(s.entries[s.keys[0]])
	for start := 3; start+10 <= 100; start += 3 {
		mustUpdate(t, s, configOf(p, start, start+10))
		if len(s.chains) != 1 || len(s.ders) != 1 {
			t.Fatalf("%d chains, %d DERs interned; want 1 and 1", len(s.chains), len(s.ders))
		}
		if refs := s.chains[firstChainKey(s)].refs; refs != 10 {
			t.Fatalf("chain has %d references, want 10", refs)
		}
	}
	mustUpdate(t, s, &certstore.Config{})
	if len(s.chains) != 0 || len(s.ders) != 0 || len(s.entries) != 0 {
		t.Errorf("empty configuration keeps %d chains, %d DERs, %d entries", len(s.chains), len(s.ders), len(s.entries))
	}
	for i := 0; i < 10 && wp.Value() != nil; i++ {
		runtime.GC()
	}
	if wp.Value() != nil {
		t.Error("an entry no generation holds was not collected")
	}
}

func TestGoroutinesStable(t *testing.T) {
	p := pool(t, 128)
	s := New()
	mustUpdate(t, s, configOf(p, 0, 10))
	before := goleak.IgnoreCurrent()
	for i := 0; i < 4; i++ { // 64 new certificates each: parsed in parallel
		mustUpdate(t, s, configOf(p, 64*(i%2), 64*(i%2)+64))
	}
	for i := 0; i < 100; i++ {
		start := (i * 7) % 110
		mustUpdate(t, s, configOf(p, start, start+10))
	}
	// The parsing workers of the updates end with them.
	if err := goleak.Find(before); err != nil {
		t.Errorf("goroutines still running after 104 updates: %v", err)
	}
}

func TestConcurrentLookupsAndUpdates(t *testing.T) {
	p := pool(t, 40)
	s := New()
	mustUpdate(t, s, configOf(p, 0, 20))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for r := 0; r < 4; r++ {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				g := s.Current()
				// Certificates 10..19 are in every configuration.
				for i := 10; i < 20; i++ {
					c, err := lookup(g, certstore.DefaultStore, p.Certs[i].Names[0])
					if err != nil || labelOf(c) != "generated" {
						t.Errorf("lookup during updates: %v", err)
						return
					}
				}
			}
		})
	}
	for i := 0; i < 20; i++ {
		mustUpdate(t, s, configOf(p, 10*(i%3), 10*(i%3)+20))
	}
	close(stop)
	wg.Wait()
}

func TestRetainedHeapPerCert(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("memory measurement: not in -short mode or under the race detector")
	}
	const n = 2000
	per, err := retainedPerCert(pool(t, n), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("retained heap: %.0f B per P-256 certificate at %d certificates", per, n)
	if per > 1400 {
		t.Errorf("retained heap %.0f B per certificate, want under 1400", per)
	}
}

func TestRegistered(t *testing.T) {
	info, err := certstore.LookupFactory("optimized")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := info.New().(*Store); !ok {
		t.Errorf("registered factory makes %T", info.New())
	}
}

func TestCompactECDSA(t *testing.T) {
	p := pool(t, 1)
	c, err := tls.X509KeyPair(p.Certs[0].Pair.CertPEM, p.Certs[0].Pair.KeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	k := c.PrivateKey.(*ecdsaKey)
	ck := compactECDSA(k)
	if ck == k || !ck.Equal(k) || !ck.PublicKey.Equal(&k.PublicKey) {
		t.Fatal("compact key differs from the parsed one")
	}
	// The compact key signs, and the signature verifies with the leaf.
	srv := &tls.Certificate{Certificate: c.Certificate, PrivateKey: ck}
	if err := handshake(t, srv); err != nil {
		t.Fatal(err)
	}
}

// TestStoreOnlyChanges changes only stores, store lists and defaults while
// the certificates stay byte for byte the same: every change must be
// published.
func TestStoreOnlyChanges(t *testing.T) {
	p := pool(t, 5)
	s := New()
	name0 := p.Certs[0].Names[0]
	leaf := func(i int) []byte { return mustLeaf(t, p.Certs[i].Pair) }
	type want struct {
		store, sni string
		leaf       []byte // nil: the generated default
		err        error
	}
	steps := []struct {
		name   string
		stores map[string]certstore.StoreConfig
		lists  map[int][]string
		wants  []want
	}{
		{"all default", nil, nil, []want{{certstore.DefaultStore, name0, leaf(0), nil}, {"a", name0, nil, certstore.ErrUnknownStore}}},
		{"move to a", map[string]certstore.StoreConfig{"a": {}}, map[int][]string{0: {"a"}},
			[]want{{certstore.DefaultStore, name0, nil, nil}, {"a", name0, leaf(0), nil}, {"a", "x", nil, nil}}},
		{"default for a", map[string]certstore.StoreConfig{"a": {DefaultCertificate: &p.Certs[4].Pair}}, map[int][]string{0: {"a"}},
			[]want{{"a", "x", leaf(4), nil}, {certstore.DefaultStore, "x", nil, nil}}},
		{"other default for a", map[string]certstore.StoreConfig{"a": {DefaultCertificate: &p.Certs[3].Pair}}, map[int][]string{0: {"a"}},
			[]want{{"a", "x", leaf(3), nil}}},
		{"no default for a", map[string]certstore.StoreConfig{"a": {}}, map[int][]string{0: {"a"}},
			[]want{{"a", "x", nil, nil}, {"a", name0, leaf(0), nil}}},
		{"in both", map[string]certstore.StoreConfig{"a": {}}, map[int][]string{0: {"a", certstore.DefaultStore}},
			[]want{{"a", name0, leaf(0), nil}, {certstore.DefaultStore, name0, leaf(0), nil}}},
		{"back to default, a declared", map[string]certstore.StoreConfig{"a": {}}, nil,
			[]want{{"a", name0, nil, nil}, {certstore.DefaultStore, name0, leaf(0), nil}}},
		{"a undeclared", nil, nil, []want{{"a", name0, nil, certstore.ErrUnknownStore}}},
		{"default store default", map[string]certstore.StoreConfig{certstore.DefaultStore: {DefaultCertificate: &p.Certs[2].Pair}}, nil,
			[]want{{certstore.DefaultStore, "x", leaf(2), nil}}},
		{"default store default dropped", nil, nil, []want{{certstore.DefaultStore, "x", nil, nil}}},
	}
	for _, st := range steps {
		cfg := configOf(p, 0, 5)
		cfg.Stores = st.stores
		for i, l := range st.lists {
			cfg.Certificates[i].Stores = l
		}
		mustUpdate(t, s, freshCopy(cfg))
		for _, w := range st.wants {
			c, err := lookup(s, w.store, w.sni)
			switch {
			case w.err != nil:
				if !errors.Is(err, w.err) {
					t.Errorf("%s: Certificate(%q, %q): error %v, want %v", st.name, w.store, w.sni, err, w.err)
				}
			case err != nil:
				t.Errorf("%s: Certificate(%q, %q): %v", st.name, w.store, w.sni, err)
			case w.leaf == nil && labelOf(c) != "generated":
				t.Errorf("%s: Certificate(%q, %q) = %s, want the generated default", st.name, w.store, w.sni, labelOf(c))
			case w.leaf == nil:
				for i := range p.Certs {
					if bytes.Equal(c.Certificate[0], leaf(i)) {
						t.Errorf("%s: Certificate(%q, %q) = certificate %d, want the generated default", st.name, w.store, w.sni, i)
					}
				}
			case !bytes.Equal(c.Certificate[0], w.leaf):
				t.Errorf("%s: Certificate(%q, %q): wrong certificate", st.name, w.store, w.sni)
			}
		}
	}
}

// TestIPv6LetterFirst checks IPv6 SNIs that begin with a hex letter. The
// certstore rules compare an IP address SNI as an address, in any textual
// form, and never match it against wildcards; certstore.Match (through
// certstore's maybeIP, which stops at the first letter before it sees a
// colon) treats these as host names, so the expectations here follow the
// documented rules rather than Match.
func TestIPv6LetterFirst(t *testing.T) {
	s := New()
	mustUpdate(t, s, lookupConfig())
	for _, tt := range []struct{ sni, want string }{
		{"fd00::1", "ip6letter"},
		{"FD00:0::1", "ip6letter"},
		{"fd00:0:0:0:0:0:0:1", "ip6letter"},
		{"a::1.2.3.4", "generated"}, // an address: no wildcard match for *.2.3.4
		{"x.2.3.4", "ip6letter"},    // a host name: the wildcard matches
	} {
		c, err := lookup(s, certstore.DefaultStore, tt.sni)
		if err != nil {
			t.Fatal(err)
		}
		if got := labelOf(c); got != tt.want {
			t.Errorf("Certificate(%q) = %s, want %s", tt.sni, got, tt.want)
		}
	}
}

// TestReuseParallelHashing runs TestReuse with content keys computed in
// parallel, as they are for configurations of parallelHashMin or more.
func TestReuseParallelHashing(t *testing.T) {
	defer func(n int) { parallelHashMin = n }(parallelHashMin)
	parallelHashMin = 4
	TestReuse(t)
	TestBadUpdateKeepsGeneration(t)
}

// Package storefuzz holds the bodies of the fuzz targets that every store in
// this repository runs from its own fuzz_test.go: Update with arbitrary PEM
// input, and lookups on generated configurations checked against
// certstore.Match. The targets live in the stores' packages (so that
// go test -fuzz runs them there, with the store's own coverage); the checks
// are written once, here.
package storefuzz

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// Store names of the configurations the targets build.
const (
	// EdgeStore is the declared named store of CheckUpdate.
	EdgeStore = "edge"
	// GoodName is the name of the certificate of the good configuration.
	GoodName = "good.fuzz.test"
)

// Flags of CheckUpdate's flags argument.
const (
	// FlagFirst puts the fuzzed certificate before the good one.
	FlagFirst = 1 << iota
	// FlagEdgeDefault makes the fuzzed pair the configured default of
	// EdgeStore.
	FlagEdgeDefault
	// FlagEdgeOnly leaves the good certificate out of the configuration.
	FlagEdgeOnly
)

// maxInput bounds the fuzzed inputs the targets look at; larger ones are
// skipped so that an iteration stays fast.
const maxInput = 64 << 10

type pair struct {
	kp   certstore.KeyPair
	leaf []byte
}

type fixtures struct {
	is   *certgen.Issuer
	key  *ecdsa.PrivateKey
	good pair // GoodName
	def  pair // the configured default of the default store
	edge pair // the configured default of EdgeStore
}

var load = sync.OnceValues(func() (*fixtures, error) {
	fx := &fixtures{is: certgen.NewIssuer(0xf022)}
	key, err := fx.is.P256Key(1, 1<<32)
	if err != nil {
		return nil, err
	}
	fx.key = key
	mk := func(serial uint64, names ...string) (pair, error) {
		kp, err := fx.is.Issue(certgen.Leaf{Serial: serial, DNSNames: names, Key: key})
		if err != nil {
			return pair{}, err
		}
		b, _ := pem.Decode(kp.CertPEM)
		return pair{kp: kp, leaf: b.Bytes}, nil
	}
	if fx.good, err = mk(1, GoodName); err != nil {
		return nil, err
	}
	if fx.def, err = mk(2, "default.fuzz.invalid"); err != nil {
		return nil, err
	}
	if fx.edge, err = mk(3, "edge-default.fuzz.invalid"); err != nil {
		return nil, err
	}
	return fx, nil
})

func fixturesFor(tb testing.TB) *fixtures {
	tb.Helper()
	fx, err := load()
	if err != nil {
		tb.Fatalf("storefuzz: making fixtures: %v", err)
	}
	return fx
}

// UpdateSeed is one seed input of CheckUpdate.
type UpdateSeed struct {
	CertPEM, KeyPEM []byte
	Stores          string
	Flags           uint8
}

// UpdateSeeds returns seed inputs for CheckUpdate: valid pairs (ASCII and
// non-ASCII names), a mismatched key, truncated and empty PEM, an
// undeclared store.
func UpdateSeeds(tb testing.TB) []UpdateSeed {
	tb.Helper()
	fx := fixturesFor(tb)
	var seeds []UpdateSeed
	add := func(serial uint64, l certgen.Leaf, stores string, flags uint8) certstore.KeyPair {
		l.Serial = serial
		if l.Key == nil {
			l.Key = fx.key
		}
		kp, err := fx.is.Issue(l)
		if err != nil {
			tb.Fatalf("storefuzz: seed %d: %v", serial, err)
		}
		seeds = append(seeds, UpdateSeed{kp.CertPEM, kp.KeyPEM, stores, flags})
		return kp
	}
	kp := add(10, certgen.Leaf{DNSNames: []string{"a.fuzz.test", "*.w.fuzz.test"}}, "", 0)
	add(11, certgen.Leaf{CommonName: "ÉXAMPLE.TEST"}, EdgeStore, FlagEdgeDefault)
	add(12, certgen.Leaf{CommonName: "\u212AELVIN.TEST", IPAddresses: []net.IP{net.ParseIP("192.0.2.1")}}, "default,edge", FlagFirst)
	other, err := fx.is.P256Key(99, 1<<32)
	if err != nil {
		tb.Fatal(err)
	}
	add(13, certgen.Leaf{DNSNames: []string{"mismatch.fuzz.test"}, KeyFor: other}, "", 0)
	seeds = append(seeds,
		UpdateSeed{kp.CertPEM[:len(kp.CertPEM)/2], kp.KeyPEM, "", 0},
		UpdateSeed{kp.CertPEM, kp.KeyPEM[:len(kp.KeyPEM)-40], "", 0},
		UpdateSeed{kp.CertPEM, kp.KeyPEM, "nosuch", 0},
		UpdateSeed{kp.CertPEM, kp.KeyPEM, "edge,", FlagEdgeOnly},
		UpdateSeed{nil, nil, "", 0},
		UpdateSeed{[]byte("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"), kp.KeyPEM, "", FlagEdgeDefault},
	)
	return seeds
}

// served returns the leaf DER of what l serves for sni in store, failing t
// on an error or an empty answer.
func served(t *testing.T, what string, l certstore.Lookup, store, sni string) []byte {
	t.Helper()
	c, err := l.Certificate(store, &tls.ClientHelloInfo{ServerName: sni})
	if err != nil {
		t.Fatalf("%s: Certificate(%q, %q): %v", what, store, sni, err)
	}
	if c == nil || len(c.Certificate) == 0 {
		t.Fatalf("%s: Certificate(%q, %q): no certificate and no error", what, store, sni)
	}
	return c.Certificate[0]
}

// goodConfig is the configuration every store starts from.
func (fx *fixtures) goodConfig() *certstore.Config {
	return &certstore.Config{
		Certificates: []certstore.Certificate{{KeyPair: fx.good.kp}},
		Stores: map[string]certstore.StoreConfig{
			certstore.DefaultStore: {DefaultCertificate: &fx.def.kp},
			EdgeStore:              {DefaultCertificate: &fx.edge.kp},
		},
	}
}

// checkGood checks that l serves the good configuration.
func (fx *fixtures) checkGood(t *testing.T, what string, l certstore.Lookup) {
	t.Helper()
	if !bytes.Equal(served(t, what, l, certstore.DefaultStore, GoodName), fx.good.leaf) {
		t.Fatalf("%s: %s is not served its certificate", what, GoodName)
	}
	if !bytes.Equal(served(t, what, l, certstore.DefaultStore, "nothing.fuzz.invalid"), fx.def.leaf) {
		t.Fatalf("%s: a miss does not get the configured default", what)
	}
	if !bytes.Equal(served(t, what, l, EdgeStore, GoodName), fx.edge.leaf) {
		t.Fatalf("%s: store %s does not serve its configured default", what, EdgeStore)
	}
}

// CheckUpdate applies a good configuration to a new store, then one with
// a certificate made of certPEM and keyPEM (in the stores listed,
// comma-separated, in stores; flags say where else it goes), and checks:
// Update does not panic; it either returns a *certstore.CertificateError
// and the store keeps serving the good configuration, or it succeeds and
// the new generation answers lookups as certstore.Match says; either way
// the store takes the good configuration again afterwards.
//
// Every store of the configuration has a configured default, so that
// stores that generate their default (an RSA key) stay fast to fuzz.
func CheckUpdate(t *testing.T, newStore certstore.Factory, certPEM, keyPEM []byte, stores string, flags uint8) {
	if len(certPEM)+len(keyPEM)+len(stores) > maxInput {
		t.Skip("input too large")
	}
	fx := fixturesFor(t)
	s := newStore()
	if c, ok := s.(certstore.Closer); ok {
		defer c.Close()
	}
	if err := s.Update(fx.goodConfig()); err != nil {
		t.Fatalf("the good configuration: %v", err)
	}
	fx.checkGood(t, "after the good configuration", s)

	fuzzed := certstore.KeyPair{CertPEM: bytes.Clone(certPEM), KeyPEM: bytes.Clone(keyPEM)}
	cert := certstore.Certificate{KeyPair: fuzzed}
	if stores != "" {
		cert.Stores = strings.Split(stores, ",")
	}
	cfg := fx.goodConfig()
	if flags&FlagEdgeOnly != 0 {
		cfg.Certificates = nil
	}
	if flags&FlagFirst != 0 {
		cfg.Certificates = append([]certstore.Certificate{cert}, cfg.Certificates...)
	} else {
		cfg.Certificates = append(cfg.Certificates, cert)
	}
	if flags&FlagEdgeDefault != 0 {
		kp := fuzzed
		cfg.Stores[EdgeStore] = certstore.StoreConfig{DefaultCertificate: &kp}
	}

	err := s.Update(cfg)
	if !bytes.Equal(cert.CertPEM, certPEM) || !bytes.Equal(cert.KeyPEM, keyPEM) {
		t.Fatal("Update modified the PEM it was given")
	}
	if err != nil {
		var ce *certstore.CertificateError
		if !errors.As(err, &ce) {
			t.Fatalf("Update rejected the configuration with %T (%v), want a *certstore.CertificateError", err, err)
		}
		fx.checkGood(t, fmt.Sprintf("after a rejected Update (%v)", err), s)
		fx.checkGood(t, "Current() after a rejected Update", s.Current())
	} else {
		checkServing(t, s, cfg, fuzzed, flags)
	}

	if err := s.Update(fx.goodConfig()); err != nil {
		t.Fatalf("the good configuration after the fuzzed one: %v", err)
	}
	fx.checkGood(t, "after the good configuration again", s)
}

// checkServing checks lookups of the accepted configuration cfg against
// certstore.Match: the names of both certificates, their wildcards, a miss
// and the empty SNI, in every store.
func checkServing(t *testing.T, s certstore.Store, cfg *certstore.Config, fuzzed certstore.KeyPair, flags uint8) {
	t.Helper()
	fx := fixturesFor(t)
	leafOf := map[string][]byte{}
	namesOf := map[string][]string{}
	var probes []string
	for _, kp := range []certstore.KeyPair{fx.good.kp, fuzzed} {
		c, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
		if err != nil {
			// The store accepted a pair crypto/tls does not; all that
			// can be checked is that it answers.
			continue
		}
		leaf, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			continue
		}
		leafOf[string(kp.CertPEM)] = leaf.Raw
		namesOf[string(kp.CertPEM)] = certstore.Names(leaf)
		for _, n := range certstore.Names(leaf) {
			probes = append(probes, n, strings.ToUpper(n))
			if rest, ok := strings.CutPrefix(n, "*."); ok {
				probes = append(probes, "x."+rest, "X."+strings.ToUpper(rest))
			}
		}
	}
	probes = append(probes, "", "nothing.fuzz.invalid", GoodName)
	if len(probes) > 64 {
		probes = probes[:64]
	}
	for _, g := range []struct {
		what string
		l    certstore.Lookup
	}{{"Store.Certificate", s}, {"Current().Certificate", s.Current()}} {
		for _, store := range []string{certstore.DefaultStore, EdgeStore} {
			var names [][]string
			var leaves [][]byte
			known := true
			for i := range cfg.Certificates {
				c := &cfg.Certificates[i]
				if !slices.Contains(certstore.StoresOf(c), store) {
					continue
				}
				leaf, ok := leafOf[string(c.CertPEM)]
				known = known && ok
				names = append(names, namesOf[string(c.CertPEM)])
				leaves = append(leaves, leaf)
			}
			// Every store has a configured default: a fixture, or the
			// fuzzed pair (FlagEdgeDefault).
			def := cfg.Stores[store].DefaultCertificate
			leafOf[string(fx.def.kp.CertPEM)] = fx.def.leaf
			leafOf[string(fx.edge.kp.CertPEM)] = fx.edge.leaf
			defLeaf, ok := leafOf[string(def.CertPEM)]
			known = known && ok
			for _, sni := range probes {
				got := served(t, g.what, g.l, store, sni)
				if !known {
					continue
				}
				want := defLeaf
				if i := certstore.Match(names, sni); i >= 0 {
					want = leaves[i]
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s(%q, %q) serves %s, certstore.Match says %s (flags %d)",
						g.what, store, sni, describe(got), describe(want), flags)
				}
			}
		}
	}
}

// describe names a leaf for messages.
func describe(der []byte) string {
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return fmt.Sprintf("an unparsable certificate (%v)", err)
	}
	return fmt.Sprintf("CN=%q DNS=%q IP=%v", c.Subject.CommonName, c.DNSNames, c.IPAddresses)
}

// CheckMatch builds a configuration from spec and checks the store's
// lookups against certstore.Match for sni and for every configured name
// (upper-cased too, and with wildcards filled in).
//
// spec has one certificate per line, "CN;name,name,...": the part before
// the first ";" (if any) is the common name, the rest comma-separated SANs;
// a SAN of the form "ip:ADDR" is an IP address, any other a DNS name. A
// line whose certificate cannot be issued (a non-ASCII DNS name, invalid
// UTF-8 in the common name) is left out; at most 6 certificates of at most
// 6 SANs are used.
func CheckMatch(t *testing.T, newStore certstore.Factory, spec, sni string) {
	if len(spec)+len(sni) > 4<<10 {
		t.Skip("input too large")
	}
	fx := fixturesFor(t)
	cfg := &certstore.Config{Stores: map[string]certstore.StoreConfig{
		certstore.DefaultStore: {DefaultCertificate: &fx.def.kp},
	}}
	var names [][]string
	var leaves [][]byte
	probes := []string{sni, strings.ToUpper(sni), strings.ToLower(sni)}
	for i, line := range strings.Split(spec, "\n") {
		if len(cfg.Certificates) == 6 {
			break
		}
		var l certgen.Leaf
		if cn, rest, ok := strings.Cut(line, ";"); ok {
			l.CommonName, line = cn, rest
		}
		for j, n := range strings.Split(line, ",") {
			if j == 6 {
				break
			}
			if a, ok := strings.CutPrefix(n, "ip:"); ok {
				if ip := net.ParseIP(a); ip != nil {
					l.IPAddresses = append(l.IPAddresses, ip)
				}
				continue
			}
			if n != "" {
				l.DNSNames = append(l.DNSNames, n)
			}
		}
		l.Serial, l.Key = uint64(100+i), fx.key
		kp, err := fx.is.Issue(l)
		if err != nil {
			continue
		}
		c, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
		if err != nil {
			continue
		}
		ns := certstore.Names(c.Leaf)
		if len(ns) == 0 {
			continue // rejected by the contract: no name
		}
		cfg.Certificates = append(cfg.Certificates, certstore.Certificate{KeyPair: kp})
		names = append(names, ns)
		leaves = append(leaves, c.Certificate[0])
		for _, n := range ns {
			probes = append(probes, n, strings.ToUpper(n))
			if rest, ok := strings.CutPrefix(n, "*."); ok {
				probes = append(probes, "x."+rest, "É."+strings.ToUpper(rest))
			}
		}
	}
	s := newStore()
	if c, ok := s.(certstore.Closer); ok {
		defer c.Close()
	}
	if err := s.Update(cfg); err != nil {
		t.Fatalf("Update of a valid configuration: %v", err)
	}
	g := s.Current()
	for _, p := range probes {
		want := fx.def.leaf
		if i := certstore.Match(names, p); i >= 0 {
			want = leaves[i]
		}
		for _, l := range []struct {
			what string
			l    certstore.Lookup
		}{{"Store.Certificate", s}, {"Current().Certificate", g}} {
			if got := served(t, l.what, l.l, certstore.DefaultStore, p); !bytes.Equal(got, want) {
				t.Fatalf("%s(%q) serves %s, certstore.Match says %s (names %q)", l.what, p, describe(got), describe(want), names)
			}
		}
	}
}

// Update is the body of a store's FuzzUpdate: it adds UpdateSeeds and
// fuzzes CheckUpdate on stores from newStore.
func Update(f *testing.F, newStore certstore.Factory) {
	for _, s := range UpdateSeeds(f) {
		f.Add(s.CertPEM, s.KeyPEM, s.Stores, s.Flags)
	}
	f.Fuzz(func(t *testing.T, certPEM, keyPEM []byte, stores string, flags uint8) {
		CheckUpdate(t, newStore, certPEM, keyPEM, stores, flags)
	})
}

// matchSeeds are the seed inputs of Match: non-ASCII names whose
// lowercasing differs between rules, wildcards, IP addresses with zones,
// names with commas and empty specs.
var matchSeeds = []struct{ spec, sni string }{
	{"ÉXAMPLE.TEST", "Éxample.test"},
	{"ÉXAMPLE.TEST", "ÉxAmple.test"},
	{"\u212AELVIN.TEST;kelvin.example.test", "\u212Aelvin.test"},
	{";*.example.com,a.example.com\n;*.example.com", "B.example.com"},
	{"*.ÜBER.TEST", "a.Über.test"},
	{"10.0.0.1;ip:10.0.0.2,2001:DB8::1\nfe80::1%ETH0", "2001:db8::1"},
	{"fe80::1%eth0;x.test", "fe80::1%ETH0"},
	{"a,b.example.com;c.test", "A,B.example.com"},
	{";\n;", ""},
}

// Match is the body of a store's FuzzMatch: it adds the seeds and fuzzes
// CheckMatch on stores from newStore.
func Match(f *testing.F, newStore certstore.Factory) {
	for _, s := range matchSeeds {
		f.Add(s.spec, s.sni)
	}
	f.Fuzz(func(t *testing.T, spec, sni string) {
		CheckMatch(t, newStore, spec, sni)
	})
}

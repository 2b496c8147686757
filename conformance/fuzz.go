package conformance

// Fuzz target bodies a store runs from its own fuzz tests, so that
// go test -fuzz runs them with the store's coverage.

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// FuzzUpdate is the body of a store's FuzzUpdate target:
//
//	func FuzzUpdate(f *testing.F) {
//		conformance.FuzzUpdate(f, func() certstore.Store { return mystore.New() })
//	}
//
// An input is a key pair of arbitrary PEM bytes, its stores
// (comma-separated) and flags (fuzzFirst, ...). A new store takes a good
// configuration, then one with the fuzzed pair, which Update must not
// panic on or modify: either a *certstore.CertificateError that leaves the
// good one serving, or lookups as certstore.Match says; then the good one
// again. Every store has a configured default, so that a store that
// generates defaults stays fast to fuzz.
func FuzzUpdate(f *testing.F, newStore certstore.Factory) {
	for _, s := range updateSeeds(f) {
		f.Add(s.certPEM, s.keyPEM, s.stores, s.flags)
	}
	f.Fuzz(func(t *testing.T, certPEM, keyPEM []byte, stores string, flags uint8) {
		checkUpdate(t, newStore, certPEM, keyPEM, stores, flags)
	})
}

// FuzzMatch is the body of a store's FuzzMatch target (called as
// FuzzUpdate is). An input is an SNI and a configuration as text, a
// certificate a line, "CN;name,name,..." ("ip:ADDR" an IP address), at
// most 6 of 6 names. The SNI, the names in other cases and under their
// wildcards, and the differential pass's lookups are compared with
// certstore.Match; a divergence is shrunk and reported as the pass does.
func FuzzMatch(f *testing.F, newStore certstore.Factory) {
	for _, s := range matchSeeds {
		f.Add(s.spec, s.sni)
	}
	f.Fuzz(func(t *testing.T, spec, sni string) {
		checkMatch(t, newStore, spec, sni)
	})
}

// Flags of FuzzUpdate's input.
const (
	fuzzFirst       = 1 << iota // the fuzzed pair before the good one
	fuzzEdgeDefault             // the fuzzed pair is also the default of fuzzEdge
	fuzzEdgeOnly                // the good certificate left out
)

const (
	fuzzEdge     = "edge"
	fuzzGoodName = "good.fuzz.test"
	fuzzMiss     = "nothing.fuzz.invalid"
	maxFuzzInput = 64 << 10 // so that an iteration stays fast

)

type fuzzPair struct {
	kp   certstore.KeyPair
	leaf []byte
}

// fuzzFixtures are FuzzUpdate's certificates and seeds' issuer.
type fuzzFixtures struct {
	is              *certgen.Issuer
	key             *ecdsa.PrivateKey
	good, def, edge fuzzPair
}

var loadFuzz = sync.OnceValues(func() (*fuzzFixtures, error) {
	fx := &fuzzFixtures{is: certgen.NewIssuer(0xf022)}
	key, err := fx.is.P256Key(1, 1<<32)
	if err != nil {
		return nil, err
	}
	fx.key = key
	for i, name := range []string{fuzzGoodName, "default.fuzz.invalid", "edge-default.fuzz.invalid"} {
		kp, err := fx.is.Issue(certgen.Leaf{Serial: uint64(i + 1), DNSNames: []string{name}, Key: key})
		if err != nil {
			return nil, err
		}
		*[]*fuzzPair{&fx.good, &fx.def, &fx.edge}[i] = fuzzPair{kp: kp, leaf: certstore.AppendCertificateDERs(nil, kp.CertPEM)[0]}
	}
	return fx, nil

})

func fuzzFixturesFor(tb testing.TB) *fuzzFixtures {
	tb.Helper()
	fx, err := loadFuzz()
	if err != nil {
		tb.Fatalf("conformance: making the fuzz fixtures: %v", err)
	}
	return fx
}

type updateSeed struct {
	certPEM, keyPEM []byte
	stores          string
	flags           uint8
}

// updateSeeds are valid pairs (ASCII and non-ASCII names), a mismatched
// key, truncated and empty PEM, undeclared and empty store names.
func updateSeeds(tb testing.TB) []updateSeed {
	tb.Helper()
	fx := fuzzFixturesFor(tb)
	var seeds []updateSeed
	add := func(serial uint64, l certgen.Leaf, stores string, flags uint8) certstore.KeyPair {
		l.Serial = serial
		if l.Key == nil {
			l.Key = fx.key
		}
		kp, err := fx.is.Issue(l)
		if err != nil {
			tb.Fatalf("conformance: fuzz seed %d: %v", serial, err)
		}
		seeds = append(seeds, updateSeed{kp.CertPEM, kp.KeyPEM, stores, flags})
		return kp
	}
	kp := add(10, certgen.Leaf{DNSNames: []string{"a.fuzz.test", "*.w.fuzz.test"}}, "", 0)
	add(11, certgen.Leaf{CommonName: "ÉXAMPLE.TEST"}, fuzzEdge, fuzzEdgeDefault)
	add(12, certgen.Leaf{CommonName: "\u212AELVIN.TEST", IPAddresses: []net.IP{net.ParseIP("192.0.2.1")}}, "default,edge", fuzzFirst)
	other, err := fx.is.P256Key(99, 1<<32)
	if err != nil {
		tb.Fatal(err)
	}
	add(13, certgen.Leaf{DNSNames: []string{"mismatch.fuzz.test"}, KeyFor: other}, "", 0)
	return append(seeds,
		updateSeed{kp.CertPEM[:len(kp.CertPEM)/2], kp.KeyPEM, "", 0},
		updateSeed{kp.CertPEM, kp.KeyPEM[:len(kp.KeyPEM)-40], "", 0},
		updateSeed{kp.CertPEM, kp.KeyPEM, "nosuch", 0},
		updateSeed{kp.CertPEM, kp.KeyPEM, "edge,", fuzzEdgeOnly},
		updateSeed{nil, nil, "", 0},
		updateSeed{[]byte("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"), kp.KeyPEM, "", fuzzEdgeDefault},
	)
}

// served returns the leaf DER l serves for sni in store, failing t if none.
func served(t *testing.T, what string, l certstore.Lookup, store, sni string) []byte {
	t.Helper()
	c, err := lookup(l, store, sni)
	if err != nil {
		t.Fatalf("%s: Certificate(%q, %q): %v", what, store, sni, err)
	}
	if leafOf(c) == nil {
		t.Fatalf("%s: Certificate(%q, %q): no certificate and no error", what, store, sni)
	}
	return leafOf(c)
}

// goodConfig is the configuration every FuzzUpdate store starts from.
func (fx *fuzzFixtures) goodConfig() *certstore.Config {
	return &certstore.Config{
		Certificates: []certstore.Certificate{{KeyPair: fx.good.kp}},
		Stores: map[string]certstore.StoreConfig{
			certstore.DefaultStore: {DefaultCertificate: &fx.def.kp},
			fuzzEdge:               {DefaultCertificate: &fx.edge.kp},
		},
	}
}

// checkGood checks that l serves the good configuration.
func (fx *fuzzFixtures) checkGood(t *testing.T, what string, l certstore.Lookup) {
	t.Helper()
	for _, c := range []struct {
		store, sni string
		want       []byte
		says       string
	}{
		{certstore.DefaultStore, fuzzGoodName, fx.good.leaf, fuzzGoodName + " is not served its certificate"},
		{certstore.DefaultStore, fuzzMiss, fx.def.leaf, "a miss does not get the configured default"},
		{fuzzEdge, fuzzGoodName, fx.edge.leaf, "store " + fuzzEdge + " does not serve its configured default"},
	} {
		if !bytes.Equal(served(t, what, l, c.store, c.sni), c.want) {
			t.Fatalf("%s: %s", what, c.says)
		}
	}
}

func checkUpdate(t *testing.T, newStore certstore.Factory, certPEM, keyPEM []byte, stores string, flags uint8) {
	if len(certPEM)+len(keyPEM)+len(stores) > maxFuzzInput {
		t.Skip("input too large")
	}
	fx := fuzzFixturesFor(t)
	s, closeStore, err := open(newStore)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	update := func(cfg *certstore.Config) error {
		var err error
		if pe := protect("Update", func() { err = s.Update(cfg) }); pe != nil {
			t.Fatal(pe)
		}
		return err
	}
	if err := update(fx.goodConfig()); err != nil {
		t.Fatalf("the good configuration: %v", err)
	}
	fx.checkGood(t, "after the good configuration", s)

	fuzzed := certstore.KeyPair{CertPEM: bytes.Clone(certPEM), KeyPEM: bytes.Clone(keyPEM)}
	cert := certstore.Certificate{KeyPair: fuzzed}
	if stores != "" {
		cert.Stores = strings.Split(stores, ",")
	}
	cfg := fx.goodConfig()
	if flags&fuzzEdgeOnly != 0 {
		cfg.Certificates = nil
	}
	if flags&fuzzFirst != 0 {
		cfg.Certificates = append([]certstore.Certificate{cert}, cfg.Certificates...)
	} else {
		cfg.Certificates = append(cfg.Certificates, cert)
	}
	if flags&fuzzEdgeDefault != 0 {
		kp := fuzzed
		cfg.Stores[fuzzEdge] = certstore.StoreConfig{DefaultCertificate: &kp}
	}

	err = update(cfg)
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
		fx.checkServing(t, s, cfg, fuzzed, flags)
	}

	if err := update(fx.goodConfig()); err != nil {
		t.Fatalf("the good configuration after the fuzzed one: %v", err)
	}
	fx.checkGood(t, "after the good configuration again", s)
}

// checkServing checks lookups of the accepted cfg against certstore.Match:
// both certificates' names, their wildcards, a miss and no SNI.
func (fx *fuzzFixtures) checkServing(t *testing.T, s certstore.Store, cfg *certstore.Config, fuzzed certstore.KeyPair, flags uint8) {
	t.Helper()
	leaves := map[string][]byte{string(fx.def.kp.CertPEM): fx.def.leaf, string(fx.edge.kp.CertPEM): fx.edge.leaf}
	names := map[string][]string{}
	var probes []string
	for _, kp := range []certstore.KeyPair{fx.good.kp, fuzzed} {
		c, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
		if err != nil {
			continue // accepted where crypto/tls does not: it must only answer
		}
		leaves[string(kp.CertPEM)] = c.Leaf.Raw
		names[string(kp.CertPEM)] = certstore.Names(c.Leaf)
		for _, n := range certstore.Names(c.Leaf) {
			probes = append(probes, n, strings.ToUpper(n))
			if rest, ok := strings.CutPrefix(n, "*."); ok {
				probes = append(probes, "x."+rest, "X."+strings.ToUpper(rest))
			}
		}
	}
	probes = append(probes[:min(len(probes), 61)], "", fuzzMiss, fuzzGoodName)
	for _, v := range vias(s, s.Current()) {
		for _, store := range []string{certstore.DefaultStore, fuzzEdge} {
			var ns [][]string
			var ls [][]byte
			_, known := leaves[string(cfg.Stores[store].DefaultCertificate.CertPEM)]
			for i := range cfg.Certificates {
				c := &cfg.Certificates[i]
				if slices.Contains(certstore.StoresOf(c), store) {
					leaf, ok := leaves[string(c.CertPEM)]
					known = known && ok
					ns = append(ns, names[string(c.CertPEM)])
					ls = append(ls, leaf)
				}
			}
			for _, sni := range probes {
				got := served(t, v.name, v.l, store, sni)
				if !known {
					continue
				}
				want := leaves[string(cfg.Stores[store].DefaultCertificate.CertPEM)]
				if i := certstore.Match(ns, sni); i >= 0 {
					want = ls[i]
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("%s(%q, %q) serves %s, certstore.Match says %s (flags %d)", v.name, store, sni, describeDER(got), describeDER(want), flags)
				}
			}
		}
	}
}

// describeDER names a leaf for messages.
func describeDER(der []byte) string {
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return fmt.Sprintf("an unparsable certificate (%v)", err)
	}
	return fmt.Sprintf("CN=%q DNS=%q IP=%v", c.Subject.CommonName, c.DNSNames, c.IPAddresses)
}

// matchSeeds are FuzzMatch's seeds: non-ASCII names lowercased differently
// by different rules, wildcards, IP zones, commas and empty specs.
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

// fuzzDefault is FuzzMatch's configured default.
var fuzzDefault = CaseCert{DNSNames: []string{"default.fuzz.invalid"}}

// parseSpec turns FuzzMatch's text into a configuration of the
// certificates that can be issued.
func parseSpec(lc *leafCache, spec string) CaseConfig {
	cfg := CaseConfig{Stores: map[string]*CaseCert{certstore.DefaultStore: &fuzzDefault}}
	for i, line := range strings.Split(spec, "\n") {
		if len(cfg.Certs) == 6 {
			break
		}
		cc := CaseCert{Variant: i + 1} // equal lines are two certificates
		if cn, rest, ok := strings.Cut(line, ";"); ok {
			cc.CommonName, line = cn, rest
		}
		for j, n := range strings.Split(line, ",") {
			if j == 6 {
				break
			}
			if s, ok := strings.CutPrefix(n, "ip:"); ok {
				if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
					cc.IPs = append(cc.IPs, s)
				}
			} else if n != "" {
				cc.DNSNames = append(cc.DNSNames, n)
			}
		}
		if !cc.hasName() {
			continue
		}
		is, err := lc.get(&cc)
		if err != nil || len(is.names) == 0 {
			continue
		}
		if _, err := tls.X509KeyPair(is.pair.CertPEM, is.pair.KeyPEM); err != nil {
			continue
		}
		cfg.Certs = append(cfg.Certs, cc)
	}
	return cfg
}

func checkMatch(t *testing.T, newStore certstore.Factory, spec, sni string) {
	if len(spec)+len(sni) > 4<<10 {
		t.Skip("input too large")
	}
	d, err := matchDivergence(newStore, spec, sni)
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	if d != nil {
		t.Fatal(d.Report())
	}
}

// matchDivergence is FuzzMatch's check of one input: the first divergence,
// shrunk, or nil.
func matchDivergence(newStore certstore.Factory, spec, sni string) (*Divergence, error) {
	lc := diffLeaves()
	cfg := parseSpec(lc, spec)
	b, err := cfg.build(lc)
	if err != nil {
		return nil, err
	}
	names := []string{sni, strings.ToUpper(sni), strings.ToLower(sni)}
	for _, is := range b.certs {
		for _, n := range is.names {
			names = append(names, n, strings.ToUpper(n))
			if rest, ok := strings.CutPrefix(n, "*."); ok {
				names = append(names, "x."+rest, "É."+strings.ToUpper(rest))
			}
		}
	}
	h := fnv.New64a()
	h.Write([]byte(spec + "\x00" + sni))
	sc := newScript(rand.New(rand.NewPCG(h.Sum64(), 0)), []CaseConfig{cfg})
	for _, v := range []string{viaStore, viaCurrent} {
		for _, n := range names {
			sc.steps[0] = append(sc.steps[0], lookupStep{via: v, store: certstore.DefaultStore, sni: n})
		}
	}
	if ds, _, _ := sc.diverge(newStore, []*built{b}); len(ds) > 0 {
		return shrinkDivergence(newStore, lc, ds[0], nil), nil
	}
	return nil, nil
}

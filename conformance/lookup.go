package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

const (
	storeDefault = certstore.DefaultStore
	storeShop    = "shop"
	miss         = "nothing.example.invalid"
)

// runTable runs a subtest per run of consecutive cases of the same name.
func (su *suite) runTable(t rt, s certstore.Store, g certstore.Generation, cfg *certstore.Config, cases []lookupWant) {
	t.Helper()
	for i := 0; i < len(cases); {
		j := i + 1
		for j < len(cases) && cases[j].name == cases[i].name {
			j++
		}
		group := cases[i:j]
		t.Run(group[0].name, func(t rt) { su.checkTable(t, s, g, cfg, group) })
		i = j
	}
}

func (su *suite) testNoConfiguration(t rt) {
	s := su.newStore(t)
	g := su.current(t, s)
	for _, v := range vias(s, g) {
		for _, sni := range []string{"good1.example.com", ""} {
			c, err := su.lookup(t, v.l, storeDefault, sni)
			if !errors.Is(err, certstore.ErrNoCertificate) {
				t.Errorf("before any Update: %s(%q, %q) = %s, error %v; want error certstore.ErrNoCertificate",
					v.name, storeDefault, sni, su.fx.describeLeaf(leafOf(c)), err)
			}
		}
	}
	cfg := &certstore.Config{
		Certificates: []certstore.Certificate{su.fx.certs[lGood1].entry()},
		Stores:       map[string]certstore.StoreConfig{storeDefault: {DefaultCertificate: su.fx.certs[lDefault].pairPtr()}},
	}
	su.mustUpdate(t, s, cfg)
	if c, err := su.lookup(t, g, storeDefault, "good1.example.com"); !errors.Is(err, certstore.ErrNoCertificate) {
		t.Errorf("a generation held from before the first Update changed: Certificate(%q, %q) = %s, error %v; want error certstore.ErrNoCertificate",
			storeDefault, "good1.example.com", su.fx.describeLeaf(leafOf(c)), err)
	}
	su.checkTable(t, s, su.current(t, s), cfg, []lookupWant{
		{name: "after the first Update", store: storeDefault, sni: "good1.example.com", want: lGood1},
	})
}

// Labels of the fixtures of the Unicode case rules. DNS names are ASCII
// (IA5String), so the non-ASCII names are common names.
const (
	lUnicode     = "unicode"      // CN ÉXAMPLE.TEST
	lKelvin      = "kelvin"       // CN "\u212AELVIN.TEST" (Kelvin sign), DNS kelvin.example.test
	lUnicodeWild = "unicode-wild" // CN *.ÜBER.TEST
)

// unicodeLeaves are the certificates of the Unicode case rules.
var unicodeLeaves = []struct {
	label string
	leaf  certgen.Leaf
}{
	{lUnicode, certgen.Leaf{CommonName: "ÉXAMPLE.TEST"}},
	{lKelvin, certgen.Leaf{CommonName: "\u212AELVIN.TEST", DNSNames: []string{"kelvin.example.test"}}},
	{lUnicodeWild, certgen.Leaf{CommonName: "*.ÜBER.TEST"}},
}

// lookupConfig is the configuration of the Lookup checks: one store, the
// wildcard before the exact name it covers.
func (su *suite) lookupConfig() *certstore.Config {
	c := su.fx.certs
	return &certstore.Config{
		Certificates: []certstore.Certificate{
			c[lWild].entry(), c[lWWW].entry(), c[lMixed].entry(), c[lCNOnly].entry(),
			c[lIP].entry(), c[lDup1].entry(), c[lDup2].entry(), c[lDeep].entry(),
			c[lUnicode].entry(), c[lKelvin].entry(), c[lUnicodeWild].entry(),
		},
		Stores: map[string]certstore.StoreConfig{storeDefault: {DefaultCertificate: c[lDefault].pairPtr()}},
	}
}

var lookupCases = []lookupWant{
	{name: "ExactName", sni: "www.example.com", want: lWWW},
	{name: "ExactSecondName", sni: "api.example.com", want: lWWW},
	{name: "ExactNameUppercaseSNI", sni: "WWW.Example.COM", want: lWWW},
	{name: "UppercaseNameInCertificate", sni: "mixed.example.net", want: lMixed},
	{name: "UppercaseNameInCertificateAndSNI", sni: "MIXED.EXAMPLE.NET", want: lMixed},
	{name: "CommonNameOnly", sni: "cn-only.example.org", want: lCNOnly},
	{name: "CommonNameUppercaseSNI", sni: "CN-Only.Example.ORG", want: lCNOnly},
	{name: "WildcardOneLabel", sni: "a.example.com", want: lWild},
	{name: "WildcardUppercaseSNI", sni: "FOO.Example.Com", want: lWild},
	{name: "WildcardNotTwoLabels", sni: "a.b.example.com", want: lDefault},
	{name: "WildcardNotApex", sni: "example.com", want: lDefault},
	{name: "WildcardDeeperParent", sni: "x.deep.example.net", want: lDeep},
	{name: "WildcardDeeperParentNotTwoLabels", sni: "x.y.deep.example.net", want: lDefault},
	{name: "WildcardDeeperParentNotApex", sni: "deep.example.net", want: lDefault},
	{name: "IPv4", sni: "192.0.2.10", want: lIP},
	{name: "IPv6", sni: "2001:db8::10", want: lIP},
	{name: "IPv6Uppercase", sni: "2001:DB8::10", want: lIP},
	{name: "IPv6Expanded", sni: "2001:0db8:0000:0000:0000:0000:0000:0010", want: lIP},
	{name: "IPv4MappedIPv6", sni: "::ffff:192.0.2.10", want: lIP},
	{name: "IPv4Miss", sni: "192.0.2.11", want: lDefault},
	{name: "IPv6Miss", sni: "2001:db8::11", want: lDefault},
	{name: "FirstInConfigExact", sni: "dup.example.org", want: lDup1},
	{name: "FirstInConfigWildcard", sni: "x.tie.example.org", want: lDup1},
	{name: "LaterCertificateOwnName", sni: "second.example.org", want: lDup2},
	{name: "EmptySNI", sni: "", want: lDefault},
	{name: "SingleLabel", sni: "localhost", want: lDefault},
	{name: "Miss", sni: miss, want: lDefault},
	{name: "SuffixOfNameIsNoMatch", sni: "www.example.com.evil.test", want: lDefault},
	{name: "PrefixOfNameIsNoMatch", sni: "ww.example.co", want: lDefault},

	// Lowercasing is strings.ToLower's, for the SNI and certificate names.

	{name: "UnicodeLowercaseSNI", sni: "éxample.test", want: lUnicode},
	{name: "UnicodeCapitalOnlyNonASCII", sni: "Éxample.test", want: lUnicode},
	{name: "UnicodeCapitalsMixed", sni: "ÉxAmple.test", want: lUnicode},
	{name: "UnicodeCapitalsMixed", sni: "éXAMPLE.test", want: lUnicode},
	{name: "UnicodeUppercaseSNI", sni: "ÉXAMPLE.TEST", want: lUnicode},
	{name: "UnicodeNoAccentFolding", sni: "example.test", want: lDefault},
	{name: "KelvinSignInCertificate", sni: "kelvin.test", want: lKelvin},
	{name: "KelvinSignInCertificate", sni: "KELVIN.TEST", want: lKelvin},
	{name: "KelvinSignInSNI", sni: "\u212Aelvin.example.test", want: lKelvin},
	{name: "KelvinSignInSNI", sni: "\u212AELVIN.Example.Test", want: lKelvin},
	{name: "KelvinSignInBoth", sni: "\u212Aelvin.test", want: lKelvin},
	{name: "UnicodeWildcard", sni: "a.über.test", want: lUnicodeWild},
	{name: "UnicodeWildcardCapitalOnlyNonASCII", sni: "a.Über.test", want: lUnicodeWild},
	{name: "UnicodeWildcardCapitalsMixed", sni: "A.ÜBER.test", want: lUnicodeWild},
	{name: "UnicodeWildcardNotTwoLabels", sni: "a.b.Über.test", want: lDefault},
	{name: "NonASCIILabelUnderWildcard", sni: "Ü.example.com", want: lWild},
	{name: "KelvinSignLabelUnderWildcard", sni: "\u212A.Example.com", want: lWild},
}

func (su *suite) testLookup(t rt) {
	s := su.newStore(t)
	cfg := su.lookupConfig()
	orig := deepCopy(cfg)
	su.mustUpdate(t, s, cfg)
	g := su.current(t, s)
	cases := make([]lookupWant, len(lookupCases))
	for i, c := range lookupCases {
		c.store = storeDefault
		cases[i] = c
	}
	su.runTable(t, s, g, cfg, cases)

	t.Run("ChainAndKey", func(t rt) {
		probes := map[string]string{lDefault: miss}
		for _, e := range cfg.Certificates {
			fc := su.fx.pems[string(e.CertPEM)]
			for _, n := range fc.names {
				if n[0] == '*' {
					n = "x" + n[1:]
				}
				if l, _ := su.expected(cfg, storeDefault, n); l == fc.label {
					probes[fc.label] = n
					break
				}
			}
			if _, ok := probes[fc.label]; !ok {
				t.Fatalf("conformance suite bug: no name serves %s", fc.label)
			}
		}
		for label, sni := range probes {
			want := su.fx.certs[label]
			for _, v := range vias(s, g) {
				c, err := su.lookup(t, v.l, storeDefault, sni)
				if err != nil || !bytes.Equal(leafOf(c), want.leaf) {
					t.Errorf("%s(%q, %q) = %s, error %v; want %s", v.name, storeDefault, sni, su.fx.describeLeaf(leafOf(c)), err, label)
					continue
				}
				if len(c.Certificate) != len(want.chain) {
					t.Errorf("%s(%q, %q): served a chain of %d certificates; the configuration has %d", v.name, storeDefault, sni, len(c.Certificate), len(want.chain))
				} else {
					for i := range want.chain {
						if !bytes.Equal(c.Certificate[i], want.chain[i]) {
							t.Errorf("%s(%q, %q): certificate %d of the served chain differs from the configured one", v.name, storeDefault, sni, i)
						}
					}
				}
				if err := usable(c); err != nil {
					t.Errorf("%s(%q, %q): %v", v.name, storeDefault, sni, err)
				}
			}
		}
	})

	t.Run("ConfigurationUnmodified", func(t rt) {
		if diff := compareConfigs(orig, cfg); diff != "" {
			t.Errorf("the store modified the Config it was given: %s", diff)
		}
	})
}

// deepCopy copies cfg and every byte slice in it.
func deepCopy(cfg *certstore.Config) *certstore.Config {
	cp := func(p certstore.KeyPair) certstore.KeyPair {
		return certstore.KeyPair{CertPEM: bytes.Clone(p.CertPEM), KeyPEM: bytes.Clone(p.KeyPEM)}
	}
	out := &certstore.Config{Stores: map[string]certstore.StoreConfig{}}
	for _, c := range cfg.Certificates {
		out.Certificates = append(out.Certificates, certstore.Certificate{KeyPair: cp(c.KeyPair), Stores: slices.Clone(c.Stores)})
	}
	for name, sc := range cfg.Stores {
		if sc.DefaultCertificate != nil {
			p := cp(*sc.DefaultCertificate)
			sc.DefaultCertificate = &p
		}
		out.Stores[name] = sc
	}
	return out
}

// compareConfigs describes the first difference between two configurations.
func compareConfigs(want, got *certstore.Config) string {
	samePair := func(a, b *certstore.KeyPair) bool {
		return bytes.Equal(a.CertPEM, b.CertPEM) && bytes.Equal(a.KeyPEM, b.KeyPEM)
	}
	if len(want.Certificates) != len(got.Certificates) {
		return fmt.Sprintf("%d certificates, was %d", len(got.Certificates), len(want.Certificates))
	}
	for i := range want.Certificates {
		w, g := &want.Certificates[i], &got.Certificates[i]
		if !samePair(&w.KeyPair, &g.KeyPair) || !slices.Equal(w.Stores, g.Stores) {
			return fmt.Sprintf("certificate %d changed", i)
		}
	}
	if len(want.Stores) != len(got.Stores) {
		return fmt.Sprintf("%d stores, was %d", len(got.Stores), len(want.Stores))
	}
	for name, w := range want.Stores {
		g, ok := got.Stores[name]
		switch {
		case !ok:
			return fmt.Sprintf("store %q removed", name)
		case (w.DefaultCertificate == nil) != (g.DefaultCertificate == nil),
			w.DefaultCertificate != nil && !samePair(w.DefaultCertificate, g.DefaultCertificate):
			return fmt.Sprintf("default certificate of store %q changed", name)
		}
	}
	return ""
}

// storesConfig has a certificate in two stores, store-only certificates,
// the same name in two stores, and declared stores without certificates.
func (su *suite) storesConfig() *certstore.Config {
	c := su.fx.certs
	return &certstore.Config{
		Certificates: []certstore.Certificate{
			c[lShared].entry(storeDefault, storeShop),
			c[lShopOnly].entry(storeShop),
			c[lHome].entry(),
			c[lExplicit].entry(storeDefault),
			c[lSameDefault].entry(storeDefault),
			c[lSameShop].entry(storeShop),
		},
		Stores: map[string]certstore.StoreConfig{
			storeDefault: {DefaultCertificate: c[lDefault].pairPtr()},
			storeShop:    {DefaultCertificate: c[lDefaultShop].pairPtr()},
			"empty":      {},
			"emptydef":   {DefaultCertificate: c[lDefaultEmpty].pairPtr()},
		},
	}
}

var storesCases = []lookupWant{
	{name: "SharedInDefault", store: storeDefault, sni: "shared.example.com", want: lShared},
	{name: "SharedInShop", store: storeShop, sni: "shared.example.com", want: lShared},
	{name: "StoreOnlyInItsStore", store: storeShop, sni: "shop.example.com", want: lShopOnly},
	{name: "StoreOnlyNotInDefault", store: storeDefault, sni: "shop.example.com", want: lDefault},
	{name: "NoStoresMeansDefault", store: storeDefault, sni: "home.example.com", want: lHome},
	{name: "NoStoresNotInOtherStores", store: storeShop, sni: "home.example.com", want: lDefaultShop},
	{name: "ExplicitDefaultStore", store: storeDefault, sni: "explicit.example.com", want: lExplicit},
	{name: "ExplicitDefaultStoreNotInOtherStores", store: storeShop, sni: "explicit.example.com", want: lDefaultShop},
	{name: "SameNameInTwoStores", store: storeDefault, sni: "same.example.com", want: lSameDefault},
	{name: "SameNameInTwoStores", store: storeShop, sni: "same.example.com", want: lSameShop},
	{name: "ConfiguredDefaultPerStore", store: storeDefault, sni: miss, want: lDefault},
	{name: "ConfiguredDefaultPerStore", store: storeShop, sni: miss, want: lDefaultShop},
	{name: "ConfiguredDefaultPerStore", store: storeShop, sni: "", want: lDefaultShop},
	{name: "DeclaredStoreWithDefaultOnly", store: "emptydef", sni: "shared.example.com", want: lDefaultEmpty},
	{name: "DeclaredStoreWithDefaultOnly", store: "emptydef", sni: "", want: lDefaultEmpty},
	{name: "DeclaredStoreWithNothing", store: "empty", sni: "shared.example.com", want: generated},
	{name: "DeclaredStoreWithNothing", store: "empty", sni: miss, want: generated},
	{name: "DeclaredStoreWithNothing", store: "empty", sni: "", want: generated},
	{name: "UnknownStore", store: "nope", sni: "shared.example.com", err: certstore.ErrUnknownStore},
	{name: "UnknownStore", store: "nope", sni: "", err: certstore.ErrUnknownStore},
	{name: "UnknownStore", store: "", sni: "shared.example.com", err: certstore.ErrUnknownStore},
}

func (su *suite) testStores(t rt) {
	s := su.newStore(t)
	cfg := su.storesConfig()
	su.mustUpdate(t, s, cfg)
	su.runTable(t, s, su.current(t, s), cfg, storesCases)
}

func (su *suite) testGeneratedDefault(t rt) {
	s := su.newStore(t)
	c := su.fx.certs
	cfg := &certstore.Config{Certificates: []certstore.Certificate{c[lGood1].entry(), c[lGood2].entry()}}
	su.mustUpdate(t, s, cfg)
	su.checkTable(t, s, su.current(t, s), cfg, []lookupWant{
		{name: "miss", store: storeDefault, sni: miss, want: generated},
		{name: "empty SNI", store: storeDefault, sni: "", want: generated},
		{name: "wildcard two labels", store: storeDefault, sni: "a.b.good.example.com", want: generated},
		{name: "other miss", store: storeDefault, sni: "other.example.invalid", want: generated},
		{name: "hit", store: storeDefault, sni: "good1.example.com", want: lGood1},
		{name: "wildcard hit", store: storeDefault, sni: "a.good.example.com", want: lGood2},
	})
}

func (su *suite) testReplace(t rt) {
	s := su.newStore(t)
	c := su.fx.certs
	a := &certstore.Config{
		Certificates: []certstore.Certificate{
			c[lShared].entry(storeDefault, storeShop), c[lShopOnly].entry(storeShop), c[lHome].entry(),
		},
		Stores: map[string]certstore.StoreConfig{
			storeDefault: {DefaultCertificate: c[lDefault].pairPtr()},
			storeShop:    {DefaultCertificate: c[lDefaultShop].pairPtr()},
		},
	}
	b := &certstore.Config{
		Certificates: []certstore.Certificate{c[lB1].entry()},
		Stores:       map[string]certstore.StoreConfig{storeDefault: {DefaultCertificate: c[lDefaultB].pairPtr()}},
	}
	su.mustUpdate(t, s, a)
	ga := su.current(t, s)
	su.mustUpdate(t, s, b)
	gb := su.current(t, s)
	su.runTable(t, s, gb, b, []lookupWant{
		{name: "CertificatesGone", store: storeDefault, sni: "home.example.com", want: lDefaultB},
		{name: "CertificatesGone", store: storeDefault, sni: "shared.example.com", want: lDefaultB},
		{name: "NewCertificatesServed", store: storeDefault, sni: "b1.example.com", want: lB1},
		{name: "DefaultReplaced", store: storeDefault, sni: miss, want: lDefaultB},
		{name: "StoresGone", store: storeShop, sni: "shared.example.com", err: certstore.ErrUnknownStore},
	})
	t.Run("HeldGenerationUnchanged", func(t rt) {
		for _, w := range []lookupWant{
			{name: "held", store: storeDefault, sni: "home.example.com", want: lHome},
			{name: "held", store: storeDefault, sni: "b1.example.com", want: lDefault},
			{name: "held", store: storeShop, sni: "shop.example.com", want: lShopOnly},
			{name: "held", store: storeShop, sni: miss, want: lDefaultShop},
		} {
			su.checkOne(t, via{"Generation.Certificate (held across an Update)", ga}, w)
		}
	})
	t.Run("SwitchBack", func(t rt) {
		su.mustUpdate(t, s, a)
		su.checkTable(t, s, su.current(t, s), a, []lookupWant{
			{name: "back", store: storeShop, sni: "shop.example.com", want: lShopOnly},
			{name: "back", store: storeDefault, sni: "b1.example.com", want: lDefault},
		})
	})
}

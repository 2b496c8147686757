package conformance

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/certbench/certbench/certstore"
)

// rejectCase is a bad configuration. The error must be a
// *certstore.CertificateError with that Index (and, for -1, that Store).
type rejectCase struct {
	name  string
	cfg   func(su *suite) *certstore.Config
	index int
	store string
}

// goodConfig is the configuration a store holds before each bad one.
func (su *suite) goodConfig() *certstore.Config {
	c := su.fx.certs
	return &certstore.Config{
		Certificates: []certstore.Certificate{
			c[lGood1].entry(), c[lGood2].entry(storeDefault, storeShop), c[lGood3].entry(),
		},
		Stores: map[string]certstore.StoreConfig{
			storeDefault: {DefaultCertificate: c[lDefault].pairPtr()},
			storeShop:    {DefaultCertificate: c[lDefaultShop].pairPtr()},
		},
	}
}

// badConfig differs from goodConfig everywhere a partial application would
// show, with bad (if any) as certificate 2 and the given defaults.
func (su *suite) badConfig(bad *certstore.Certificate, defDefault, defShop *certstore.KeyPair) *certstore.Config {
	c := su.fx.certs
	if defDefault == nil {
		defDefault = c[lDefaultAlt].pairPtr()
	}
	if defShop == nil {
		defShop = c[lDefaultShop2].pairPtr()
	}
	certs := []certstore.Certificate{c[lAfter].entry(), c[lGood1].entry(storeShop)}
	if bad != nil {
		certs = append(certs, *bad)
	}
	certs = append(certs, c[lGood2].entry(storeShop))
	return &certstore.Config{
		Certificates: certs,
		Stores: map[string]certstore.StoreConfig{
			storeDefault: {DefaultCertificate: defDefault},
			storeShop:    {DefaultCertificate: defShop},
		},
	}
}

// withBad is a rejectCase config whose certificate 2 is pair.
func withBad(pair func(su *suite) certstore.KeyPair, stores ...string) func(su *suite) *certstore.Config {
	return func(su *suite) *certstore.Config {
		return su.badConfig(&certstore.Certificate{KeyPair: pair(su), Stores: stores}, nil, nil)
	}
}

func pairOf(certPEM, keyPEM func(su *suite) []byte) func(su *suite) certstore.KeyPair {
	return func(su *suite) certstore.KeyPair {
		return certstore.KeyPair{CertPEM: certPEM(su), KeyPEM: keyPEM(su)}
	}
}

func fixed(b string) func(*suite) []byte { return func(*suite) []byte { return []byte(b) } }
func certOf(label string) func(*suite) []byte {
	return func(su *suite) []byte { return su.fx.certs[label].pair.CertPEM }
}
func keyOf(label string) func(*suite) []byte {
	return func(su *suite) []byte { return su.fx.certs[label].pair.KeyPEM }
}
func half(f func(*suite) []byte) func(*suite) []byte {
	return func(su *suite) []byte { b := f(su); return b[:len(b)/2] }
}
func garbage(*suite) []byte     { return loadBlobs().raw }
func garbagePEM(*suite) []byte  { return loadBlobs().pem }
func pemNoise(su *suite) []byte { return su.fx.pemNoise }
func keyNoise(su *suite) []byte {
	return bytes.Replace(su.fx.pemNoise, []byte("CERTIFICATE"), []byte("PRIVATE KEY"), 2)
}
func none(*suite) []byte { return nil }

const badBase64PEM = "-----BEGIN CERTIFICATE-----\n!!!! not base64 !!!!\n-----END CERTIFICATE-----\n"

var rejectCases = []rejectCase{
	{name: "CertNotPEM", cfg: withBad(pairOf(fixed("this is not PEM"), keyOf(lGood3))), index: 2},
	{name: "CertPEMBadBase64", cfg: withBad(pairOf(fixed(badBase64PEM), keyOf(lGood3))), index: 2},
	{name: "CertPEMTruncated", cfg: withBad(pairOf(half(certOf(lGood3)), keyOf(lGood3))), index: 2},
	{name: "CertDERGarbage", cfg: withBad(pairOf(pemNoise, keyOf(lGood3))), index: 2},
	{name: "CertPEMHoldsKey", cfg: withBad(pairOf(keyOf(lGood3), keyOf(lGood3))), index: 2},
	{name: "EmptyCert", cfg: withBad(pairOf(none, keyOf(lGood3))), index: 2},
	{name: "EmptyKey", cfg: withBad(pairOf(certOf(lGood3), none)), index: 2},
	{name: "EmptyCertAndKey", cfg: withBad(pairOf(none, none)), index: 2},
	{name: "KeyNotPEM", cfg: withBad(pairOf(certOf(lGood3), fixed("this is not PEM"))), index: 2},
	{name: "KeyPEMTruncated", cfg: withBad(pairOf(certOf(lGood3), half(keyOf(lGood3)))), index: 2},
	{name: "KeyDERGarbage", cfg: withBad(pairOf(certOf(lGood3), keyNoise)), index: 2},
	{name: "KeyNotMatchingCert", cfg: withBad(pairOf(certOf(lMismatch), keyOf(lMismatch))), index: 2},
	{name: "KeyOfAnotherCert", cfg: withBad(pairOf(certOf(lGood3), keyOf(lGood1))), index: 2},
	{name: "NoNames", cfg: withBad(pairOf(certOf(lNoNames), keyOf(lNoNames))), index: 2},
	{name: "UndeclaredStore", cfg: withBad(pairOf(certOf(lGood3), keyOf(lGood3)), storeShop, "nowhere"), index: 2},
	{name: "EmptyStoreName", cfg: withBad(pairOf(certOf(lGood3), keyOf(lGood3)), ""), index: 2},
	{name: "HugeGarbageCert", cfg: withBad(pairOf(garbage, keyOf(lGood3))), index: 2},
	{name: "HugeGarbageKey", cfg: withBad(pairOf(certOf(lGood3), garbage)), index: 2},
	{name: "HugeGarbageCertAndKey", cfg: withBad(pairOf(garbage, garbage)), index: 2},
	{name: "HugeGarbagePEMCert", cfg: withBad(pairOf(garbagePEM, keyOf(lGood3))), index: 2},
	{name: "BadDefaultCertNotPEM", index: -1, store: storeShop, cfg: func(su *suite) *certstore.Config {
		return su.badConfig(nil, nil, &certstore.KeyPair{CertPEM: []byte("this is not PEM"), KeyPEM: su.fx.certs[lGood3].pair.KeyPEM})
	}},
	{name: "BadDefaultKeyNotMatchingCert", index: -1, store: storeDefault, cfg: func(su *suite) *certstore.Config {
		return su.badConfig(nil, su.fx.certs[lMismatch].pairPtr(), nil)
	}},
	{name: "BadDefaultEmpty", index: -1, store: storeDefault, cfg: func(su *suite) *certstore.Config {
		return su.badConfig(nil, &certstore.KeyPair{}, nil)
	}},
	{name: "BadDefaultHugeGarbage", index: -1, store: storeShop, cfg: func(su *suite) *certstore.Config {
		return su.badConfig(nil, nil, &certstore.KeyPair{CertPEM: garbage(su), KeyPEM: garbage(su)})
	}},
}

// snapshotProbes are the lookups compared around a rejected update.
var snapshotProbes = func() [][2]string {
	var ps [][2]string
	for _, st := range []string{storeDefault, storeShop, "nowhere"} {
		for _, sni := range []string{
			"good1.example.com", "good2.example.com", "a.good.example.com", "good3.example.com",
			"after.example.com", "mismatch.example.com", miss, "",
		} {
			ps = append(ps, [2]string{st, sni})
		}
	}
	return ps
}()

// snapshot records what l serves for every snapshot probe.
func (su *suite) snapshot(t rt, l certstore.Lookup) []string {
	t.Helper()
	out := make([]string, len(snapshotProbes))
	for i, p := range snapshotProbes {
		c, err := su.lookup(t, l, p[0], p[1])
		switch {
		case errors.Is(err, certstore.ErrUnknownStore):
			out[i] = "error certstore.ErrUnknownStore"
		case errors.Is(err, certstore.ErrNoCertificate):
			out[i] = "error certstore.ErrNoCertificate"
		case err != nil:
			out[i] = "error: " + errText(err)
		default:
			out[i] = su.fx.describeLeaf(leafOf(c))
		}
	}
	return out
}

func (su *suite) compareSnapshot(t rt, what string, before, after []string) {
	t.Helper()
	n := 0
	for i := range before {
		if before[i] != after[i] {
			if n++; n <= 4 {
				t.Errorf("after the rejected Update, %s(%q, %q) = %s; before it: %s", what, snapshotProbes[i][0], snapshotProbes[i][1], after[i], before[i])
			}
		}
	}
	if n > 4 {
		t.Errorf("after the rejected Update, %s changed the results of %d more of the %d lookups checked", what, n-4, len(before))
	}
}

func (su *suite) testReject(t rt) {
	for _, rc := range rejectCases {
		t.Run(rc.name, func(t rt) {
			s := su.newStore(t)
			good := su.goodConfig()
			su.mustUpdate(t, s, good)
			held := su.current(t, s)
			before := su.snapshot(t, s)
			if g := su.snapshot(t, held); fmt.Sprint(g) != fmt.Sprint(before) {
				t.Fatalf("Store.Certificate and Current().Certificate disagree before the rejected update")
			}

			bad := rc.cfg(su)
			var err error
			if pe := protect("Update of a bad configuration ("+rc.name+")", func() { err = s.Update(bad) }); pe != nil {
				t.Fatalf("%v", pe)
			}
			if err == nil {
				t.Fatalf("Update accepted a bad configuration (%s); want an error", rc.name)
			}
			var ce *certstore.CertificateError
			switch {
			case !errors.As(err, &ce):
				t.Errorf("Update error %q (%T) is not a *certstore.CertificateError", errText(err), err)
			case ce.Index != rc.index:
				t.Errorf("CertificateError.Index = %d; want %d (error: %s)", ce.Index, rc.index, errText(err))
			case rc.index == -1 && ce.Store != rc.store:
				t.Errorf("CertificateError.Store = %q; want %q (error: %s)", ce.Store, rc.store, errText(err))
			}

			su.compareSnapshot(t, "Store.Certificate", before, su.snapshot(t, s))
			su.compareSnapshot(t, "Current().Certificate", before, su.snapshot(t, su.current(t, s)))
			su.compareSnapshot(t, "Certificate on the generation held before the rejected Update", before, su.snapshot(t, held))

			// The store still takes the next good configuration.
			next := su.badConfig(nil, nil, nil)
			su.mustUpdate(t, s, next)
			su.checkTable(t, s, su.current(t, s), next, []lookupWant{
				{name: "good update after a rejected one", store: storeDefault, sni: "after.example.com", want: lAfter},
				{name: "good update after a rejected one", store: storeShop, sni: "good1.example.com", want: lGood1},
				{name: "good update after a rejected one", store: storeDefault, sni: miss, want: lDefaultAlt},
			})
		})
	}
}

// acceptStep applies cfg and checks lookups.
type acceptStep struct {
	cfg    *certstore.Config
	checks []lookupWant
}

// acceptCase is an Accept rule.
type acceptCase struct {
	name  string
	steps []acceptStep
}

// acceptCases are the Accept rules: unusual but valid configurations.
func (su *suite) acceptCases() []acceptCase {
	c := su.fx.certs
	one := func(label string) *certstore.Config {
		return &certstore.Config{
			Certificates: []certstore.Certificate{c[label].entry()},
			Stores:       map[string]certstore.StoreConfig{storeDefault: {DefaultCertificate: c[lDefault].pairPtr()}},
		}
	}
	hit := func(label string) []lookupWant {
		n := c[label].names[0]
		return []lookupWant{
			{name: "served", store: storeDefault, sni: n, want: label},
			{name: "miss", store: storeDefault, sni: miss, want: lDefault},
		}
	}
	withDefault := map[string]certstore.StoreConfig{storeDefault: {DefaultCertificate: c[lDefault].pairPtr()}}
	return []acceptCase{
		{"ExpiredCertificate", []acceptStep{{one(lExpired), hit(lExpired)}}},
		{"NotYetValidCertificate", []acceptStep{{one(lNotYet), hit(lNotYet)}}},
		{"RSAKey", []acceptStep{{one(lRSA), hit(lRSA)}}},
		{"RSAKeyPKCS1", []acceptStep{{one(lPKCS1), hit(lPKCS1)}}},
		{"ECDSAKeySEC1", []acceptStep{{one(lSEC1), hit(lSEC1)}}},
		{"Ed25519Key", []acceptStep{{one(lEd25519), hit(lEd25519)}}},
		{"LeafOnlyChain", []acceptStep{{one(lLeafOnly), hit(lLeafOnly)}}},
		{"DuplicateNamesFirstWins", []acceptStep{
			{&certstore.Config{Certificates: []certstore.Certificate{c[lDup1].entry(), c[lDup2].entry()}, Stores: withDefault}, []lookupWant{
				{name: "first", store: storeDefault, sni: "dup.example.org", want: lDup1},
				{name: "first", store: storeDefault, sni: "a.tie.example.org", want: lDup1},
				{name: "own name", store: storeDefault, sni: "second.example.org", want: lDup2},
			}},
			{&certstore.Config{Certificates: []certstore.Certificate{c[lDup2].entry(), c[lDup1].entry()}, Stores: withDefault}, []lookupWant{
				{name: "order swapped", store: storeDefault, sni: "dup.example.org", want: lDup2},
				{name: "order swapped", store: storeDefault, sni: "a.tie.example.org", want: lDup2},
			}},
		}},
		{"SameCertificateTwice", []acceptStep{
			{&certstore.Config{Certificates: []certstore.Certificate{c[lGood1].entry(), c[lGood1].entry(), c[lGood2].entry()}, Stores: withDefault}, []lookupWant{
				{name: "served", store: storeDefault, sni: "good1.example.com", want: lGood1},
				{name: "served", store: storeDefault, sni: "good2.example.com", want: lGood2},
			}},
		}},
		{"CertificateInSeveralStores", []acceptStep{
			{&certstore.Config{
				Certificates: []certstore.Certificate{c[lGood2].entry(storeDefault, storeShop, "edge"), c[lGood1].entry(storeShop)},
				Stores: map[string]certstore.StoreConfig{
					storeDefault: {DefaultCertificate: c[lDefault].pairPtr()},
					storeShop:    {DefaultCertificate: c[lDefaultShop].pairPtr()},
					"edge":       {DefaultCertificate: c[lDefaultAlt].pairPtr()},
					"unused":     {DefaultCertificate: c[lDefaultEmpty].pairPtr()},
				},
			}, []lookupWant{
				{name: "default", store: storeDefault, sni: "good2.example.com", want: lGood2},
				{name: "shop", store: storeShop, sni: "a.good.example.com", want: lGood2},
				{name: "edge", store: "edge", sni: "good2.example.com", want: lGood2},
				{name: "not in a store it does not name", store: "unused", sni: "good2.example.com", want: lDefaultEmpty},
				{name: "shop-only certificate", store: storeShop, sni: "good1.example.com", want: lGood1},
				{name: "shop-only certificate not in edge", store: "edge", sni: "good1.example.com", want: lDefaultAlt},
			}},
		}},
		{"EmptyConfiguration", []acceptStep{
			{&certstore.Config{}, []lookupWant{
				{name: "miss", store: storeDefault, sni: miss, want: generated},
				{name: "empty SNI", store: storeDefault, sni: "", want: generated},
				{name: "unknown store", store: storeShop, sni: miss, err: certstore.ErrUnknownStore},
			}},
		}},
		{"EmptyConfigurationWithDefault", []acceptStep{
			{&certstore.Config{Stores: withDefault}, []lookupWant{
				{name: "miss", store: storeDefault, sni: miss, want: lDefault},
				{name: "empty SNI", store: storeDefault, sni: "", want: lDefault},
			}},
		}},
		{"EmptyAfterFull", []acceptStep{
			{su.goodConfig(), []lookupWant{{name: "full", store: storeDefault, sni: "good1.example.com", want: lGood1}}},
			{&certstore.Config{Stores: map[string]certstore.StoreConfig{storeDefault: {DefaultCertificate: c[lDefaultAlt].pairPtr()}}}, []lookupWant{
				{name: "emptied", store: storeDefault, sni: "good1.example.com", want: lDefaultAlt},
				{name: "emptied", store: storeShop, sni: "good2.example.com", err: certstore.ErrUnknownStore},
			}},
		}},
	}
}

func (su *suite) testAccept(t rt) {
	for _, tc := range su.acceptCases() {
		t.Run(tc.name, func(t rt) {
			s := su.newStore(t)
			for i, st := range tc.steps {
				if err := su.update(t, s, st.cfg); err != nil {
					t.Fatalf("step %d: Update rejected a valid configuration: %v", i+1, err)
				}
				su.checkTable(t, s, su.current(t, s), st.cfg, st.checks)
			}
		})
	}
}

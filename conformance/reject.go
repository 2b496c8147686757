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
	cfg   *certstore.Config
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

// rejectCases are the Reject rules; all but the bad defaults have the bad
// certificate at index 2.
func (su *suite) rejectCases() []rejectCase {
	c := su.fx.certs
	cert3, key3 := c[lGood3].pair.CertPEM, c[lGood3].pair.KeyPEM
	notPEM, badBase64 := []byte("this is not PEM"), []byte("-----BEGIN CERTIFICATE-----\n!!!! not base64 !!!!\n-----END CERTIFICATE-----\n")
	keyNoise := bytes.Replace(su.fx.pemNoise, []byte("CERTIFICATE"), []byte("PRIVATE KEY"), 2)
	garbage, garbagePEM := loadBlobs().raw, loadBlobs().pem
	bad := func(name string, cert, key []byte, stores ...string) rejectCase {
		kp := certstore.KeyPair{CertPEM: cert, KeyPEM: key}
		return rejectCase{name: name, cfg: su.badConfig(&certstore.Certificate{KeyPair: kp, Stores: stores}, nil, nil), index: 2}
	}
	badDefault := func(name, store string, def *certstore.KeyPair) rejectCase {
		cfg := su.badConfig(nil, def, nil)
		if store == storeShop {
			cfg = su.badConfig(nil, nil, def)
		}
		return rejectCase{name: name, cfg: cfg, index: -1, store: store}
	}
	return []rejectCase{
		bad("CertNotPEM", notPEM, key3),
		bad("CertPEMBadBase64", badBase64, key3),
		bad("CertPEMTruncated", cert3[:len(cert3)/2], key3),
		bad("CertDERGarbage", su.fx.pemNoise, key3),
		bad("CertPEMHoldsKey", key3, key3),
		bad("EmptyCert", nil, key3),
		bad("EmptyKey", cert3, nil),
		bad("EmptyCertAndKey", nil, nil),
		bad("KeyNotPEM", cert3, notPEM),
		bad("KeyPEMTruncated", cert3, key3[:len(key3)/2]),
		bad("KeyDERGarbage", cert3, keyNoise),
		bad("KeyNotMatchingCert", c[lMismatch].pair.CertPEM, c[lMismatch].pair.KeyPEM),
		bad("KeyOfAnotherCert", cert3, c[lGood1].pair.KeyPEM),
		bad("NoNames", c[lNoNames].pair.CertPEM, c[lNoNames].pair.KeyPEM),
		bad("UndeclaredStore", cert3, key3, storeShop, "nowhere"),
		bad("EmptyStoreName", cert3, key3, ""),
		bad("HugeGarbageCert", garbage, key3),
		bad("HugeGarbageKey", cert3, garbage),
		bad("HugeGarbageCertAndKey", garbage, garbage),
		bad("HugeGarbagePEMCert", garbagePEM, key3),
		badDefault("BadDefaultCertNotPEM", storeShop, &certstore.KeyPair{CertPEM: notPEM, KeyPEM: key3}),
		badDefault("BadDefaultKeyNotMatchingCert", storeDefault, c[lMismatch].pairPtr()),
		badDefault("BadDefaultEmpty", storeDefault, &certstore.KeyPair{}),
		badDefault("BadDefaultHugeGarbage", storeShop, &certstore.KeyPair{CertPEM: garbage, KeyPEM: garbage}),
	}
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
	for _, rc := range su.rejectCases() {
		t.Run(rc.name, func(t rt) {
			s := su.newStore(t)
			good := su.goodConfig()
			su.mustUpdate(t, s, good)
			held := su.current(t, s)
			before := su.snapshot(t, s)
			if g := su.snapshot(t, held); fmt.Sprint(g) != fmt.Sprint(before) {
				t.Fatalf("Store.Certificate and Current().Certificate disagree before the rejected update")
			}

			var err error
			if pe := protect("Update of a bad configuration ("+rc.name+")", func() { err = s.Update(rc.cfg) }); pe != nil {
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

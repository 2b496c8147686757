package conformance

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/certbench/certbench/certstore"
)

// Run runs the conformance suite against stores made by newStore (a new,
// empty one per call), each rule in a subtest (see the package doc).
func Run(t *testing.T, newStore certstore.Factory) {
	t.Helper()
	RunWith(t, newStore, Options{})
}

// RunWith is Run with options; zero fields of opts.Differential come from
// the -conformance.diff.* test flags.
func RunWith(t *testing.T, newStore certstore.Factory, opts Options) {
	t.Helper()
	if newStore == nil {
		t.Fatal("conformance: Run needs a non-nil certstore.Factory")
	}
	opts.Differential = opts.Differential.withFlags()
	su, err := newSuite(newStore, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) { r.run(su, testingT{t}) })
	}
}

// Options configure [RunWith] and [Check].
type Options struct {
	// Store is the store's registered name: its [Declare]d deviations are known.
	Store        string
	Differential DifferentialOptions
	// Started and Finished, when set, are told of each rule as it starts
	// and ends ([Check] only).
	Started  func(rule string)
	Finished func(RuleResult)

	only string // for tests: run only this top-level rule
}

// rules are the suite's rules, in the order they run.
var rules = []struct {
	name string
	run  func(*suite, rt)
}{
	{"NoConfiguration", (*suite).testNoConfiguration},
	{"Lookup", (*suite).testLookup},
	{"Stores", (*suite).testStores},
	{"GeneratedDefault", (*suite).testGeneratedDefault},
	{"Replace", (*suite).testReplace},
	{"Reject", (*suite).testReject},
	{"Accept", (*suite).testAccept},
	{"Atomicity", (*suite).testAtomicity},
	{"Goroutines", (*suite).testGoroutines},
	{"HeldGenerations", (*suite).testHeldGenerations},
	{"Differential", (*suite).testDifferential},
}

// suite is one run of the suite against one factory.
type suite struct {
	factory certstore.Factory
	fx      *fixtures
	opts    Options
	diff    *DiffReport // the differential pass's report, once it ran
}

// newSuite makes the fixtures and adds the declared deviations to the known.
func newSuite(newStore certstore.Factory, opts Options) (*suite, error) {
	if newStore == nil {
		return nil, errors.New("conformance: a nil certstore.Factory")
	}
	fx, err := loadFixtures()
	if err != nil {
		return nil, fmt.Errorf("conformance: making fixtures: %w", err)
	}
	if opts.Store != "" {
		opts.Differential.Known = append(Declared(opts.Store), opts.Differential.Known...)
	}
	return &suite{factory: newStore, fx: fx, opts: opts}, nil
}

// panicError is a panic recovered from a call into the store.
type panicError struct {
	op    string
	value any
	stack []byte
}

func (p *panicError) Error() string {
	return fmt.Sprintf("store panicked in %s: %v\n%s", p.op, p.value, p.stack)
}

// protect calls f and returns the panic it raised, if any.
func protect(op string, f func()) (pe *panicError) {
	defer func() {
		if v := recover(); v != nil {
			pe = &panicError{op: op, value: v, stack: debug.Stack()}
		}
	}()
	f()
	return nil
}

// newStore makes a store and arranges for it to be closed when t ends.
func (su *suite) newStore(t rt) certstore.Store {
	t.Helper()
	s := su.openStore(t)
	if c, ok := s.(certstore.Closer); ok {
		t.Cleanup(func() { closeStore(t, c) })
	}
	return s
}

// openStore makes a store the caller closes, failing t if the factory fails.
func (su *suite) openStore(t rt) certstore.Store {
	t.Helper()
	s, _, err := open(su.factory)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return s
}

// closeStore closes c, failing t and returning false if Close fails.
func closeStore(t rt, c certstore.Closer) bool {
	t.Helper()
	var err error
	if pe := protect("Close", func() { err = c.Close() }); pe != nil {
		t.Errorf("%v", pe)
		return false
	} else if err != nil {
		t.Errorf("Close: %v", err)
		return false
	}
	return true
}

// update applies cfg, failing t if the store panics.
func (su *suite) update(t rt, s certstore.Store, cfg *certstore.Config) error {
	t.Helper()
	var err error
	if pe := protect("Update", func() { err = s.Update(cfg) }); pe != nil {
		t.Fatalf("%v", pe)
	}
	return err
}

// mustUpdate applies a valid cfg, failing t if the store rejects it.
func (su *suite) mustUpdate(t rt, s certstore.Store, cfg *certstore.Config) {
	t.Helper()
	if err := su.update(t, s, cfg); err != nil {
		t.Fatalf("Update rejected a valid configuration: %v", err)
	}
}

// current returns s.Current(), failing t if it panics or is nil.
func (su *suite) current(t rt, s certstore.Store) certstore.Generation {
	t.Helper()
	var g certstore.Generation
	if pe := protect("Current", func() { g = s.Current() }); pe != nil {
		t.Fatalf("%v", pe)
	}
	if g == nil {
		t.Fatalf("Current returned a nil Generation")
	}
	return g
}

// lookup calls l.Certificate, failing t if it panics.
func (su *suite) lookup(t rt, l certstore.Lookup, store, sni string) (*tls.Certificate, error) {
	t.Helper()
	c, err := lookup(l, store, sni)
	var pe *panicError
	if errors.As(err, &pe) {
		t.Fatalf("%v", pe)
	}
	return c, err
}

// errText is err's message, shortened for failure messages.
func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return clip(err.Error(), 300, "...")
}

// leafOf returns the leaf DER of a served certificate, or nil.
func leafOf(c *tls.Certificate) []byte {
	if c == nil || len(c.Certificate) == 0 {
		return nil
	}
	return c.Certificate[0]
}

// generated is the label of an expectation that the store's own generated
// default certificate is served.
const generated = "(generated default)"

// lookupWant is one expected lookup result.
type lookupWant struct {
	name  string // what the case checks, for messages and subtests
	store string
	sni   string
	want  string // fixture label, or generated; ignored when err is set
	err   error  // a sentinel the lookup must return (errors.Is)
}

// via names the two ways of looking up, for messages.
type via struct {
	name string
	l    certstore.Lookup
}

func vias(s certstore.Store, g certstore.Generation) []via {
	return []via{{"Store.Certificate", s}, {"Current().Certificate", g}}
}

// expected computes what certstore.Match says cfg serves for sni in store.
func (su *suite) expected(cfg *certstore.Config, store, sni string) (label string, err error) {
	if !cfg.HasStore(store) {
		return "", certstore.ErrUnknownStore
	}
	fixture := func(i int) *cert { return su.fx.pems[string(cfg.Certificates[i].CertPEM)] }
	for i := range cfg.Certificates {
		if fixture(i) == nil {
			return "", fmt.Errorf("conformance: suite bug: configuration holds a certificate that is not a fixture")
		}
	}
	if i := matchIndex(cfg.Certificates, store, sni, func(i int) []string { return fixture(i).names }); i >= 0 {
		return fixture(i).label, nil
	}
	def := cfg.Stores[store].DefaultCertificate
	if def == nil {
		return generated, nil
	}
	fc, ok := su.fx.pems[string(def.CertPEM)]
	if !ok {
		return "", fmt.Errorf("conformance: suite bug: configured default of %q is not a fixture", store)
	}
	return fc.label, nil
}

// checkTable checks every case against s and g (which hold cfg) and against
// certstore.Match; a generation's generated default is one per store.
func (su *suite) checkTable(t rt, s certstore.Store, g certstore.Generation, cfg *certstore.Config, cases []lookupWant) {
	t.Helper()
	gen := map[string][]byte{}
	for _, c := range cases {
		if label, err := su.expected(cfg, c.store, c.sni); c.err != nil && !errors.Is(err, c.err) || c.err == nil && (err != nil || label != c.want) {
			t.Errorf("conformance suite bug: case %s expects %s/%v, certstore.Match gives %s/%v", c.name, c.want, c.err, label, err)
		}
		for _, v := range vias(s, g) {
			leaf := su.checkOne(t, v, c)
			if c.err == nil && c.want == generated && leaf != nil {
				if prev, ok := gen[c.store]; ok && !bytes.Equal(prev, leaf) {
					t.Errorf("%s: %s(%q, %q): the generated default differs from the one an earlier lookup in the same generation got", c.name, v.name, c.store, c.sni)
				}
				gen[c.store] = leaf
			}
		}
	}
}

// checkOne checks one lookup and returns the leaf served, if any.
func (su *suite) checkOne(t rt, v via, c lookupWant) []byte {
	t.Helper()
	got, err := su.lookup(t, v.l, c.store, c.sni)
	call := fmt.Sprintf("%s: %s(%q, %q)", c.name, v.name, c.store, c.sni)
	if c.err != nil {
		if !errors.Is(err, c.err) {
			t.Errorf("%s: got %s, error %s; want error %v", call, su.fx.describeLeaf(leafOf(got)), errText(err), c.err)
		}
		return nil
	}
	if err != nil {
		t.Errorf("%s: error %s; want %s", call, errText(err), c.want)
		return nil
	}
	leaf := leafOf(got)
	if leaf == nil {
		t.Errorf("%s: got no certificate (nil or empty chain) and no error; want %s", call, c.want)
		return nil
	}
	if c.want == generated {
		if l, ok := su.fx.byLeaf[string(leaf)]; ok {
			t.Errorf("%s: got configured certificate %s; want the store's generated default", call, l)
		} else if err := usable(got); err != nil {
			t.Errorf("%s: generated default is not usable: %v", call, err)
		}
		return leaf
	}
	if want := su.fx.certs[c.want]; !bytes.Equal(leaf, want.leaf) {
		t.Errorf("%s: got %s; want %s", call, su.fx.describeLeaf(leaf), c.want)
	}
	return leaf
}

// usable reports why c's leaf does not parse or its key does not match.
func usable(c *tls.Certificate) error {
	leaf, err := x509.ParseCertificate(leafOf(c))
	if err != nil {
		return fmt.Errorf("leaf does not parse: %v", err)
	}
	if c.Leaf != nil && !bytes.Equal(c.Leaf.Raw, leaf.Raw) {
		return errors.New("Leaf is set but is not Certificate[0]")
	}
	if c.PrivateKey == nil {
		return errors.New("no private key")
	}
	signer, ok := c.PrivateKey.(crypto.Signer)
	if !ok {
		return fmt.Errorf("private key %T is not a crypto.Signer", c.PrivateKey)
	}
	pub, ok := signer.Public().(interface{ Equal(crypto.PublicKey) bool })
	if !ok || !pub.Equal(leaf.PublicKey) {
		return errors.New("private key does not match the leaf")
	}
	return nil
}

package conformance

import (
	"go/parser"
	"go/token"
	"net/netip"
	"strings"
	"testing"

	"github.com/certbench/certbench/certstore"
)

// diffTestSeed is the seed the tests of the pass use.
const diffTestSeed = 0x7e57

func diffFactory(bug diffBug) certstore.Factory {
	return func() certstore.Store { return newDiffStore(bug) }
}

func TestDifferentialCorrectStoresPass(t *testing.T) {
	for name, f := range map[string]certstore.Factory{
		"diffStore": diffFactory(bugNone),
		"refStore":  func() certstore.Store { return newRefStore() },
	} {
		t.Run(name, func(t *testing.T) {
			r := Differential(f, DifferentialOptions{Seed: diffTestSeed, Iterations: 40})
			t.Log(r.Summary())
			if r.Failure != nil {
				t.Fatalf("a correct store diverges:\n%s", r.Failure.Report())
			}
			if r.Iterations != 40 || r.Lookups < 40*20 {
				t.Errorf("ran %d iterations, %d lookups; want 40 iterations and at least 800 lookups", r.Iterations, r.Lookups)
			}
		})
	}
}

// TestDifferentialFindsBugs shows that the pass finds each bug by itself,
// shrinks it to at most 3 certificates, and prints a Go test case that
// reproduces it (and that a correct store passes).
func TestDifferentialFindsBugs(t *testing.T) {
	for _, tc := range []struct {
		name string
		bug  diffBug
		// about checks that the shrunk case shows the bug.
		about func(d *Divergence) bool
	}{
		{"WildcardTwoLabels", bugWildcardTwo, func(d *Divergence) bool {
			return d.Got.Kind == AnswerCertificate && d.Want.Kind != AnswerCertificate
		}},
		{"FirstDNSNameOnly", bugFirstDNSOnly, func(d *Divergence) bool {
			return d.Want.Kind == AnswerCertificate && len(d.Case.Configs[d.Want.Config].Certs[d.Want.Index].DNSNames) >= 2
		}},
		{"LastOnTie", bugLastOnTie, func(d *Divergence) bool {
			return d.Want.Kind == AnswerCertificate && d.Got.Kind == AnswerCertificate && d.Got.Index > d.Want.Index
		}},
		{"NoIPv6Compression", bugNoV6Compression, func(d *Divergence) bool {
			a, err := netip.ParseAddr(d.Case.SNI)
			return err == nil && a.String() != d.Case.SNI && strings.Contains(d.Case.SNI, ":")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Differential(diffFactory(tc.bug), DifferentialOptions{Seed: diffTestSeed, Iterations: DefaultDiffIterations})
			t.Log(r.Summary())
			d := r.Failure
			if d == nil {
				t.Fatal("the differential pass did not find the bug")
			}
			report := d.Report()
			t.Logf("report:\n%s", report)
			if n := countCerts(&d.Case); n > 3 {
				t.Errorf("shrunk case has %d certificates; want at most 3", n)
			}
			if !d.Shrunk {
				t.Error("the divergence was not shrunk")
			}
			if !tc.about(d) {
				t.Errorf("the shrunk divergence does not show the bug: %s", d.Error())
			}
			for _, w := range []string{"conformance.CheckCase(t, newStore, conformance.Case{", "found by seed 0x7e57", "want: ", "got:  "} {
				if !strings.Contains(report, w) {
					t.Errorf("report does not contain %q", w)
				}
			}
			checkGoSource(t, report)
			if again, err := d.Case.Check(diffFactory(tc.bug)); err != nil || again == nil {
				t.Errorf("the shrunk case does not reproduce on the broken store (divergence %v, error %v)", again, err)
			}
			if ok, err := d.Case.Check(diffFactory(bugNone)); err != nil || ok != nil {
				t.Errorf("the shrunk case fails a correct store (divergence %v, error %v)", ok, err)
			}
		})
	}
}

// checkGoSource checks that the test function in report parses as Go.
func checkGoSource(t *testing.T, report string) {
	t.Helper()
	i := strings.Index(report, "func Test")
	if i < 0 {
		t.Fatal("no test function in the report")
	}
	src := "package p\n\n" + report[i:]
	if _, err := parser.ParseFile(token.NewFileSet(), "case_test.go", src, 0); err != nil {
		t.Errorf("the printed test case is not valid Go: %v\n%s", err, src)
	}
}

func TestDifferentialDeterministic(t *testing.T) {
	run := func() *DiffReport {
		return Differential(diffFactory(bugLastOnTie), DifferentialOptions{Seed: diffTestSeed, Iterations: DefaultDiffIterations})
	}
	a, b := run(), run()
	if a.Failure == nil || b.Failure == nil {
		t.Fatal("the pass did not find the bug")
	}
	if a.Failure.Report() != b.Failure.Report() || a.Lookups != b.Lookups {
		t.Errorf("two runs with one seed differ:\n%s\n%s", a.Failure.Report(), b.Failure.Report())
	}
	c := Differential(diffFactory(bugNone), DifferentialOptions{Seed: diffTestSeed + 1, Iterations: 20})
	if c.Lookups == a.Lookups && c.Iterations == a.Iterations {
		t.Error("another seed ran the same lookups")
	}
}

// TestDifferentialKnownDeviation shows that a divergence that a known
// deviation explains is counted under its name, not reported as a failure.
func TestDifferentialKnownDeviation(t *testing.T) {
	ipSpelling := Deviation{
		Name: "IP SNI only lowercased",
		Explains: func(d *Divergence) bool {
			a, err := netip.ParseAddr(d.Case.SNI)
			return err == nil && strings.ToLower(d.Case.SNI) != a.Unmap().String()
		},
	}
	r := Differential(diffFactory(bugNoV6Compression), DifferentialOptions{Seed: diffTestSeed, Iterations: 60, Known: []Deviation{ipSpelling}})
	t.Log(r.Summary())
	if r.Failure != nil {
		t.Fatalf("a divergence the known deviation explains failed:\n%s", r.Failure.Report())
	}
	if r.Known[ipSpelling.Name] == 0 {
		t.Fatal("the known deviation was never counted")
	}
	ex := r.Examples[ipSpelling.Name]
	if ex == nil || ex.Known != ipSpelling.Name || !ipSpelling.Explains(ex) {
		t.Fatalf("example of the known deviation: %+v", ex)
	}
	if n := countCerts(&ex.Case); n > 3 {
		t.Errorf("the example was not shrunk: %d certificates", n)
	}

	// Another bug still fails.
	r = Differential(diffFactory(bugLastOnTie), DifferentialOptions{Seed: diffTestSeed, Iterations: DefaultDiffIterations, Known: []Deviation{ipSpelling}})
	if r.Failure == nil {
		t.Fatal("a known deviation hid another bug")
	}
}

func TestCheckCase(t *testing.T) {
	c := Case{
		Configs: []CaseConfig{
			{Certs: []CaseCert{{DNSNames: []string{"*.a.t"}}, {DNSNames: []string{"b.a.t"}, Variant: 1}}},
			{Certs: []CaseCert{{DNSNames: []string{"b.a.t"}, Variant: 2}}, Stores: map[string]*CaseCert{"default": {DNSNames: []string{"d.t"}}}},
		},
		Store: "default",
		SNI:   "b.a.t",
	}
	for held, want := range []Answer{{Kind: AnswerCertificate, Config: 0, Index: 1}, {Kind: AnswerCertificate, Config: 1, Index: 0}} {
		c.Held = held
		if d, err := c.Check(diffFactory(bugNone)); err != nil || d != nil {
			t.Errorf("held %d: correct store: divergence %v, error %v", held, d, err)
		}
		_ = want
	}
	c.Held, c.SNI = 0, "x.b.a.t"
	d, err := c.Check(diffFactory(bugWildcardTwo))
	if err != nil || d == nil {
		t.Fatalf("two-label wildcard store: divergence %v, error %v", d, err)
	}
	if d.Want.Kind != AnswerGenerated || d.Got.Kind != AnswerCertificate || d.Got.Index != 0 {
		t.Errorf("want generated, got certificate 0; have %s", d.Error())
	}
	if _, err := (Case{Configs: []CaseConfig{{Certs: []CaseCert{{}}}}}).Check(diffFactory(bugNone)); err == nil {
		t.Error("a case with a nameless certificate ran")
	}
	if _, err := (Case{Held: 1, Configs: []CaseConfig{{}}}).Check(diffFactory(bugNone)); err == nil {
		t.Error("a case with Held out of range ran")
	}
}

func TestHeldGenerationsChecked(t *testing.T) {
	// A store whose generations all read the live configuration: the pass
	// must catch held generations answering from a later one.
	r := Differential(func() certstore.Store { return liveStore{newDiffStore(bugNone)} }, DifferentialOptions{Seed: diffTestSeed, Iterations: DefaultDiffIterations})
	if r.Failure == nil {
		t.Fatal("the pass did not catch a held generation that follows updates")
	}
	t.Log(r.Failure.Report())
	if r.Failure.Via != "Current().Certificate" || r.Failure.Case.Held == len(r.Failure.Case.Configs)-1 {
		t.Errorf("divergence %s: want one on an older held generation", r.Failure.Error())
	}
}

// liveStore's Current is a view of the live store, not a generation.
type liveStore struct{ *diffStore }

func (s liveStore) Current() certstore.Generation { return s.diffStore }

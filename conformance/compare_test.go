package conformance

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
)

func traefikLikeFactory(v37 bool) certstore.Factory {
	return func() certstore.Store { return newTraefikLike(v37) }
}

// checkChange checks that a reported change is shrunk to at most two
// certificates with at most names names in all, and that replaying its
// case shows the same kind between the stores and nothing between a store
// and itself.
func checkChange(t *testing.T, ch *Change, base, head certstore.Factory, names int) {
	t.Helper()
	if !ch.Shrunk || ch.Note != "" {
		t.Errorf("%s: shrunk %v, note %q", ch.Kind, ch.Shrunk, ch.Note)
	}
	if n := countCerts(&ch.Case); n > 2 {
		t.Errorf("%s: shrunk case has %d certificates; want at most 2:\n%s", ch.Kind, n, ch.Report())
	}
	n := 0
	for _, cfg := range ch.Case.Configs {
		for _, cc := range cfg.Certs {
			n += len(cc.DNSNames) + len(cc.IPs) + min(len(cc.CommonName), 1)
		}
	}
	if n > names {
		t.Errorf("%s: the shrunk case has %d names; want at most %d:\n%s", ch.Kind, n, names, ch.Report())
	}
	runs := verifyRuns
	if len(ch.Base) > 1 || len(ch.Head) > 1 {
		// Map order is biased (a small map visits its last entry last 7
		// times in 8): enough runs to see it vary every time.
		runs = 100
	}
	again, err := ch.Case.Compare(base, head, runs)
	if err != nil || again == nil || again.Kind != ch.Kind {
		t.Errorf("%s: replaying the case gives %+v, %v", ch.Kind, again, err)
	}
	if same, err := ch.Case.Compare(base, base, runs); err != nil || same != nil {
		t.Errorf("%s: the base store differs from itself on the case: %+v, %v", ch.Kind, same, err)
	}
}

// TestComparePlantedChanges shows that Compare finds each planted change
// of behaviour by itself, once, shrunk.
func TestComparePlantedChanges(t *testing.T) {
	for _, tc := range []struct {
		name        string
		head        diffBug
		kind, cause string
	}{
		{"LastOnTie", bugLastOnTie, "tie-break: the first configured -> a later one", causeTie},
		{"WildcardWins", bugWildcardWins, "exact match -> wildcard match", causeMatch},
		{"RandomTie", bugRandomTie, "tie-break: fixed -> varies between runs", causeTie},
		{"AcceptUndeclared", bugAcceptUndeclared, "Update: rejected (certificate error) -> accepted", causeUpdate},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, head := diffFactory(bugNone), diffFactory(tc.head)
			iterations := 60
			if testing.Short() {
				iterations = 20 // -short: each is first seen by the 9th; .ci/run 60
			}
			r := Compare(base, head, CompareOptions{Seed: diffTestSeed, Iterations: iterations})
			var text bytes.Buffer
			if err := r.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			t.Log(text.String())
			if len(r.Changes()) != 1 || r.Changes()[0].Kind != tc.kind || r.Causes[0].Cause != tc.cause {
				t.Fatalf("found %d changes; want one of kind %q, of the cause %q", len(r.Changes()), tc.kind, tc.cause)
			}
			ch := r.Changes()[0]
			if tc.head == bugAcceptUndeclared {
				if ch.Via != viaUpdate || countCerts(&ch.Case) > 2 {
					t.Errorf("the change is not an Update's on at most 2 certificates: %s", ch.Report())
				}
				return
			}
			checkChange(t, ch, base, head, 2) // one name each
		})
	}
}

// TestCompareTraefikReleases runs Compare on a model of Traefik's lookup
// at v3.6 and v3.7: it must find both changes between them, each once,
// shrunk: ties on a shared name go from map order to a fixed order, and an
// exact name loses to a wildcard whose SAN key sorts later.
func TestCompareTraefikReleases(t *testing.T) {
	base, head := traefikLikeFactory(false), traefikLikeFactory(true)
	seeds, iterations := []uint64{diffTestSeed, 2}, 60
	if testing.Short() {
		// -short: one seed, whose changes are first seen by the 9th
		// iteration; .ci/run both, 60 each.
		seeds, iterations = seeds[:1], 20
	}
	for _, seed := range seeds {
		r := Compare(base, head, CompareOptions{Base: "v3.6", Head: "v3.7", Seed: seed, Iterations: iterations})
		var text bytes.Buffer
		if err := r.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		t.Log(text.String())
		var kinds []string
		for _, ch := range r.Changes() {
			kinds = append(kinds, ch.Kind)
			// Traefik keeps one certificate per SAN key: a tie needs two
			// keys, so three names; an exact name lost to a wildcard needs
			// the SAN keys in that order, three or four names.
			checkChange(t, ch, base, head, 4)
		}
		want := []string{"tie-break: varies between runs -> fixed", "exact match -> wildcard match"}
		if strings.Join(kinds, "|") != strings.Join(want, "|") {
			t.Errorf("seed %d: changes %q; want %q", seed, kinds, want)
		}
		for _, w := range []string{"v3.6 served certificate ", " or certificate ", "(varies over ", "v3.7 serves certificate "} {
			if !strings.Contains(text.String(), w) {
				t.Errorf("seed %d: the text does not say %q", seed, w)
			}
		}
	}
}

// phasedTie returns a factory of stores that break a tie among three
// certificates as its k-th Update says: the third wins when k%40 == rare,
// else the first two take turns. Two factories with different phases
// behave alike, but in 32 runs one may show the third and the other not.
func phasedTie(rare int) certstore.Factory {
	k := -1
	return func() certstore.Store {
		s := newDiffStore(bugRandomTie)
		s.picks = func() int {
			k++
			if k%40 == rare {
				return 2
			}
			return k % 2
		}
		return s
	}
}

// TestCompareRareAnswer shows that a side giving only some of the answers
// the other varies among is replayed until it gives the rest before the
// two count as different, and that a side that never does still differs.
func TestCompareRareAnswer(t *testing.T) {
	c := Case{
		Configs: []CaseConfig{{
			Certs:  []CaseCert{{DNSNames: []string{"a.t"}, Variant: 1}, {DNSNames: []string{"a.t"}, Variant: 2}, {DNSNames: []string{"a.t"}, Variant: 3}},
			Stores: map[string]*CaseCert{certstore.DefaultStore: {DNSNames: []string{fillerDefault}}},
		}},
		Store: certstore.DefaultStore,
		SNI:   "a.t",
	}
	// base shows the third certificate in its 6th run, head in its 40th.
	if ch, err := c.Compare(phasedTie(5), phasedTie(39), verifyRuns); err != nil || ch != nil {
		t.Errorf("two stores that differ only in phase: %+v, %v; want no change", ch, err)
	}
	ch, err := c.Compare(phasedTie(5), phasedTie(-1), verifyRuns)
	if err != nil || ch == nil {
		t.Fatalf("a head that never serves the third certificate: %+v, %v; want a change", ch, err)
	}
	if len(ch.Base) != 3 || len(ch.Head) != 2 {
		t.Errorf("base served %d certificates, head %d; want 3 and 2", len(ch.Base), len(ch.Head))
	}
}

// TestCompareIdentical shows that two copies of a store give no change,
// also when the store varies between runs.
func TestCompareIdentical(t *testing.T) {
	for name, f := range map[string]certstore.Factory{
		"correct":   diffFactory(bugNone),
		"randomTie": diffFactory(bugRandomTie),
		"traefik36": traefikLikeFactory(false),
	} {
		seeds := []uint64{1, 2, 3}
		if testing.Short() {
			seeds = seeds[:1] // -short: one run per store; .ci/run all three
		}
		for _, seed := range seeds {
			r := Compare(f, f, CompareOptions{Seed: seed, Iterations: 30})
			if r.Differs() {
				var text bytes.Buffer
				_ = r.WriteText(&text)
				t.Errorf("%s, seed %d: a store differs from itself:\n%s", name, seed, text.String())
			}
			if r.Iterations != 30 || r.Lookups < 30*20 {
				t.Errorf("%s, seed %d: %d iterations, %d lookups", name, seed, r.Iterations, r.Lookups)
			}
		}
	}
}

// TestComparisonJSON checks that a comparison read back from its JSON
// renders as the original does.
func TestComparisonJSON(t *testing.T) {
	r := Compare(diffFactory(bugNone), diffFactory(bugWildcardWins), CompareOptions{Seed: diffTestSeed, Iterations: 10})
	if !r.Differs() {
		t.Fatal("no change found")
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Comparison
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	for _, w := range []func(*Comparison, *bytes.Buffer) error{
		func(c *Comparison, b *bytes.Buffer) error { return c.WriteText(b) },
		func(c *Comparison, b *bytes.Buffer) error { return c.WriteMarkdown(b) },
	} {
		var a, b bytes.Buffer
		if err := w(r, &a); err != nil {
			t.Fatal(err)
		}
		if err := w(&back, &b); err != nil {
			t.Fatal(err)
		}
		if a.String() != b.String() {
			t.Errorf("rendered differently after a JSON round trip:\n%s\n---\n%s", a.String(), b.String())
		}
	}
	if !strings.Contains(js.String(), `"summary": "Store.Certificate(`) {
		t.Errorf("the JSON has no summary:\n%s", js.String())
	}
}

// liveHeld is a store whose held generations answer from its newest
// configuration, as Traefik PR #10302's store did (it updated the maps
// that held generations read).
type liveHeld struct{ *diffStore }

func (s liveHeld) Current() certstore.Generation { return s.diffStore }

// TestCompareHeldLive shows that a head whose held generations serve
// later configurations is reported under that one cause, every row on a
// held generation and none saying "earlier".
func TestCompareHeldLive(t *testing.T) {
	base := diffFactory(bugNone)
	head := func() certstore.Store { return liveHeld{newDiffStore(bugNone)} }
	iterations := 20
	if testing.Short() {
		iterations = 8 // -short: four kinds, one saying "later configuration's", by the 8th
	}
	r := Compare(base, head, CompareOptions{Seed: diffTestSeed, Iterations: iterations})
	var text, md bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	t.Log(text.String())
	const cause = "held generations of the head serve a later configuration"
	if len(r.Causes) != 1 || r.Causes[0].Cause != cause || len(r.Causes[0].Changes) < 2 {
		t.Fatalf("want at least two changes, all of the cause %q:\n%s", cause, text.String())
	}
	later := false
	for _, ch := range r.Changes() {
		later = later || strings.Contains(ch.Kind, "later configuration's")
		if strings.Contains(ch.Kind, "earlier") || !strings.Contains(ch.Summary(), "on the held generation of configuration 0 of 2") {
			t.Errorf("change %q: %s", ch.Kind, ch.Summary())
		}
	}
	if !later {
		t.Error(`no change says "later configuration's"`)
	}
	if w := "| 1 | **" + cause + "** | | "; !strings.Contains(md.String(), w) {
		t.Errorf("the Markdown lacks the cause row %q:\n%s", w, md.String())
	}
}

// TestShapeDirection checks that an answer from a configuration other
// than the held one is called earlier or later by their order.
func TestShapeDirection(t *testing.T) {
	c := Case{Configs: []CaseConfig{
		{Certs: []CaseCert{{DNSNames: []string{"a.t"}}}},
		{Certs: []CaseCert{{DNSNames: []string{"a.t"}, Variant: 1}}},
		{Certs: []CaseCert{{DNSNames: []string{"a.t"}, Variant: 2}}},
	}}
	bs, err := c.build(diffLeaves(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		held, from int
		want       string
	}{
		{1, 0, "earlier configuration's exact match"},
		{1, 1, "exact match"},
		{1, 2, "later configuration's exact match"},
		{0, 2, "later configuration's exact match"},
	} {
		got := shapeOf(bs, tc.held, certstore.DefaultStore, "a.t", Answer{Kind: AnswerCertificate, Config: tc.from}).what
		if got != tc.want {
			t.Errorf("held %d, served from %d: %q; want %q", tc.held, tc.from, got, tc.want)
		}
	}
}

// TestComparisonWords checks the words of a comparison's summary and
// rows, each limit that can end it, and a lookup on a held generation.
func TestComparisonWords(t *testing.T) {
	held := &Change{Kind: "exact match -> later configuration's exact match", Via: viaCurrent, Runs: 2, Count: 3,
		Case: Case{Configs: []CaseConfig{{Certs: []CaseCert{{DNSNames: []string{"a.t"}}}}, {Certs: []CaseCert{{DNSNames: []string{"a.t"}, Variant: 1}}}}, Store: "default", SNI: "a.t"},
		Base: []Answer{{Kind: AnswerCertificate}}, Head: []Answer{{Kind: AnswerCertificate, Config: 1}}}
	current := *held
	current.Case.Held, current.Base, current.Head = 1, []Answer{{Kind: AnswerCertificate, Config: 1}}, []Answer{{Kind: AnswerError, Err: certstore.ErrNoCertificate}}
	live := current
	live.Via = viaStore
	for _, tc := range []struct {
		name string
		r    Comparison
		want []string
	}{
		{"time limit", Comparison{Iterations: 4, Planned: 200, Lookups: 1426, Stopped: StopTime, TimeLimit: time.Minute},
			[]string{"stopped at its 1m time limit after 4 of 200 iterations, 1,426 lookups", "no behaviour change"}},
		{"iteration limit", Comparison{Iterations: 200, Planned: 200, Lookups: 14000, Stopped: StopIterations, TimeLimit: 3 * time.Minute},
			[]string{"stopped at its iteration limit after 200 iterations, 14,000 lookups"}},
		{"one cause", Comparison{Base: "base", Head: "head", Iterations: 1, Stopped: StopIterations, Causes: []*Cause{{Cause: "c", Changes: []*Change{held, &current}}}},
			[]string{"2 behaviour changes of 1 cause", "cause 1 of 1: c (seen 6 times)",
				`change 1.1: exact match -> later configuration's exact match (seen 3 times)`,
				`Certificate("default", "a.t") on the held generation of configuration 0 of 2: base served certificate 0 ["a.t"], head serves certificate 0 ["a.t" "variant 1"] of configuration 1 (not the held one, 0)`,
				`change 1.2: `, `Current().Certificate("default", "a.t") on the generation of configuration 1 of 2`}},
		{"two causes", Comparison{Causes: []*Cause{{Cause: "c", Changes: []*Change{held}}, {Cause: "d", Changes: []*Change{&live}}}},
			[]string{"2 behaviour changes of 2 causes", "cause 2 of 2: d", `Store.Certificate("default", "a.t") on the generation of configuration 1 of 2`}},
	} {
		var b bytes.Buffer
		if err := tc.r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the text lacks %q:\n%s", tc.name, w, b.String())
			}
		}
	}
}

// TestCompareTimeLimit shows that a comparison ended by its time limit
// says so, and how far it got.
func TestCompareTimeLimit(t *testing.T) {
	r := Compare(diffFactory(bugNone), diffFactory(bugNone), CompareOptions{Iterations: 200, Duration: time.Nanosecond})
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if r.Stopped != StopTime || !strings.Contains(md.String(), "stopped at its 1ns time limit after ") || !strings.Contains(md.String(), " of 200 iterations, ") {
		t.Errorf("stopped %q; the report does not say the time limit ended it:\n%s", r.Stopped, md.String())
	}
}

// TestCauseOf checks the cause of a lookup on a held generation: the
// side whose held generation answers from the later configuration, and
// the kind's cause when neither does.
func TestCauseOf(t *testing.T) {
	correct := diffFactory(bugNone)
	live := func() certstore.Store { return liveHeld{newDiffStore(bugNone)} }
	c := Case{Configs: []CaseConfig{{Certs: []CaseCert{{DNSNames: []string{"a.t"}}}}, {Certs: []CaseCert{{DNSNames: []string{"a.t"}, Variant: 1}}}}, Store: "default", SNI: "a.t"}
	for _, tc := range []struct {
		name       string
		base, head certstore.Factory
		want       string
	}{
		{"head serves later", correct, live, "held generations of the head serve a later configuration"},
		{"base served later", live, correct, "held generations of the base serve a later configuration"},
		{"ties differ", correct, diffFactory(bugLastOnTie), causeTie},
	} {
		cc := c
		if tc.want == causeTie {
			cc.Configs = []CaseConfig{{Certs: []CaseCert{{DNSNames: []string{"a.t"}}, {DNSNames: []string{"a.t"}, Variant: 1}}}, c.Configs[1]}
		}
		ch, err := cc.Compare(tc.base, tc.head, 2)
		if err != nil || ch == nil {
			t.Fatalf("%s: %+v, %v", tc.name, ch, err)
		}
		cmp := &comparer{base: tc.base, head: tc.head, lc: diffLeaves()}
		if got := cmp.causeOf(ch); got != tc.want {
			t.Errorf("%s: %s: cause %q; want %q", tc.name, ch.Summary(), got, tc.want)
		}
	}
}

package conformance

import (
	"github.com/certbench/certbench/certstore"
	"slices"
	"strings"
	"testing"
)

// TestRuleT checks the recorder Check runs rules in: leaves and parents
// that fail on their own are results, Fatalf ends a rule, a panic fails
// it, cleanups run, and the callbacks hear of every rule.
func TestRuleT(t *testing.T) {
	var started []string
	var finished []string
	c := &checker{opts: Options{
		Started:  func(r string) { started = append(started, r) },
		Finished: func(r RuleResult) { finished = append(finished, r.Rule) },
	}}
	root := &ruleT{c: c}
	cleaned := false
	root.Run("A", func(t rt) {
		t.Run("ok", func(t rt) { t.Logf("note %d", 1) })
		t.Run("fatal", func(t rt) {
			t.Cleanup(func() { cleaned = true })
			t.Fatalf("stop %s", "here")
			t.Errorf("not reached")
		})
		t.Run("panic", func(t rt) { panic("boom") })
		t.Errorf("A's own failure")
	})
	root.Run("B", func(t rt) {})
	want := []RuleResult{
		{Rule: "A/ok", Result: Pass, Output: []string{"note 1"}},
		{Rule: "A/fatal", Result: Fail, Output: []string{"stop here"}},
		{Rule: "A/panic", Result: Fail},
		{Rule: "A", Result: Fail, Output: []string{"A's own failure"}},
		{Rule: "B", Result: Pass},
	}
	if len(c.results) != len(want) {
		t.Fatalf("results %+v", c.results)
	}
	for i, w := range want {
		g := c.results[i]
		if g.Rule != w.Rule || g.Result != w.Result {
			t.Errorf("result %d: %s %s; want %s %s", i, g.Rule, g.Result, w.Rule, w.Result)
		}
		if w.Output != nil && !slices.Equal(g.Output, w.Output) {
			t.Errorf("%s: output %q; want %q", g.Rule, g.Output, w.Output)
		}
	}
	if out := strings.Join(c.results[2].Output, "\n"); !strings.HasPrefix(out, "panic: boom\n") || !strings.Contains(out, "check_test.go") {
		t.Errorf("panic output %q: want the value and the stack", out)
	}
	if !cleaned {
		t.Error("the cleanup of a rule that called Fatalf did not run")
	}
	if strings.Join(started, ",") != "A,A/ok,A/fatal,A/panic,B" || strings.Join(finished, ",") != "A/ok,A/fatal,A/panic,A,B" {
		t.Errorf("started %q, finished %q", started, finished)
	}
}

// TestCheckBrokenStores shows that Check fails each broken store in the
// rule it breaks, by its own checks, without crashing.
func TestCheckBrokenStores(t *testing.T) {
	for _, name := range sortedBroken() {
		b := brokenStores[name]
		t.Run(name, func(t *testing.T) {
			top, _, _ := strings.Cut(strings.Trim(b.run, "/^$"), "$")
			r := Check(b.factory, Options{only: top})
			if r.Passed() {
				t.Fatalf("Check passed the broken store: %+v", r.Rules)
			}
			var out []string
			for _, rr := range r.Rules {
				if rr.Result == Fail {
					out = append(out, "--- FAIL: TestHelperBrokenStore/"+rr.Rule)
					out = append(out, rr.Output...)
				}
			}
			text := strings.Join(out, "\n")
			for _, w := range b.want {
				if !strings.Contains(text, w) {
					t.Errorf("the failures do not say %q:\n%s", w, text)
				}
			}
		})
	}
}

func sortedBroken() []string {
	var names []string
	for name := range brokenStores {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func TestCheckReport(t *testing.T) {
	r := Check(func() certstore.Store { return newRefStore() }, Options{only: "Differential", Differential: DifferentialOptions{Iterations: 3}})
	if !r.Passed() || len(r.Rules) != 1 || r.Rule("Differential") == nil || r.Differential == nil || r.Differential.Iterations != 3 {
		t.Errorf("report %+v", r)
	}
	if r := Check(nil, Options{}); r.Passed() || r.Rules[0].Rule != "Setup" {
		t.Errorf("a nil factory: %+v", r)
	}
}

// Package peerconf records which conformance rules a peer store passes.
//
// A peer (Traefik's TLS manager, Caddy's certmagic cache) does not keep the
// whole certstore contract, and that is the point of measuring it: the
// failures must be recorded, not hidden, and must not turn CI red. Each
// peer's store package therefore checks its column of the table in
// peers/README.md rather than the suite's verdict:
//
//	// TestConformanceTable runs conformance.Check on the peer and compares
//	// its per-rule results with the peer's column of the table.
//	func TestConformanceTable(t *testing.T) {
//		peerconf.Check(t, "traefik", func() certstore.Store { return New() }, "../../README.md")
//	}
//
// Check fails only when the table is out of date (a rule that passed now
// fails, or the reverse, or a rule appeared or vanished). Run it with
// -update-readme to rewrite the peer's column instead:
//
//	go test -race ./store -run TestConformanceTable -update-readme
//
// The package is shared by the peer modules, which reach it through their
// replace of the certbench module (it lives in the main module, under
// peers/, so only the peers may import it).
package peerconf

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
)

// EnvInner is the environment variable that makes TestConformance, the
// suite as ordinary subtests, run (it fails on the rules the peer breaks).
const EnvInner = "CERTBENCH_PEER_CONFORMANCE"

var updateReadme = flag.Bool("update-readme", false, "rewrite this peer's column of the conformance table in peers/README.md instead of checking it")

// Inner skips t unless EnvInner is 1. Call it first in TestConformance.
func Inner(t *testing.T) {
	t.Helper()
	if os.Getenv(EnvInner) != "1" {
		t.Skipf("the suite fails on the rules the peer breaks: TestConformanceTable checks them against peers/README.md (set %s=1 to run it here)", EnvInner)
	}
}

// Result is the outcome of one rule.
type Result string

// The outcomes.
const (
	Pass Result = "pass"
	Fail Result = "FAIL"
	Skip Result = "skip"
)

// Results maps each rule (such as "Lookup/ExactName") to its outcome.
type Results struct {
	Order []string // rules in the order the suite ran them
	Of    map[string]Result
}

// ResultsOf reads a conformance report.
func ResultsOf(rep *conformance.Report) Results {
	r := Results{Of: map[string]Result{}}
	for _, rr := range rep.Rules {
		if _, seen := r.Of[rr.Rule]; !seen {
			r.Order = append(r.Order, rr.Rule)
		}
		r.Of[rr.Rule] = Result(rr.Result)
	}
	return r
}

// RunSuite runs the suite on stores from newStore, with the deviations
// declared for peer, and returns its results and the failures' messages.
func RunSuite(peer string, newStore certstore.Factory) (Results, string) {
	rep := conformance.Check(newStore, conformance.Options{Store: peer})
	var out strings.Builder
	for _, rr := range rep.Rules {
		if rr.Result != conformance.Pass || rr.Rule == "Differential" {
			out.WriteString("--- " + string(rr.Result) + ": " + rr.Rule + "\n" + strings.Join(rr.Output, "\n") + "\n")
		}
	}
	return ResultsOf(rep), out.String()
}

// Check runs the suite and compares the results with the peer's column of
// the table in readme; with -update-readme it rewrites that column
// instead. A mismatch is confirmed by a second run before it is reported,
// so that a rule whose failure depends on timing (a store that publishes
// non-atomically may get through the atomicity check unseen) does not
// make the check flaky.
func Check(t *testing.T, peer string, newStore certstore.Factory, readme string) {
	t.Helper()
	start := time.Now()
	got, out := RunSuite(peer, newStore)
	t.Logf("suite ran in %v: %d rules, %d pass", time.Since(start).Round(time.Millisecond), len(got.Order), got.count(Pass))

	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	table, err := ReadTable(text)
	if err != nil {
		t.Fatalf("%s: %v", readme, err)
	}
	if *updateReadme {
		table.Set(peer, got)
		newText, err := ReplaceTable(text, table.Render())
		if err != nil {
			t.Fatalf("%s: %v", readme, err)
		}
		if err := os.WriteFile(readme, newText, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote the %s column of the conformance table in %s", peer, readme)
		return
	}
	diff := table.Diff(peer, got)
	if len(diff) == 0 {
		return
	}
	// Confirm with a second run: keep only the rules that differ twice.
	again, _ := RunSuite(peer, newStore)
	diff = slices.DeleteFunc(table.Diff(peer, again), func(d string) bool { return !slices.Contains(diff, d) })
	if len(diff) == 0 {
		t.Logf("a first run differed from the table but a second one matched it")
		return
	}
	t.Errorf("the %s column of the conformance table in %s is out of date:\n  %s\n"+
		"If the change is intended, rewrite the column with\n  go test -race ./store -run TestConformanceTable -update-readme\n"+
		"Failures (first run):\n%s",
		peer, readme, strings.Join(diff, "\n  "), tail(out, 20000))
}

func (r Results) count(want Result) int {
	n := 0
	for _, res := range r.Of {
		if res == want {
			n++
		}
	}
	return n
}

// tail returns the last n bytes of out.
func tail(out string, n int) string {
	if len(out) > n {
		return out[len(out)-n:]
	}
	return out
}

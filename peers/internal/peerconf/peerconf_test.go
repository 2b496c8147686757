package peerconf

import (
	"strings"
	"testing"

	"github.com/certbench/certbench/conformance"
)

// sample is a report with a pass, failures and a rule that passes after
// its sibling failed.
var sample = &conformance.Report{Rules: []conformance.RuleResult{
	{Rule: "NoConfiguration", Result: conformance.Pass},
	{Rule: "Lookup/ExactName", Result: conformance.Pass},
	{Rule: "Lookup/IPv6Expanded", Result: conformance.Fail, Output: []string{"got x"}},
	{Rule: "Atomicity", Result: conformance.Fail},
}}

func TestResultsOf(t *testing.T) {
	r := ResultsOf(sample)
	want := []string{"NoConfiguration", "Lookup/ExactName", "Lookup/IPv6Expanded", "Atomicity"}
	if strings.Join(r.Order, ",") != strings.Join(want, ",") {
		t.Fatalf("rules %q, want %q", r.Order, want)
	}
	for rule, res := range map[string]Result{"NoConfiguration": Pass, "Lookup/IPv6Expanded": Fail, "Atomicity": Fail} {
		if r.Of[rule] != res {
			t.Errorf("%s = %s, want %s", rule, r.Of[rule], res)
		}
	}
}

func TestTableRoundTrip(t *testing.T) {
	readme := []byte("# Peers\n\n" + BeginMarker + "\n" + EndMarker + "\n\nmore\n")
	table, err := ReadTable(readme)
	if err != nil {
		t.Fatal(err)
	}
	a := ResultsOf(sample)
	table.Set("traefik", a)
	b := Results{Order: []string{"NoConfiguration", "Lookup/ExactName", "Goroutines"},
		Of: map[string]Result{"NoConfiguration": Fail, "Lookup/ExactName": Pass, "Goroutines": Pass}}
	table.Set("certmagic", b)
	out, err := ReplaceTable(readme, table.Render())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(out), EndMarker+"\n\nmore\n") || !strings.HasPrefix(string(out), "# Peers\n\n"+BeginMarker+"\n| rule |") {
		t.Fatalf("surroundings not kept:\n%s", out)
	}
	for _, row := range []string{
		"| `NoConfiguration` | pass | **FAIL** |",
		"| `Lookup/IPv6Expanded` | **FAIL** | – |",
		"| `Goroutines` | – | pass |",
		"| **rules passed** | **2 / 4** | **2 / 3** |",
	} {
		if !strings.Contains(string(out), row) {
			t.Errorf("missing row %q in\n%s", row, out)
		}
	}
	back, err := ReadTable(out)
	if err != nil {
		t.Fatal(err)
	}
	if d := back.Diff("traefik", a); len(d) != 0 {
		t.Errorf("traefik differs after a round trip: %q", d)
	}
	if d := back.Diff("certmagic", b); len(d) != 0 {
		t.Errorf("certmagic differs after a round trip: %q", d)
	}
	a.Of["Atomicity"] = Pass
	delete(a.Of, "NoConfiguration")
	a.Order = a.Order[1:]
	d := back.Diff("traefik", a)
	if len(d) != 2 || !strings.HasPrefix(d[0], "Atomicity: pass now, the table says FAIL") || !strings.HasPrefix(d[1], "NoConfiguration: in the table") {
		t.Errorf("diff = %q", d)
	}
	if _, err := ReadTable([]byte("no markers")); err == nil {
		t.Error("no error for a README without markers")
	}
}

package compare_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/golden"
	"github.com/certbench/certbench/results"
)

// The README's headline table is built from results/reference.txt by this
// test; it fails when the two disagree, and `go test -run
// TestReadmeTable -update ./compare/` rewrites the README's section from
// the file.

var readmeScenarios = []string{"rotate-10-of-100", "renew-1-of-1000", "noop-10000", "startup-10000", "lookup-1000"}

const (
	readmePath   = "../../README.md"
	readmeBegin  = "<!-- reference table: generated from results/reference.txt by TestReadmeTable in internal/compare/readme_test.go -->\n"
	readmeEnd    = "<!-- end of reference table -->\n"
	referenceTxt = "../../results/reference.txt"
)

// readmeTable renders the medians of the reference run: sec/op, B/op and
// allocs/op of naive and optimized per scenario, and retained heap per
// certificate at 10,000 certificates.
func readmeTable(t *testing.T) string {
	t.Helper()
	rs, err := results.Load(referenceTxt)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := compare.Build(rs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cell := func(unit, scenario, store string) *compare.Cell {
		tab := rep.Table(unit)
		if tab == nil {
			t.Fatalf("reference run has no %s table", unit)
		}
		col := -1
		for i, c := range tab.Columns {
			if c.Label == store {
				col = i
			}
		}
		for _, row := range tab.Rows {
			if row.Label == scenario && col >= 0 && row.Cells[col] != nil {
				return row.Cells[col]
			}
		}
		t.Fatalf("reference run has no %s for %s on %s", unit, scenario, store)
		return nil
	}
	center := func(unit, scenario, store string) float64 { return cell(unit, scenario, store).Center() }
	units := []string{results.UnitSec, results.UnitBytes, results.UnitAllocs}
	var b strings.Builder
	b.WriteString("| scenario |")
	for _, u := range units {
		fmt.Fprintf(&b, " naive %s | optimized %s |", u, u)
	}
	b.WriteString("\n|---|" + strings.Repeat("--:|", 2*len(units)) + "\n")
	for _, sc := range readmeScenarios {
		b.WriteString("| " + sc + " |")
		for _, u := range units {
			for _, st := range []string{"naive", "optimized"} {
				c := cell(u, sc, st)
				text := results.Format(c.Center(), u)
				if vs := c.Sample.Values; results.IsCount(u) && vs[0] != vs[len(vs)-1] {
					// A count that varies: its range, the median as precise.
					lo, hi := results.FormatPair(vs[0], vs[len(vs)-1], u)
					for _, other := range []float64{vs[0], vs[len(vs)-1]} {
						if m, _ := results.FormatPair(c.Center(), other, u); len(m) > len(text) {
							text = m
						}
					}
					text += " (" + lo + "-" + hi + ")"
				}
				b.WriteString(" " + text + " |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\nA count with a range varies between samples (its lowest-highest): the naive store generates an RSA-2048 default key on every refresh, " +
		"whose allocations vary with the primes it draws; map growth varies a little with the runtime's random hash seeds. A count without one repeated exactly in this run, which is one process: " +
		"it can still differ from process to process ([results/README.md](results/README.md)), " +
		"which is why certbench ab runs a process per round.\n")
	fmt.Fprintf(&b, "\nRetained heap per certificate (noop-10000, P-256): naive %s, optimized %s.\n",
		results.Format(center(results.UnitRetainedPerCert, "noop-10000", "naive"), results.UnitRetainedPerCert),
		results.Format(center(results.UnitRetainedPerCert, "noop-10000", "optimized"), results.UnitRetainedPerCert))
	return b.String()
}

func TestReadmeTable(t *testing.T) {
	golden.CheckSection(t, readmePath, readmeBegin, readmeEnd, []byte(readmeTable(t)))
}

package report

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/golden"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// heldReport builds a report of a held scenario and its plain base
// (renew-1-of-1000), 3 samples each, on three stores: one that rebuilds
// everything (held-B/gen about its whole configuration), one that shares
// unchanged entries (about 2 entries), and one whose base was not run. A
// held sample's retained-B includes its 100 held generations, so it must
// not be taken for the configuration.
func heldReport(t *testing.T) *Report {
	t.Helper()
	var b strings.Builder
	line := func(scenario, store string, retained float64, extra string) {
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=%s/store=%s-2 10 1e6 ns/op %g retained-B %g retained-B/cert%s\n", scenario, store, retained, retained/1000, extra)
	}
	for i := range 3 {
		d := float64(i)
		line("held-100-renew-1-of-1000", "naive", 4800000+100*(4800000+d), fmt.Sprintf(" %g %s 0 %s", 4800000+d, results.UnitHeldPerGen, results.UnitHeldGoroutinesPerGen))
		line("held-100-renew-1-of-1000", "optimized", 1270000+100*(2540+d), fmt.Sprintf(" %g %s 0 %s", 2540+d, results.UnitHeldPerGen, results.UnitHeldGoroutinesPerGen))
		line("held-100-renew-1-of-1000", "janitor", 1270000+100*(70000+d), fmt.Sprintf(" %g %s 1 %s", 70000+d, results.UnitHeldPerGen, results.UnitHeldGoroutinesPerGen))
		line("renew-1-of-1000", "naive", 4800000, "")
		line("renew-1-of-1000", "optimized", 1270000, "")
	}
	rs, err := results.Read(strings.NewReader(b.String()), "held.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestHeldTable(t *testing.T) {
	ht := heldReport(t).HeldTable()
	if ht == nil {
		t.Fatal("no price-of-atomicity table")
	}
	if len(ht.Rows) != 3 {
		t.Fatalf("%d rows, want 3 (only the held scenario, a row per store)", len(ht.Rows))
	}
	// The configuration is renew-1-of-1000's: naive pays the whole of it
	// (100%, 1,000 entries), optimized 2,541 / 1,270 = 2.001 entries and
	// 2,541 / 1,270,000 = 0.2%; janitor's base was not run, so no ratio,
	// and a footnote says why.
	want := map[string][]string{
		"naive":     {"4.58 MiB", "4.58 MiB", "100%", "1,000", "0"},
		"optimized": {"2.48 KiB", "1.21 MiB", "0.2%", "2.001", "0"},
		"janitor":   {"68.4 KiB", "-", "-", "-", "1"},
	}
	for _, row := range ht.Rows {
		var got []string
		for _, c := range row.Cells[2:] {
			got = append(got, c.Text)
		}
		st := row.Cells[1].Text
		if w := want[st]; strings.Join(got, " | ") != strings.Join(w, " | ") {
			t.Errorf("%s: %q, want %q", st, got, w)
		}
		if len(row.Cells[3].Notes) != 1 {
			t.Errorf("%s: configuration with %d footnotes, want 1 (where it was measured, or why not)", st, len(row.Cells[3].Notes))
		}
		// The entries are divided by the plain run's retained-B/cert,
		// not the held sample's own: the footnote names that run.
		if c := row.Cells[5]; c.Text != "-" && (len(c.Notes) != 1 || ht.Footnotes[c.Notes[0]-1] != "held-B/gen divided by retained-B/cert in renew-1-of-1000") {
			t.Errorf("%s: certificate entries %q with footnotes %v, want one naming the renew-1-of-1000 run divided by", st, c.Text, c.Notes)
		}
	}
	if want := "no renew-1-of-1000 in these results (run it beside the held scenarios)"; !slices.Contains(ht.Footnotes, want) {
		t.Errorf("footnotes %q lack %q", ht.Footnotes, want)
	}
	var buf bytes.Buffer
	if err := table.WriteText(&buf, &table.Page{Tables: []*table.Table{ht}}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/held-table.golden", buf.Bytes())
}

func TestHeldHTML(t *testing.T) {
	for _, tc := range []struct {
		name string
		rep  *Report
		want bool
	}{
		{"held", heldReport(t), true},
		{"no held units", nil, false},
	} {
		rep := tc.rep
		if rep == nil {
			var err error
			if rep, err = Build(sweepResults(t), Options{}); err != nil {
				t.Fatal(err)
			}
			if rep.HeldTable() != nil {
				t.Errorf("%s: a price-of-atomicity table without held-B/gen", tc.name)
			}
		}
		var buf bytes.Buffer
		if err := rep.WriteHTML(&buf); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		for _, s := range []string{`<section id="held">`, `href="#held"`, `id="held-price"`} {
			if strings.Contains(page, s) != tc.want {
				t.Errorf("%s: page has %s: %v, want %v", tc.name, s, !tc.want, tc.want)
			}
		}
		if tc.want && !strings.Contains(page, "2.001") {
			t.Errorf("%s: page lacks the optimized store's 2.001 entries", tc.name)
		}
	}
}

// TestHeldGrowthChart: the held family's growth chart counts held
// generations on its x axis, not certificates.
func TestHeldGrowthChart(t *testing.T) {
	var b strings.Builder
	for _, n := range []int{1, 10, 100, 1000} {
		for i := range 3 {
			fmt.Fprintf(&b, "Benchmark%s-2 1 1e6 ns/op %d retained-B\n",
				results.SweepName("held", n, "held-renew-1-of-1000", "naive"), 4800000*(n+1)+i)
		}
	}
	rs, err := results.Read(strings.NewReader(b.String()), "sweep.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ch, err := rep.growthChart("held")
	if err != nil || ch == nil {
		t.Fatalf("held growth chart: %v, %v", ch, err)
	}
	if want := "held: growth with the number of held generations"; ch.Title != want {
		t.Errorf("title %q, want %q", ch.Title, want)
	}
	for _, p := range ch.panels() {
		if p.X.Label.Text != "held generations, N" {
			t.Errorf("x axis label %q, want \"held generations, N\"", p.X.Label.Text)
		}
	}
}

// The docs' price-of-atomicity table and the README's line are the
// HeldTable of docs/held-run.txt, rendered; `go test -run TestHeldDocs
// -update ./internal/report` rewrites both from the file.
const (
	heldRun        = "../../docs/held-run.txt"
	heldDocsBegin  = "<!-- held table: generated from docs/held-run.txt by TestHeldDocs in internal/report/held_test.go -->\n"
	heldDocsEnd    = "<!-- end of held table -->\n"
	heldReadmeScen = "held-100-renew-1-of-1000"
)

func TestHeldDocs(t *testing.T) {
	rs, err := results.Load(heldRun)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ht := rep.HeldTable()
	if ht == nil {
		t.Fatalf("%s: no held-B/gen", heldRun)
	}
	var md bytes.Buffer
	if err := table.WriteMarkdown(&md, &table.Page{Tables: []*table.Table{ht}}); err != nil {
		t.Fatal(err)
	}
	golden.CheckSection(t, "../../docs/measurements.md", heldDocsBegin, heldDocsEnd, md.Bytes())

	var parts []string
	for _, row := range ht.Rows {
		if c := row.Cells; c[0].Text == heldReadmeScen {
			parts = append(parts, fmt.Sprintf("%s %s (%s of its configuration, %s certificate entries)", c[1].Text, c[2].Text, c[4].Text, c[5].Text))
		}
	}
	if len(parts) == 0 {
		t.Fatalf("%s: no %s", heldRun, heldReadmeScen)
	}
	line := fmt.Sprintf("Per generation a connection still holds, in %s: %s.\n", heldReadmeScen, strings.Join(parts, ";\n"))
	golden.CheckSection(t, "../../README.md", heldDocsBegin, heldDocsEnd, []byte(line))
}

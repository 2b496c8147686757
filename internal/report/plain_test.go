package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/results"
)

// plainPair loads compare's plain go test -bench fixtures: a base and a
// head run of BenchmarkRefresh, BenchmarkLookup/exact and
// BenchmarkLookup/wildcard, 6 samples each with -benchmem.
func plainPair(t *testing.T) *results.Set {
	t.Helper()
	rs, err := results.Load("base=../compare/testdata/plain-base.txt", "head=../compare/testdata/plain-head.txt")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestPlainFilesChartBenchmarks(t *testing.T) {
	rep, err := Build(plainPair(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, ch := range rep.Scenarios {
		titles = append(titles, ch.Title)
	}
	if want := "Refresh-2,Lookup/exact-2,Lookup/wildcard-2"; strings.Join(titles, ",") != want {
		t.Errorf("charts %q, want one per benchmark: %s", titles, want)
	}
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`id="scenario-Refresh-2"`,
		`id="scenario-Lookup_exact-2"`,
		`id="scenario-Lookup_wildcard-2"`,
		">Lookup/wildcard-2<", // in the navigation and the tables
		"<th>benchmark</th>",  // row header of the tables
		">head</th>",          // one column group (bar) per file
		"<h2>Benchmarks</h2>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	for _, bad := range []string{"scenario=", "store=", "benchmarks vary in"} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

func TestPlainFilesProjections(t *testing.T) {
	rep, err := Build(plainPair(t), Options{Compare: compare.Options{Row: ".name", Filter: ".name:Lookup"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 1 || rep.Scenarios[0].Title != "Lookup" {
		t.Errorf("charts %v, want one for Lookup", rep.Scenarios)
	}
}

func TestChartIDsUnique(t *testing.T) {
	// Two benchmarks whose names differ only in characters an ID cannot
	// hold.
	var b strings.Builder
	for i := 0; i < 6; i++ {
		b.WriteString("BenchmarkLookup/exact-2 10 100 ns/op\nBenchmarkLookup:exact-2 10 200 ns/op\n")
	}
	rs, err := results.Read(strings.NewReader(b.String()), "x.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[string]bool)
	for _, ch := range rep.Charts() {
		if seen[ch.ID] {
			t.Errorf("chart ID %q twice", ch.ID)
		}
		seen[ch.ID] = true
	}
	if len(seen) != 2 {
		t.Errorf("%d charts, want 2", len(seen))
	}
}

package compare

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
)

// Fixtures: plain-base.txt and plain-head.txt are plain go test -bench
// -benchmem -count 6 output (BenchmarkRefresh, BenchmarkLookup/exact,
// BenchmarkLookup/wildcard); mixed.txt holds certbench results (one
// scenario, two stores) and plain results (BenchmarkRefresh,
// BenchmarkLookup/exact).

var plainPair = []string{"testdata/plain-base.txt", "testdata/plain-head.txt"}

// rowLabels returns the row labels of t.
func rowLabels(t *Table) []string {
	var labels []string
	for _, r := range t.Rows {
		labels = append(labels, r.Label)
	}
	return labels
}

// columnLabels returns the column labels of r.
func columnLabels(r *Tables) []string {
	var labels []string
	for _, c := range r.Columns {
		labels = append(labels, c.Label)
	}
	return labels
}

// checkNoMixedCells fails if any cell of r mixes benchmarks or a row or
// column lacks a key: the symptoms of grouping plain results by certbench's
// name keys.
func checkNoMixedCells(t *testing.T, r *Tables) {
	t.Helper()
	for _, w := range r.Warnings {
		if strings.Contains(w, "benchmarks vary in") || strings.Contains(w, "some results have no") {
			t.Errorf("warning %q", w)
		}
	}
	for _, tb := range r.Tables {
		for _, l := range rowLabels(tb) {
			if l == "" || strings.Contains(l, "scenario=/") || strings.HasSuffix(l, "store=") {
				t.Errorf("%s: row label %q", tb.Unit, l)
			}
		}
	}
	for _, l := range columnLabels(r) {
		if l == "" {
			t.Errorf("empty column label in %q", columnLabels(r))
		}
	}
}

func TestPlainGolden(t *testing.T) {
	for _, opts := range []Options{{}, FileOptions()} {
		r := mustBuild(t, opts, plainPair...)
		checkNoMixedCells(t, r)
		for _, f := range []struct {
			ext   string
			write func(*bytes.Buffer) error
		}{
			{"txt", func(b *bytes.Buffer) error { return writeText(r, b) }},
			{"md", func(b *bytes.Buffer) error { return writeMarkdown(r, b) }},
		} {
			var b bytes.Buffer
			if err := f.write(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, "plain."+f.ext+".golden", b.Bytes())
		}
	}
}

func TestPlainRowsAndColumns(t *testing.T) {
	r := mustBuild(t, Options{}, plainPair...)
	if r.Options.Row != NameRow || r.Options.Col != NameCol {
		t.Errorf("row %q col %q, want %q %q", r.Options.Row, r.Options.Col, NameRow, NameCol)
	}
	if got := columnLabels(r); !slices.Equal(got, plainPair) {
		t.Errorf("columns %q, want %q", got, plainPair)
	}
	wantRows := []string{"Refresh-2", "Lookup/exact-2", "Lookup/wildcard-2"}
	for _, unit := range []string{"sec/op", "B/op", "allocs/op"} {
		tb := r.Table(unit)
		if tb == nil {
			t.Fatalf("no %s table", unit)
		}
		if got := rowLabels(tb); !slices.Equal(got, wantRows) {
			t.Errorf("%s rows %q, want %q", unit, got, wantRows)
		}
		if tb.RowHeader() != "benchmark" {
			t.Errorf("%s row header %q, want benchmark", unit, tb.RowHeader())
		}
		for _, row := range tb.Rows {
			for j, c := range row.Cells {
				if c == nil || c.N() != 6 {
					t.Errorf("%s %s column %d: cell %v, want 6 samples", unit, row.Label, j, c)
				}
			}
		}
	}
	// Refresh got faster and Lookup/exact did not change.
	sec := r.Table("sec/op")
	if d := sec.Rows[0].Cells[1].Delta; !d.Significant || d.Percent() >= 0 {
		t.Errorf("Refresh: delta %v, want a significant improvement", d)
	}
	if d := sec.Rows[1].Cells[1].Delta; d.Significant {
		t.Errorf("Lookup/exact: delta %v (p=%v), want ~", d, d.Comparison.P)
	}

	// One plain file: one column of benchmarks, nothing mixed.
	one := mustBuild(t, Options{}, plainPair[0])
	checkNoMixedCells(t, one)
	if got := rowLabels(one.Table("sec/op")); !slices.Equal(got, wantRows) {
		t.Errorf("one file: rows %q, want %q", got, wantRows)
	}
}

func TestProjectionsOnPlainFiles(t *testing.T) {
	rs, err := results.Load(plainPair...)
	if err != nil {
		t.Fatal(err)
	}
	// Rows by base name, columns by the sub-benchmark: .fullname
	// leaves out what the other projection uses.
	r, err := Build(rs, Options{Row: ".name", Filter: ".name:Lookup", Col: ".file"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowLabels(r.Table("sec/op")); !slices.Equal(got, []string{"Lookup"}) {
		t.Errorf("rows %q, want Lookup", got)
	}
	// A filter on a plain file's names, benchstat's syntax.
	r, err = Build(rs, Options{Filter: ".fullname:Lookup/wildcard-2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowLabels(r.Table("sec/op")); !slices.Equal(got, []string{"Lookup/wildcard-2"}) {
		t.Errorf("filtered rows %q", got)
	}
	// Explicit order in a projection also filters.
	r, err = Build(rs, Options{Row: ".fullname@(Refresh-2)"})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowLabels(r.Table("sec/op")); !slices.Equal(got, []string{"Refresh-2"}) {
		t.Errorf("rows %q, want only Refresh-2", got)
	}
	if _, err := Build(rs, Options{Filter: ".name:Nope"}); !errors.Is(err, ErrNoResults) || !strings.Contains(err.Error(), ".name:Nope") {
		t.Errorf("err = %v, want ErrNoResults naming the filter", err)
	}
}

func TestMixedFile(t *testing.T) {
	// Certbench and plain results in one file: every result gets its own
	// row by benchmark name, none lands in an empty scenario or store.
	r := mustBuild(t, Options{}, "testdata/mixed.txt")
	checkNoMixedCells(t, r)
	want := []string{
		"Churn/scenario=rotate-10-of-100/store=naive",
		"Churn/scenario=rotate-10-of-100/store=optimized",
		"Refresh-2",
		"Lookup/exact-2",
	}
	if got := rowLabels(r.Table("sec/op")); !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "2 of 4 benchmarks are not certbench's") && strings.Contains(w, `"Refresh-2"`)
	}) {
		t.Errorf("warnings %q lack the note about plain results", r.Warnings)
	}

	// Filtering down to certbench results compares the stores again.
	r = mustBuild(t, Options{Filter: "/scenario:rotate-10-of-100"}, "testdata/mixed.txt")
	if got := columnLabels(r); !slices.Equal(got, []string{"naive", "optimized"}) {
		t.Errorf("filtered columns %q, want the stores", got)
	}
	if got := rowLabels(r.Table("sec/op")); !slices.Equal(got, []string{"rotate-10-of-100"}) {
		t.Errorf("filtered rows %q", got)
	}
	// Columns by store with rows left to Build: the plain results have
	// no store and are dropped by the filter only when asked.
	r = mustBuild(t, Options{Col: "/store", Filter: "/store:(naive OR optimized)"}, "testdata/mixed.txt")
	if got := rowLabels(r.Table("sec/op")); !slices.Equal(got, []string{"rotate-10-of-100"}) {
		t.Errorf("store columns: rows %q", got)
	}

	// Two mixed files compared file against file.
	r = mustBuild(t, FileOptions(), "base=testdata/mixed.txt", "head=testdata/mixed.txt")
	checkNoMixedCells(t, r)
	if got := rowLabels(r.Table("allocs/op")); !slices.Equal(got, want) {
		t.Errorf("file comparison rows %q, want %q", got, want)
	}
	eachDelta(r, func(tb *Table, row *Row, _ Column, d *Delta) {
		if d.Significant {
			t.Errorf("%s %s: a file against itself: %v", tb.Unit, row.Label, d)
		}
	})
}

func TestDefaultProjections(t *testing.T) {
	for _, c := range []struct {
		row, col         string
		plain            bool
		wantRow, wantCol string
	}{
		{"", "", false, DefaultRow, DefaultCol},
		{"", ".file", false, "/scenario,/store", ".file"},
		{"", "/scenario", false, "/store", "/scenario"},
		{"", "/scenario,/store", false, NameRow, "/scenario,/store"},
		{"/scenario,/store", "", false, "/scenario,/store", results.FileKey},
		{".name", "", false, ".name", DefaultCol},
		{"", "", true, NameRow, NameCol},
		{"", "/store", true, NameRow, "/store"},
		{".name", "", true, ".name", NameCol},
		{"/a", "/b", true, "/a", "/b"},
	} {
		row, col := projections(c.row, c.col, c.plain)
		if row != c.wantRow || col != c.wantCol {
			t.Errorf("projections(%q, %q, plain=%v) = %q, %q, want %q, %q", c.row, c.col, c.plain, row, col, c.wantRow, c.wantCol)
		}
	}
}

func TestNothingInCommonNamesBenchmarks(t *testing.T) {
	a := writeFile(t, "a.txt", "BenchmarkRefresh-2 10 100 ns/op\n")
	b := writeFile(t, "b.txt", "BenchmarkLookup/exact-2 10 100 ns/op\n")
	rs, err := results.Load(a, b)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(rs, FileOptions())
	if !errors.Is(err, ErrNothingInCommon) {
		t.Fatalf("err = %v, want ErrNothingInCommon", err)
	}
	for _, want := range []string{a, b, "Refresh-2", "Lookup/exact-2"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q does not name %s", err, want)
		}
	}
	if strings.Contains(err.Error(), ".file") || strings.Contains(err.Error(), "fullname") {
		t.Errorf("err %q shows projections", err)
	}
}

func TestNameValues(t *testing.T) {
	rs, err := results.Load("testdata/mixed.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.NameValues(results.StoreKey); !slices.Equal(got, []string{"naive", "optimized"}) {
		t.Errorf("stores %q", got)
	}
	plain, err := results.Load(plainPair...)
	if err != nil {
		t.Fatal(err)
	}
	if got := plain.NameValues(results.StoreKey); got != nil {
		t.Errorf("plain files: stores %q, want none", got)
	}
	if results.IsCertbench(plain.Series[0].Result()) || !results.IsCertbench(rs.Series[0].Result()) {
		t.Error("IsCertbench is wrong")
	}
}

package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	goldenfile "github.com/certbench/certbench/internal/golden"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

func mustBuild(t *testing.T, opts Options, paths ...string) *Tables {
	t.Helper()
	rs, err := results.Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestGolden(t *testing.T) {
	cases := []struct {
		name  string
		opts  Options
		paths []string
	}{
		{"stores", Options{}, []string{"testdata/stores.txt"}},
		{"oldnew", FileOptions(), []string{"testdata/old.txt", "testdata/new.txt"}},
	}
	formats := []struct {
		ext   string
		write func(*Tables, *bytes.Buffer) error
	}{
		{"txt", func(r *Tables, b *bytes.Buffer) error { return writeText(r, b) }},
		{"md", func(r *Tables, b *bytes.Buffer) error { return writeMarkdown(r, b) }},
		{"csv", func(r *Tables, b *bytes.Buffer) error { return writeCSV(r, b) }},
		{"json", func(r *Tables, b *bytes.Buffer) error { return writeJSON(r, b) }},
	}
	for _, c := range cases {
		r := mustBuild(t, c.opts, c.paths...)
		for _, f := range formats {
			t.Run(c.name+"."+f.ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := f.write(r, &b); err != nil {
					t.Fatal(err)
				}
				if f.ext == "json" && !json.Valid(b.Bytes()) {
					t.Fatal("invalid JSON")
				}
				golden(t, c.name+"."+f.ext+".golden", b.Bytes())
			})
		}
	}
}

// eachDelta calls f for every comparison in r.
func eachDelta(r *Tables, f func(t *Table, row *Row, col Column, d *Delta)) int {
	n := 0
	for _, t := range r.Tables {
		for _, row := range t.Rows {
			for j, c := range row.Cells {
				if c != nil && c.Delta != nil {
					n++
					f(t, row, t.Columns[j], c.Delta)
				}
			}
		}
	}
	return n
}

func TestIdenticalInputsNotSignificant(t *testing.T) {
	data, err := os.ReadFile("testdata/old.txt")
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(t.TempDir(), "old-copy.txt")
	if err := os.WriteFile(copyPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustBuild(t, FileOptions(), "base=testdata/old.txt", "head="+copyPath)
	if got := []string{r.Columns[0].Label, r.Columns[1].Label}; !slices.Equal(got, []string{"base", "head"}) {
		t.Errorf("columns = %q, want base, head", got)
	}
	n := eachDelta(r, func(tb *Table, row *Row, _ Column, d *Delta) {
		if d.Significant || d.String() != "~" || d.Ratio != 1 {
			t.Errorf("%s %s: delta %s (significant=%v, ratio=%v), want ~", tb.Unit, row.Label, d, d.Significant, d.Ratio)
		}
	})
	if n != 6*6 {
		t.Errorf("got %d comparisons, want 36 (6 units x 6 rows)", n)
	}
	var text bytes.Buffer
	if err := writeText(r, &text); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(text.String(), "\n") {
		if strings.HasPrefix(line, "scenario=") && !regexp.MustCompile(` ~ +\(`).MatchString(line) {
			t.Errorf("line without ~: %q", line)
		}
	}
}

func TestSignificantDifference(t *testing.T) {
	r := mustBuild(t, FileOptions(), "testdata/old.txt", "testdata/new.txt")
	check := func(r *Tables, unit, row string, wantSig bool, wantSign int) {
		t.Helper()
		tb := r.Table(unit)
		if tb == nil {
			t.Fatalf("no %s table", unit)
		}
		i := slices.IndexFunc(tb.Rows, func(r *Row) bool { return r.Label == row })
		if i < 0 {
			t.Fatalf("%s: no row %s", unit, row)
		}
		d := tb.Rows[i].Cells[1].Delta
		if d.Significant != wantSig {
			t.Errorf("%s %s: significant = %v (p=%v), want %v", unit, row, d.Significant, d.Comparison.P, wantSig)
		}
		if wantSign != 0 && (d.Percent() > 0) != (wantSign > 0) {
			t.Errorf("%s %s: percent = %v, want sign %d", unit, row, d.Percent(), wantSign)
		}
		if wantSig && (d.String() == "~" || !strings.HasPrefix(d.String(), map[bool]string{true: "+", false: "-"}[wantSign > 0])) {
			t.Errorf("%s %s: String() = %q", unit, row, d)
		}
	}
	const fast = "scenario=rotate-10-of-100/store=optimized"
	check(r, "ns/op", fast, true, -1)
	check(r, "sec/op", "scenario=rotate-50-of-1000/store=optimized", true, -1)
	check(r, "sec/op", "scenario=rotate-10-of-100/store=naive", false, 0)
	check(r, "allocs/op", fast, true, -1)
	check(r, "allocs/op", "scenario=lookup-1000/store=naive", false, 0)
	if p := r.Table("allocs/op").Rows[1].Cells[1].Delta.Percent(); p != -25 {
		t.Errorf("allocs/op percent = %v, want -25", p)
	}
	d := r.Table("sec/op").Rows[1].Cells[1].Delta
	if d.Comparison.P >= 0.05 || d.Comparison.N1 != 6 || d.Comparison.N2 != 6 || d.Ratio > 0.8 {
		t.Errorf("comparison = %+v, ratio %v", d.Comparison, d.Ratio)
	}

	// Swapping the columns flips the sign.
	opts := FileOptions()
	opts.Columns = []string{"testdata/new.txt", "testdata/old.txt"}
	rs, _ := results.Load("testdata/old.txt", "testdata/new.txt")
	rev, err := Build(rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	check(rev, "sec/op", fast, true, +1)
}

func TestStoresAndColumnOrder(t *testing.T) {
	rs, err := results.Load("testdata/stores.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Columns[0].Label != "naive" || r.Tables[0].Unit != "sec/op" {
		t.Fatalf("columns %v, first unit %s", r.Columns, r.Tables[0].Unit)
	}
	var units []string
	for _, tb := range r.Tables {
		units = append(units, tb.Unit)
	}
	if want := []string{"sec/op", "B/op", "allocs/op", "retained-B", "retained-B/cert", "goroutines"}; !slices.Equal(units, want) {
		t.Errorf("units = %q, want %q", units, want)
	}
	d := r.Table("sec/op").Rows[0].Cells[1].Delta
	if !d.Significant || d.Percent() > -90 {
		t.Errorf("optimized vs naive: %v", d)
	}

	r2, err := Build(rs, Options{Columns: []string{"optimized", "naive"}})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Columns[0].Label != "optimized" {
		t.Errorf("baseline = %q, want optimized", r2.Columns[0].Label)
	}
	if d := r2.Table("sec/op").Rows[0].Cells[1].Delta; !d.Significant || d.Percent() < 1000 {
		t.Errorf("naive vs optimized: %v", d)
	}
	// Building again from the same Results gives the same report.
	var a, b bytes.Buffer
	writeJSON(r, &a)
	r3, _ := Build(rs, Options{})
	writeJSON(r3, &b)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("Build is not repeatable")
	}

	if _, err := Build(rs, Options{Columns: []string{"naive", "sharded"}}); err == nil || !strings.Contains(err.Error(), `"sharded"`) {
		t.Errorf("unknown column: err = %v", err)
	}
	if _, err := Build(rs, Options{Filter: "/store:nope"}); !errors.Is(err, ErrNoResults) {
		t.Errorf("empty filter: err = %v, want ErrNoResults", err)
	}
	if _, err := Build(rs, Options{Alpha: 2}); err == nil {
		t.Error("alpha 2: no error")
	}
	if _, err := Build(rs, Options{Row: "/scenario@"}); err == nil {
		t.Error("bad projection: no error")
	}
}

// writeFile writes content to name in a temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bench formats n samples of a benchmark line.
func bench(scenario, store string, n int, nsPerOp ...int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		for _, ns := range nsPerOp {
			b.WriteString("BenchmarkChurn/scenario=" + scenario + "/store=" + store +
				" 5 " + strconv.Itoa(ns+i) + " ns/op 100 B/op\n")
		}
	}
	return b.String()
}

func TestLoadErrors(t *testing.T) {
	t.Run("missing file", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "nope.txt")
		_, err := results.Load("testdata/old.txt", missing)
		if err == nil || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), missing) {
			t.Errorf("err = %v, want not-exist error naming %s", err, missing)
		}
	})
	t.Run("malformed line", func(t *testing.T) {
		bad := writeFile(t, "bad.txt", "goos: linux\n"+bench("a", "naive", 2, 100)+
			"BenchmarkChurn/scenario=a/store=naive 5 12x ns/op\n")
		_, err := results.Load(bad)
		var se *benchfmt.SyntaxError
		if err == nil || !strings.Contains(err.Error(), bad+":4:") || !errors.As(err, &se) || se.Line != 4 {
			t.Errorf("err = %v, want syntax error at %s:4", err, bad)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		empty := writeFile(t, "empty.txt", "")
		if _, err := results.Load(empty); err == nil || !strings.Contains(err.Error(), empty) || !strings.Contains(err.Error(), "no benchmark results") {
			t.Errorf("err = %v, want no-results error naming %s", err, empty)
		}
		configOnly := writeFile(t, "config.txt", "goos: linux\nPASS\nok  \tgithub.com/x\t0.1s\n")
		if _, err := results.Load(configOnly); err == nil || !strings.Contains(err.Error(), configOnly) {
			t.Errorf("err = %v, want error naming %s", err, configOnly)
		}
	})
	t.Run("no files", func(t *testing.T) {
		if _, err := results.Load(); err == nil {
			t.Error("no error")
		}
	})
	t.Run("conflicting unit metadata", func(t *testing.T) {
		a := writeFile(t, "a.txt", "Unit B/op assume=exact\n"+bench("a", "naive", 1, 100))
		b := writeFile(t, "b.txt", "Unit B/op assume=nothing\n"+bench("a", "naive", 1, 100))
		if _, err := results.Load(a, b); err == nil || !strings.Contains(err.Error(), b+":1") {
			t.Errorf("err = %v, want conflict naming %s:1", err, b)
		}
	})
}

func TestNothingInCommon(t *testing.T) {
	a := writeFile(t, "a.txt", bench("rotate-10-of-100", "naive", 6, 100))
	b := writeFile(t, "b.txt", bench("lookup-1000", "naive", 6, 100))
	rs, err := results.Load(a, b)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(rs, FileOptions())
	if !errors.Is(err, ErrNothingInCommon) || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) {
		t.Errorf("err = %v, want ErrNothingInCommon naming both files", err)
	}
	// Two stores that never share a scenario.
	c := writeFile(t, "c.txt", bench("x", "naive", 6, 100)+bench("y", "optimized", 6, 100))
	rs, _ = results.Load(c)
	if _, err := Build(rs, Options{}); !errors.Is(err, ErrNothingInCommon) {
		t.Errorf("stores: err = %v, want ErrNothingInCommon", err)
	}
}

func TestWarnings(t *testing.T) {
	t.Run("few samples", func(t *testing.T) {
		p := writeFile(t, "few.txt", bench("a", "naive", 3, 100)+bench("a", "optimized", 3, 200))
		r := mustBuild(t, Options{}, p)
		want := []string{
			"need >= 6 samples for confidence interval at level 0.95",
			"need >= 4 samples to detect a difference at alpha level 0.05",
		}
		for _, w := range want {
			if !slices.Contains(r.Warnings, w) {
				t.Errorf("warnings %q lack %q", r.Warnings, w)
			}
		}
		d := r.Table("sec/op").Rows[0].Cells[1].Delta
		if d.Significant || d.String() != "~" {
			t.Errorf("3 vs 3 samples: %v significant", d)
		}
		var text bytes.Buffer
		writeText(r, &text)
		// No "± ∞": no cell has an interval, which one note says (not a
		// footnote in every table); "~" for too few samples is one note.
		out := text.String()
		if strings.Contains(out, "± ∞") || strings.Contains(out, "¹") ||
			strings.Count(out, "note: every cell: no ± interval with fewer than 6 samples") != 1 ||
			strings.Count(out, "note: ~ where a cell has fewer than 4 samples") != 1 {
			t.Errorf("want no interval, one note saying why, and one note for ~:\n%s", out)
		}
		// With one cell of 6 samples, the others say why they have none.
		p = writeFile(t, "some.txt", bench("a", "naive", 6, 100)+bench("a", "optimized", 3, 200))
		text.Reset()
		writeText(mustBuild(t, Options{}, p), &text)
		if out := text.String(); strings.Contains(out, "every cell") || !strings.Contains(out, "¹ no ± interval with fewer than 6 samples") {
			t.Errorf("want a footnote on the cells with 3 samples:\n%s", out)
		}
	})
	t.Run("missing row", func(t *testing.T) {
		p := writeFile(t, "missing.txt", bench("a", "naive", 6, 100)+bench("a", "optimized", 6, 50)+
			bench("b", "naive", 6, 100)+bench("b", "optimized", 6, 50)+bench("c", "naive", 6, 100))
		r := mustBuild(t, Options{}, p)
		if !slices.Contains(r.Warnings, `"c" has no results in column "optimized"`) {
			t.Errorf("warnings = %q", r.Warnings)
		}
		g := r.Table("sec/op").Geomean
		if g == nil || g[1].Rows != 2 || len(g[1].Warnings) != 1 {
			t.Errorf("geomean = %+v", g)
		}
		var text bytes.Buffer
		writeText(r, &text)
		if !strings.Contains(text.String(), `note: "c" has no results in column "optimized"`) {
			t.Errorf("note missing:\n%s", text.String())
		}
	})
	t.Run("mixed inputs in one cell", func(t *testing.T) {
		r := mustBuild(t, Options{}, "testdata/old.txt", "testdata/new.txt")
		if !slices.Contains(r.Warnings, "benchmarks vary in certbench-version, .file") {
			t.Errorf("warnings = %q", r.Warnings)
		}
	})
	t.Run("one column", func(t *testing.T) {
		p := writeFile(t, "one.txt", bench("a", "naive", 6, 100))
		r := mustBuild(t, Options{}, p)
		if len(r.Columns) != 1 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "only one column") {
			t.Errorf("columns %v, warnings %q", r.Columns, r.Warnings)
		}
	})
}

func TestRead(t *testing.T) {
	rs, err := results.Read(strings.NewReader(bench("a", "naive", 6, 100)+bench("a", "optimized", 6, 300)), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	if rs.Samples() != 12 || !slices.Equal(rs.Files, []string{"stdin"}) || rs.Series[0].GetConfig(results.FileKey) != "stdin" {
		t.Fatalf("results %d, files %q", rs.Samples(), rs.Files)
	}
	r, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := r.Tables[0].Rows[0].Cells[1].Delta; !d.Significant || d.Ratio < 2.9 || d.Ratio > 3.1 {
		t.Errorf("delta %v ratio %v", d, d.Ratio)
	}
	if _, err := results.Read(strings.NewReader("BenchmarkX 1 1 ns/op\nBenchmarkY 1\n"), "in"); err == nil || !strings.Contains(err.Error(), "in:2:") {
		t.Errorf("err = %v, want in:2", err)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// The renderers as certbench compare calls them.
func writeText(r *Tables, w io.Writer) error     { return table.WriteText(w, r.Page()) }
func writeMarkdown(r *Tables, w io.Writer) error { return table.WriteMarkdown(w, r.Page()) }
func writeCSV(r *Tables, w io.Writer) error      { return table.WriteCSV(w, r.Page()) }
func writeJSON(r *Tables, w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

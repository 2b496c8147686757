package bench_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/internal/golden"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{41426675, "41426675"},
		{4.14266754e+07, "41426675.4"},
		{49.44, "49.44"},
		{0.2, "0.2"},
		{0.001, "0.001"},
		{0.00005, "0.00005"}, // %v gives 5e-05
		{1.0 / 3, "0.333333333"},
		{86332, "86332"},
		{86332.5, "86332.5"},
		{1462345678.7, "1462345679"}, // 10 digits before the point: an integer
		{1e21, "1000000000000000000000"},
		{-2, "-2"},
	} {
		if got := bench.FormatValue(tc.v); got != tc.want {
			t.Errorf("FormatValue(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// fixedConfig stands for the machine's configuration lines, so that the
// golden file does not depend on the machine.
var fixedConfig = []benchfmt.Config{
	{Key: "goos", Value: []byte("linux"), File: true},
	{Key: "cpu", Value: []byte("Test CPU @ 2.00GHz"), File: true},
}

// TestWriterGolden writes samples with values that %v would write with
// exponents, and fractional per-op counts, and checks the file against
// testdata/written.golden: plain decimals, 0.2 allocs/op (not 0), and
// unit lines decided from the samples.
func TestWriterGolden(t *testing.T) {
	samples := []bench.Sample{
		{Scenario: "noop-10000", Store: "naive", Ops: 3, NsPerOp: 1462345678.25, BytesPerOp: 152043520, AllocsPerOp: 1445123, RetainedBytes: 47185920, RetainedPerCert: 4718.592, Goroutines: 2},
		{Scenario: "noop-10000", Store: "naive", Ops: 3, NsPerOp: 41426675, BytesPerOp: 152043520, AllocsPerOp: 1445123, RetainedBytes: 0, RetainedPerCert: 0, Goroutines: 2},
		{Scenario: "lookup-1000", Store: "optimized", Ops: 20000, NsPerOp: 49.44, BytesPerOp: 6.4, AllocsPerOp: 0.2, Goroutines: 0},
		{Scenario: "lookup-1000", Store: "optimized", Ops: 20000, NsPerOp: 51.0625, BytesPerOp: 6.4016, AllocsPerOp: 0.20005, Goroutines: 0},
	}
	var buf bytes.Buffer
	w := bench.NewWriter(&buf)
	for _, s := range samples {
		if err := w.WriteResult(s.Result(fixedConfig, 2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteUnits(); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	golden.Check(t, filepath.Join("testdata", "written.golden"), buf.Bytes())

	// What regular-expression readers of benchmark output accept (the
	// pattern github-action-benchmark uses for a value and its unit).
	value := regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		f := strings.Fields(line)
		for i := 2; i < len(f); i += 2 {
			if !value.MatchString(f[i]) {
				t.Errorf("value %q (%s) in %q is not a plain decimal", f[i], f[i+1], line)
			}
		}
	}
	if strings.Contains(text, " 0 allocs/op") {
		t.Errorf("a sample that allocates 0.2 times per op written as 0 allocs/op:\n%s", text)
	}
	// goroutines: both benchmarks have 2 equal samples. B/op and
	// allocs/op differ between the lookup samples.
	units := readUnits(t, text)
	if units.GetAssumption(results.UnitGoroutines) != benchmath.AssumeExact {
		t.Errorf("goroutines not declared exact:\n%s", text)
	}
	for _, u := range []string{"B/op", "allocs/op"} {
		if units.GetAssumption(u) == benchmath.AssumeExact {
			t.Errorf("%s declared exact though the lookup samples differ:\n%s", u, text)
		}
	}
}

func TestWriterRejectsNonFinite(t *testing.T) {
	w := bench.NewWriter(&bytes.Buffer{})
	s := bench.Sample{Scenario: "x", Store: "y", Ops: 0, NsPerOp: 0}
	s.NsPerOp = s.NsPerOp / float64(s.Ops) // NaN
	if err := w.Write(s); err == nil {
		t.Error("a NaN ns/op was written")
	}
}

func readUnits(t *testing.T, text string) benchfmt.UnitMetadataMap {
	t.Helper()
	r := benchfmt.NewReader(strings.NewReader(text), "t.txt")
	for r.Scan() {
		if e, ok := r.Result().(*benchfmt.SyntaxError); ok {
			t.Fatalf("written file does not parse: %v", e)
		}
	}
	return r.Units()
}

func TestExactnessNeedsTwoSamples(t *testing.T) {
	s := bench.Sample{Scenario: "rotate-10-of-100", Store: "optimized", Ops: 10, NsPerOp: 31000, BytesPerOp: 86332, AllocsPerOp: 1184, Goroutines: 0}
	write := func(samples ...bench.Sample) string {
		var buf bytes.Buffer
		w := bench.NewWriter(&buf)
		for _, s := range samples {
			if err := w.Write(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.WriteUnits(); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	if text := write(s); strings.Contains(text, "assume=exact") {
		t.Errorf("one sample declared exact:\n%s", text)
	}
	two := write(s, s)
	for _, u := range bench.ExactUnits {
		if !strings.Contains(two, "Unit "+u+" assume=exact\n") {
			t.Errorf("two equal samples: %s not declared exact:\n%s", u, two)
		}
	}
	// One benchmark with a single sample makes the unit inexact for the
	// file: the unit line covers every benchmark.
	other := s
	other.Store = "naive"
	if text := write(s, s, other); strings.Contains(text, "assume=exact") {
		t.Errorf("a benchmark with one sample, yet declared exact:\n%s", text)
	}
	varied := s
	varied.BytesPerOp = 86890
	text := write(s, varied)
	if strings.Contains(text, "Unit B/op assume=exact") {
		t.Errorf("B/op varies, yet declared exact:\n%s", text)
	}
	if !strings.Contains(text, "Unit allocs/op assume=exact") {
		t.Errorf("allocs/op is the same in both samples, not declared exact:\n%s", text)
	}
}

// writeCount1 writes a file of one sample, as one `certbench run --count
// 1` of scripts/ci-compare.sh does, with the unit lines certbench wrote
// before exactness needed two samples: every count "exact".
func writeCount1(t *testing.T, dir, name string, s bench.Sample) string {
	t.Helper()
	var buf bytes.Buffer
	w := bench.NewWriter(&buf)
	if err := w.Write(s); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteUnits(); err != nil {
		t.Fatal(err)
	}
	// What certbench run --count 1 wrote before: every count "exact".
	buf.WriteString("Unit goroutines assume=exact\nUnit B/op assume=exact\nUnit allocs/op assume=exact\n")
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMergeRecomputesExactness(t *testing.T) {
	dir := t.TempDir()
	s := bench.Sample{Scenario: "rotate-10-of-100", Store: "optimized", Ops: 10, NsPerOp: 31000, BytesPerOp: 86332, AllocsPerOp: 1184}
	var paths []string
	for i, b := range []float64{86332, 86890, 86332, 86332} {
		s.BytesPerOp = b
		s.NsPerOp += float64(i)
		paths = append(paths, writeCount1(t, dir, "s"+string(rune('1'+i))+".txt", s))
	}
	var out bytes.Buffer
	n, err := bench.Merge(&out, paths...)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Errorf("merged %d results, want 4", n)
	}
	text := out.String()
	units := readUnits(t, text)
	if units.GetAssumption("B/op") == benchmath.AssumeExact {
		t.Errorf("merged B/op of 86332 and 86890 declared exact:\n%s", text)
	}
	for _, u := range []string{"allocs/op", results.UnitGoroutines} {
		if units.GetAssumption(u) != benchmath.AssumeExact {
			t.Errorf("%s is the same in all 4 samples, not declared exact:\n%s", u, text)
		}
	}
	if c := strings.Count(text, "Unit "); c != 2 {
		t.Errorf("%d unit lines, want 2 (allocs/op, goroutines):\n%s", c, text)
	}
	if c := strings.Count(text, "goos: "); c != 1 {
		t.Errorf("configuration written %d times, want once (it is the same in every file):\n%s", c, text)
	}

	// Merging the merged file with itself keeps the decision.
	p := filepath.Join(dir, "merged.txt")
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if _, err := bench.Merge(&again, p, p); err != nil {
		t.Fatal(err)
	}
	if u := readUnits(t, again.String()); u.GetAssumption("B/op") == benchmath.AssumeExact || u.GetAssumption("allocs/op") != benchmath.AssumeExact {
		t.Errorf("re-merged:\n%s", again.String())
	}
}

func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("BenchmarkX 10 12 ns/op\nBenchmarkY x 1 ns/op\n"), 0o644)
	if _, err := bench.Merge(&bytes.Buffer{}, bad); err == nil || !strings.Contains(err.Error(), "bad.txt:2") {
		t.Errorf("malformed line: error %v, want one naming bad.txt:2", err)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	if _, err := bench.Merge(&bytes.Buffer{}, empty); err == nil {
		t.Error("no results: no error")
	}
	if _, err := bench.Merge(&bytes.Buffer{}, filepath.Join(dir, "missing.txt")); err == nil {
		t.Error("missing file: no error")
	}
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("BenchmarkX 10 12 ns/op 3 hits\nUnit hits better=higher\n"), 0o644)
	os.WriteFile(b, []byte("BenchmarkX 10 12 ns/op 3 hits\nUnit hits better=lower\n"), 0o644)
	if _, err := bench.Merge(&bytes.Buffer{}, a, b); err == nil || !strings.Contains(err.Error(), "conflicts") {
		t.Errorf("conflicting unit lines: error %v", err)
	}
	var out bytes.Buffer
	if _, err := bench.Merge(&out, a, a); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(out.String(), "Unit hits better=higher\n"); c != 1 {
		t.Errorf("declared unit line written %d times, want once:\n%s", c, out.String())
	}
}

// A failure written before any result comes after the configuration
// lines, which the results after it do not repeat; one written later
// comes alone.
func TestWriteFailureConfiguration(t *testing.T) {
	var buf bytes.Buffer
	w := bench.NewWriter(&buf, "round", "3")
	if err := w.WriteFailure("Churn/scenario=s/store=boom", "panic in Update"); err != nil {
		t.Fatal(err)
	}
	s := bench.Sample{Scenario: "s", Store: "ok", Ops: 1, NsPerOp: 1}
	if err := w.Write(s); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFailure("Churn/scenario=s/store=boom", "panic in Update"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "goos: ") || strings.Count(out, "goos: ") != 1 || strings.Count(out, "round: 3\n") != 1 {
		t.Errorf("configuration lines not once, first:\n%s", out)
	}
	i := strings.Index(out, "--- FAIL: BenchmarkChurn/scenario=s/store=boom")
	if i < strings.Index(out, "round: 3\n") || strings.Count(out, "--- FAIL: ") != 2 || w.Failures() != 2 || w.Samples() != 1 {
		t.Errorf("%d failures, %d samples:\n%s", w.Failures(), w.Samples(), out)
	}
}

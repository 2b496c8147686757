package results_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
		if got := results.FormatValue(tc.v); got != tc.want {
			t.Errorf("FormatValue(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// sample is a results.Sample of certbench's usual units, as the runner
// (bench.Sample) makes them.
type sample struct {
	scenario, store             string
	ops                         int
	ns, bytes, allocs, retained float64
	retainedPerCert, goroutines float64
	extra                       []benchfmt.Value
}

func (s sample) Result(config []benchfmt.Config, procs int) *benchfmt.Result {
	name := results.ChurnName(s.scenario, s.store)
	if procs > 1 {
		name += fmt.Sprintf("-%d", procs)
	}
	return &benchfmt.Result{
		Config: config,
		Name:   benchfmt.Name(name),
		Iters:  s.ops,
		Values: append([]benchfmt.Value{
			{Value: s.ns, Unit: results.UnitNsPerOp},
			{Value: s.bytes, Unit: results.UnitBytes},
			{Value: s.allocs, Unit: results.UnitAllocs},
			{Value: s.retained, Unit: results.UnitRetained},
			{Value: s.retainedPerCert, Unit: results.UnitRetainedPerCert},
			{Value: s.goroutines, Unit: results.UnitGoroutines},
		}, s.extra...),
	}
}

// config returns File configuration of key/value pairs.
func config(kv ...string) []benchfmt.Config {
	var c []benchfmt.Config
	for i := 0; i+1 < len(kv); i += 2 {
		c = append(c, benchfmt.Config{Key: kv[i], Value: []byte(kv[i+1]), File: true})
	}
	return c
}

// fixedConfig stands for the machine's configuration lines, so that the
// golden file does not depend on the machine.
var fixedConfig = config("goos", "linux", "cpu", "Test CPU @ 2.00GHz", results.VersionKey, "v0.1.0")

// TestWriterGolden writes samples with values that %v would write with
// exponents, and fractional per-op counts, and checks the file against
// testdata/written.golden: plain decimals, 0.2 allocs/op (not 0), the
// comment lines of rounds and versions, unit lines decided from the
// samples and the closing line.
func TestWriterGolden(t *testing.T) {
	samples := []sample{
		{scenario: "noop-10000", store: "naive", ops: 3, ns: 1462345678.25, bytes: 152043520, allocs: 1445123, retained: 47185920, retainedPerCert: 4718.592, goroutines: 2},
		{scenario: "noop-10000", store: "naive", ops: 3, ns: 41426675, bytes: 152043520, allocs: 1445123, goroutines: 2},
		{scenario: "lookup-1000", store: "optimized", ops: 20000, ns: 49.44, bytes: 6.4, allocs: 0.2},
		{scenario: "lookup-1000", store: "optimized", ops: 20000, ns: 51.0625, bytes: 6.4016, allocs: 0.20005},
	}
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	for i, s := range samples {
		cfg := append(fixedConfig[:len(fixedConfig):len(fixedConfig)], config(results.RoundKey, fmt.Sprint(i/2+1))...)
		if err := w.WriteResult(s.Result(cfg, 2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
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
	if err := w.WriteResult(samples[0].Result(fixedConfig, 2)); err == nil {
		t.Error("a result written after Close")
	}
}

func TestWriterRejectsNonFinite(t *testing.T) {
	w := results.NewWriter(&bytes.Buffer{})
	zero := 0.0
	if err := w.Write(sample{scenario: "x", store: "y", ns: zero / zero}); err == nil {
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
	s := sample{scenario: "rotate-10-of-100", store: "optimized", ops: 10, ns: 31000, bytes: 86332, allocs: 1184}
	write := func(samples ...sample) string {
		var buf bytes.Buffer
		w := results.NewWriter(&buf)
		for _, s := range samples {
			if err := w.Write(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	if text := write(s); strings.Contains(text, "assume=exact") {
		t.Errorf("one sample declared exact:\n%s", text)
	}
	two := write(s, s)
	for _, u := range results.ExactUnits {
		if !strings.Contains(two, "Unit "+u+" assume=exact\n") {
			t.Errorf("two equal samples: %s not declared exact:\n%s", u, two)
		}
	}
	// One benchmark with a single sample makes the unit inexact for the
	// file: the unit line covers every benchmark.
	other := s
	other.store = "naive"
	if text := write(s, s, other); strings.Contains(text, "assume=exact") {
		t.Errorf("a benchmark with one sample, yet declared exact:\n%s", text)
	}
	varied := s
	varied.bytes = 86890
	text := write(s, varied)
	if strings.Contains(text, "Unit B/op assume=exact") {
		t.Errorf("B/op varies, yet declared exact:\n%s", text)
	}
	if !strings.Contains(text, "Unit allocs/op assume=exact") {
		t.Errorf("allocs/op is the same in both samples, not declared exact:\n%s", text)
	}
}

// writeFile writes content to name in dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeCount1 writes a file of one sample, as one `certbench run --count
// 1` of scripts/certbench-ci.sh does, with the unit lines certbench wrote
// before exactness needed two samples: every count "exact".
func writeCount1(t *testing.T, dir, name string, s sample, kv ...string) string {
	t.Helper()
	var buf bytes.Buffer
	w := results.NewWriter(&buf, kv...)
	if err := w.Write(s); err != nil {
		t.Fatal(err)
	}
	// What certbench run --count 1 wrote before: every count "exact".
	buf.WriteString("Unit goroutines assume=exact\nUnit B/op assume=exact\nUnit allocs/op assume=exact\n")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, buf.String())
}

func TestMergeRecomputesExactness(t *testing.T) {
	dir := t.TempDir()
	s := sample{scenario: "rotate-10-of-100", store: "optimized", ops: 10, ns: 31000, bytes: 86332, allocs: 1184}
	var paths []string
	for i, b := range []float64{86332, 86890, 86332, 86332} {
		s.bytes = b
		s.ns += float64(i)
		paths = append(paths, writeCount1(t, dir, fmt.Sprintf("s%d.txt", i+1), s, results.RoundKey, fmt.Sprint(i+1)))
	}
	var out bytes.Buffer
	n, err := results.Merge(&out, paths...)
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
	if c := strings.Count(text, "# round: "); c != 4 {
		t.Errorf("%d round comment lines, want one per merged file:\n%s", c, text)
	}

	// Merging the merged file with itself keeps the decision.
	p := writeFile(t, dir, "merged.txt", text)
	var again bytes.Buffer
	if _, err := results.Merge(&again, p, p); err != nil {
		t.Fatal(err)
	}
	if u := readUnits(t, again.String()); u.GetAssumption("B/op") == benchmath.AssumeExact || u.GetAssumption("allocs/op") != benchmath.AssumeExact {
		t.Errorf("re-merged:\n%s", again.String())
	}
}

func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.txt", "BenchmarkX 10 12 ns/op\nBenchmarkY x 1 ns/op\n")
	if _, err := results.Merge(&bytes.Buffer{}, bad); err == nil || !strings.Contains(err.Error(), "bad.txt:2") {
		t.Errorf("malformed line: error %v, want one naming bad.txt:2", err)
	}
	empty := writeFile(t, dir, "empty.txt", "")
	if _, err := results.Merge(&bytes.Buffer{}, empty); err == nil {
		t.Error("no results: no error")
	}
	if _, err := results.Merge(&bytes.Buffer{}, filepath.Join(dir, "missing.txt")); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := results.Merge(&bytes.Buffer{}); err == nil {
		t.Error("no files: no error")
	}
	a := writeFile(t, dir, "a.txt", "BenchmarkX 10 12 ns/op 3 hits\nUnit hits better=higher\n")
	b := writeFile(t, dir, "b.txt", "BenchmarkX 10 12 ns/op 3 hits\nUnit hits better=lower\n")
	if _, err := results.Merge(&bytes.Buffer{}, a, b); err == nil || !strings.Contains(err.Error(), "conflicts") {
		t.Errorf("conflicting unit lines: error %v", err)
	}
	var out bytes.Buffer
	if _, err := results.Merge(&out, a, a); err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(out.String(), "Unit hits better=higher\n"); c != 1 {
		t.Errorf("declared unit line written %d times, want once:\n%s", c, out.String())
	}
}

// TestNewWriterConfig: the machine's configuration, the certbench
// version as a comment line, extra pairs after them and a pair that names
// a machine key replacing its value.
func TestNewWriterConfig(t *testing.T) {
	var buf bytes.Buffer
	w := results.NewWriter(&buf, "goos", "plan9", "certs-count", "12", results.RoundKey, "3")
	if err := w.Write(sample{scenario: "a", store: "b", ops: 1, ns: 5}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"goos: plan9\n", "goarch: ", "\ncpu: ", "\ngo: go", "\ngomaxprocs: ", "certs-count: 12\n",
		"# " + results.VersionKey + ": " + results.Version() + "\n", "# round: 3\n", results.EndLine(1)} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if strings.Count(text, "goos:") != 1 || strings.Contains(text, "\nround:") || strings.Contains(text, "\ncertbench-version:") {
		t.Errorf("configuration lines:\n%s", text)
	}
	if !strings.HasSuffix(text, results.EndLine(1)) {
		t.Errorf("the closing line is not last:\n%s", text)
	}
}

// A failure written before any result comes after the configuration
// lines, which the results after it do not repeat; one written later
// comes alone.
func TestWriteFailureConfiguration(t *testing.T) {
	var buf bytes.Buffer
	w := results.NewWriter(&buf, results.RoundKey, "3")
	if err := w.WriteFailure("Churn/scenario=s/store=boom", "panic in Update"); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(sample{scenario: "s", store: "ok", ops: 1, ns: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFailure("Churn/scenario=s/store=boom", "panic in Update"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "goos: ") || strings.Count(out, "goos: ") != 1 || strings.Count(out, "# round: 3\n") != 1 {
		t.Errorf("configuration lines not once, first:\n%s", out)
	}
	i := strings.Index(out, "--- FAIL: BenchmarkChurn/scenario=s/store=boom")
	if i < strings.Index(out, "# round: 3\n") || strings.Count(out, "--- FAIL: ") != 2 || w.Failures() != 2 || w.Samples() != 1 {
		t.Errorf("%d failures, %d samples:\n%s", w.Failures(), w.Samples(), out)
	}
	// Read back: one sample, two failures, no warning (the file is
	// closed); merged, the failures are kept.
	rs, err := results.Read(strings.NewReader(out), "f.txt")
	if err != nil {
		t.Fatal(err)
	}
	if rs.Samples() != 1 || len(rs.Failures) != 2 || rs.Failures[0].Reason != "panic in Update" || rs.Failures[0].File != "f.txt" || len(rs.Warnings) != 0 {
		t.Errorf("read back: %d samples, failures %+v, warnings %v", rs.Samples(), rs.Failures, rs.Warnings)
	}
	var merged bytes.Buffer
	if _, err := results.Merge(&merged, writeFile(t, t.TempDir(), "f.txt", out)); err != nil {
		t.Fatal(err)
	}
	if strings.Count(merged.String(), "--- FAIL: ") != 2 || !strings.HasSuffix(merged.String(), results.EndLine(1)) {
		t.Errorf("merged:\n%s", merged.String())
	}
}

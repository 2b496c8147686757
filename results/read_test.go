package results_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// tempFile writes content to name in a temporary directory.
func tempFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const goodLine = "BenchmarkChurn/scenario=a/store=naive 10 1000 ns/op 100 B/op 10 allocs/op 5000 retained-B 50 retained-B/cert 0 goroutines\n"

// TestLoadRejectsBadValues: a NaN, infinite or negative value of any unit
// is an error naming file, line, the unit as written and the value, before
// any statistics (Mann-Whitney loops forever on NaN; negatives passed the
// gate as improvements).
func TestLoadRejectsBadValues(t *testing.T) {
	for _, unit := range results.KnownUnits() {
		for _, tc := range []struct{ value, why string }{
			{"NaN", "not a finite number"},
			{"+Inf", "not a finite number"},
			{"-Inf", "not a finite number"},
			{"-1", "negative, a measurement cannot be below zero"},
			{"-0.5", "negative, a measurement cannot be below zero"},
		} {
			t.Run(unit+"="+tc.value, func(t *testing.T) {
				content := "goos: linux\n" + goodLine +
					"BenchmarkChurn/scenario=a/store=naive 10 " + tc.value + " " + unit + "\n" + goodLine
				path := tempFile(t, "base.txt", content)
				want := fmt.Sprintf("%s:3: %s value %s: %s", path, unit, tc.value, tc.why)
				_, err := results.Load(path)
				var ve *results.ValueError
				if err == nil || err.Error() != want || !errors.As(err, &ve) || ve.Line != 3 || ve.Unit != unit {
					t.Errorf("Load: err = %v, want %q", err, want)
				}
				_, err = results.Read(strings.NewReader(content), "in")
				if want := fmt.Sprintf("in:3: %s value %s: %s", unit, tc.value, tc.why); err == nil || err.Error() != want {
					t.Errorf("Read: err = %v, want %q", err, want)
				}
			})
		}
	}
	// Negative zero is zero.
	if _, err := results.Read(strings.NewReader("BenchmarkX 1 -0 B/op\n"), "in"); err != nil {
		t.Errorf("-0 B/op: %v", err)
	}
}

// TestLoadNaNFixture is the case of the issue: one NaN sample among good
// ones.
func TestLoadNaNFixture(t *testing.T) {
	_, err := results.Load("reference.txt", "testdata/nan.txt")
	if want := "testdata/nan.txt:4: ns/op value NaN: not a finite number"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestLoadRejectsBadIterations(t *testing.T) {
	for _, n := range []string{"0", "-3"} {
		_, err := results.Read(strings.NewReader(goodLine+"BenchmarkX "+n+" 5 ns/op\n"), "in")
		var ie *results.IterationsError
		if want := "in:2: iteration count " + n + ": want at least 1"; err == nil || err.Error() != want || !errors.As(err, &ie) {
			t.Errorf("iterations %s: err = %v, want %q", n, err, want)
		}
	}
}

// TestLoadTruncated: a last line without its newline must parse whole.
func TestLoadTruncated(t *testing.T) {
	_, err := results.Load("testdata/truncated.txt")
	if err == nil || !strings.HasPrefix(err.Error(), "testdata/truncated.txt:3: ") ||
		!strings.Contains(err.Error(), `"al"`) || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("err = %v, want testdata/truncated.txt:3 naming unit \"al\" and truncation", err)
	}
	for _, tc := range []struct {
		name, content string
		ok            bool
	}{
		{"complete result", goodLine + strings.TrimSuffix(goodLine, "\n"), true},
		{"complete result, custom unit with newline", goodLine + "BenchmarkX 1 5 widgets\n", true},
		{"config line", goodLine + "goos: linux", true},
		{"trailing text", goodLine + "PASS", true},
		{"unit cut", goodLine + "BenchmarkX 10 1184 al", false},
		{"name only", goodLine + "BenchmarkChurn/scenario=a/sto", false},
		{"value without unit", goodLine + "BenchmarkX 10 1184", false},
		{"known unit cut to another known unit", goodLine + "BenchmarkX 10 1 B/op 5 retained-B", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := results.Read(strings.NewReader(tc.content), "in")
			if tc.ok && err != nil {
				t.Errorf("err = %v, want none", err)
			}
			if !tc.ok && (err == nil || !strings.HasPrefix(err.Error(), "in:2: ") || !strings.Contains(err.Error(), "truncated")) {
				t.Errorf("err = %v, want an error at in:2 about truncation", err)
			}
		})
	}
}

// TestUnknownUnitWarnings: units certbench does not know are read, with
// one warning per unit naming the first line.
func TestUnknownUnitWarnings(t *testing.T) {
	rs, err := results.Load("testdata/unknown-unit.txt")
	if err != nil {
		t.Fatal(err)
	}
	if rs.Samples() != 3 {
		t.Errorf("%d results, want 3", rs.Samples())
	}
	if len(rs.Warnings) != 2 {
		t.Fatalf("warnings %q, want 2", rs.Warnings)
	}
	var uw *results.UnknownUnitWarning
	if !errors.As(rs.Warnings[0], &uw) || uw.Unit != "al" || uw.Line != 2 || uw.Lines != 2 ||
		!strings.HasPrefix(rs.Warnings[0].Error(), `testdata/unknown-unit.txt:2: unit "al" `) {
		t.Errorf("first warning %q, want unit \"al\" at testdata/unknown-unit.txt:2, on 2 lines", rs.Warnings[0])
	}
	if !strings.HasPrefix(rs.Warnings[1].Error(), `testdata/unknown-unit.txt:4: unit "widgets" `) {
		t.Errorf("second warning %q, want unit \"widgets\" at line 4", rs.Warnings[1])
	}

	// Known units, as certbench run and go test -bench write them, and
	// the reference results: no warning.
	all := "BenchmarkX 1"
	for _, u := range results.KnownUnits() {
		all += " 1 " + u
	}
	rs, err = results.Load("reference.txt", tempFile(t, "all.txt", all+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Warnings) != 0 {
		t.Errorf("warnings on known units: %q", rs.Warnings)
	}
	for _, u := range []string{"ns/op", "sec/op", "MB/s", "B/s", "p50-ns", "p50-sec"} {
		if !results.IsKnownUnit(u) {
			t.Errorf("IsKnownUnit(%q) = false", u)
		}
	}
}

// TestUnknownUnitWarningsBounded: a file of many distinct unknown units
// gets a bounded number of warnings.
func TestUnknownUnitWarningsBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "BenchmarkX 1 5 u%d 6 same\n", i)
	}
	rs, err := results.Read(strings.NewReader(b.String()), "in")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rs.Warnings); n == 0 || n > 20 {
		t.Fatalf("%d warnings, want a few", n)
	}
	if last := rs.Warnings[len(rs.Warnings)-1].Error(); !strings.Contains(last, "more units") {
		t.Errorf("last warning %q does not count the rest", last)
	}
}

// TestLoadErrorMessages: errors name the file (and line), with no package
// prefix (gate and report print them too).
func TestLoadErrorMessages(t *testing.T) {
	dir := t.TempDir()
	long := goodLine + goodLine + "BenchmarkX 1 5 ns/op " + strings.Repeat("x", 70<<10) + "\n"
	bad := tempFile(t, "bad.txt", goodLine+"BenchmarkX 5 12x ns/op\n")
	empty := tempFile(t, "empty.txt", "goos: linux\n")
	longFile := tempFile(t, "long.txt", long)
	a := tempFile(t, "a.txt", "Unit B/op assume=exact\n"+goodLine)
	b := tempFile(t, "b.txt", goodLine+"Unit B/op assume=nothing\n")
	missing := filepath.Join(dir, "nope.txt")
	for _, tc := range []struct {
		name string
		args []string
		want string // prefix of the error
	}{
		{"directory", []string{dir}, dir + ": is a directory, want a result file"},
		{"missing", []string{missing}, "open " + missing + ": "},
		{"malformed", []string{bad}, bad + ":2: parsing measurement"},
		{"empty", []string{empty}, empty + ": no benchmark results"},
		{"long line", []string{longFile}, longFile + ":3: line longer than 64 KiB"},
		{"conflicting units", []string{a, b}, b + ":2: unit B/op"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := results.Load(tc.args...)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to start with %q", err, tc.want)
			}
		})
	}
	if _, err := results.Load(dir); err == nil || err.Error() != dir+": is a directory, want a result file" {
		t.Errorf("directory: err = %v", err)
	}
	if _, err := results.Load(longFile); !errors.Is(err, bufio.ErrTooLong) {
		t.Errorf("long line: %v does not wrap bufio.ErrTooLong", err)
	}
	_, err := results.Load(filepath.Join(dir, "nope.txt"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v does not wrap fs.ErrNotExist", err)
	}
	_, err = results.Load(tempFile(t, "bad.txt", goodLine+"BenchmarkX 5 12x ns/op\n"))
	var se *benchfmt.SyntaxError
	if !errors.As(err, &se) || se.Line != 2 {
		t.Errorf("malformed: %v is not a *benchfmt.SyntaxError at line 2", err)
	}
}

// TestLoadSeries: results of one name and configuration make one series,
// in input order; a configuration line in the middle of a file starts
// other series, and applies to the results after it only.
func TestLoadSeries(t *testing.T) {
	other := strings.Replace(goodLine, "store=naive", "store=optimized", 1)
	path := tempFile(t, "cfg.txt", "goos: linux\ngoarch: amd64\n"+goodLine+other+goodLine+"goos: darwin\n"+goodLine+goodLine)
	rs, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Samples() != 5 || len(rs.Series) != 3 {
		t.Fatalf("%d samples in %d series, want 5 in 3", rs.Samples(), len(rs.Series))
	}
	for i, want := range []struct {
		goos, store string
		n           int
	}{{"linux", "naive", 2}, {"linux", "optimized", 1}, {"darwin", "naive", 2}} {
		s := rs.Series[i]
		if got := s.GetConfig("goos"); got != want.goos || s.N != want.n || !strings.Contains(string(s.Name), want.store) {
			t.Errorf("series %d: %s, goos %q, %d samples; want %s, %q, %d", i, s.Name, got, s.N, want.store, want.goos, want.n)
		}
		if got := s.GetConfig(results.FileKey); got != path {
			t.Errorf("series %d: %s %q, want %q", i, results.FileKey, got, path)
		}
		if r := s.Result(); r.GetConfig("goos") != want.goos || string(r.Name) != string(s.Name) || len(r.Values) != 6 || r.Values[0].Unit != "sec/op" {
			t.Errorf("series %d: Result %s %v", i, r.Name, r.Values)
		}
	}
	if &rs.Series[0].Config[0] != &rs.Series[1].Config[0] {
		t.Error("series of one configuration do not share it")
	}
	m := rs.Series[0].Metric("ns/op")
	if m == nil || m.Unit != "sec/op" || len(m.Values) != 2 || math.Abs(m.Values[0]-1e-6) > 1e-15 || fmt.Sprint(m.Samples) != "[0 1]" {
		t.Errorf("ns/op of series 0: %+v", m)
	}
	// Values sorted, each with its sample; a unit missing from a
	// sample, and one given twice.
	rs, err = results.Read(strings.NewReader("BenchmarkX 1 5 ns/op\nBenchmarkX 1 6 ns/op 9 widgets\nBenchmarkX 1 8 widgets 7 widgets\n"), "in")
	if err != nil {
		t.Fatal(err)
	}
	w := rs.Series[0].Metric("widgets")
	if w == nil || fmt.Sprint(w.Values) != "[7 8 9]" || fmt.Sprint(w.Samples) != "[2 2 1]" {
		t.Errorf("widgets: %+v", w)
	}
	if ns := rs.Series[0].Metric("sec/op"); ns == nil || len(ns.Values) != 2 || ns.Sample(1) != 1 {
		t.Errorf("sec/op: %+v", ns)
	}
}

// TestLoadMemory: what Load keeps is less than the input (it was over five
// times the input, a deep copy of the configuration per result, then
// about twice with results sharing their configuration).
func TestLoadMemory(t *testing.T) {
	ref, err := os.ReadFile("reference.txt")
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	for _, l := range bytes.Split(ref, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("Benchmark")) {
			lines = append(lines, l)
		}
	}
	var b bytes.Buffer
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: AMD EPYC\ngo: go1.26.8\ncertbench-version: devel\ngomaxprocs: 2\n")
	for i := 0; b.Len() < 4<<20; i++ {
		l := lines[i%len(lines)]
		// A distinct sample: the iteration count changes.
		sp := bytes.IndexByte(l, ' ')
		fmt.Fprintf(&b, "%s %d%s\n", l[:sp], 10+i, l[sp+1+bytes.IndexByte(l[sp+1:], ' '):])
	}
	path := tempFile(t, "big.txt", b.String())
	size := b.Len()
	b = bytes.Buffer{}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rs, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("Load keeps %d bytes for a %d-byte file (%.2fx)", kept, size, float64(kept)/float64(size))
	if kept > int64(size) {
		t.Errorf("Load keeps %d bytes for %d results of a %d-byte file: more than the input", kept, rs.Samples(), size)
	}
	runtime.KeepAlive(rs)
}

// withStdin runs f with os.Stdin reading content.
func withStdin(t *testing.T, content string, f func()) {
	t.Helper()
	in, err := os.Open(tempFile(t, "stdin.txt", content))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	saved := os.Stdin
	os.Stdin = in
	defer func() { os.Stdin = saved }()
	f()
}

// TestLoadStdin: "-" reads standard input, labelled "-" or as given, with
// the checks of a file; it can be given once.
func TestLoadStdin(t *testing.T) {
	old := tempFile(t, "old.txt", goodLine)
	withStdin(t, goodLine+goodLine, func() {
		rs, err := results.Load(old, results.Stdin)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Samples() != 3 || len(rs.Files) != 2 || rs.Files[1] != "-" || len(rs.Series) != 2 {
			t.Fatalf("%d results from files %q, want 3 from %q and \"-\"", rs.Samples(), rs.Files, old)
		}
		if s := rs.Series[1]; s.GetConfig(results.FileKey) != "-" || s.N != 2 {
			t.Errorf("stdin series labelled %q with %d samples, want \"-\" with 2", s.GetConfig(results.FileKey), s.N)
		}
	})
	withStdin(t, goodLine, func() {
		rs, err := results.Load("base="+old, "head=-")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"base", "head"}; !slices.Equal(rs.Files, want) {
			t.Errorf("files %q, want %q", rs.Files, want)
		}
	})
	withStdin(t, goodLine, func() {
		_, err := results.Load("-", "x=-")
		if want := "x=-: standard input given twice"; err == nil || err.Error() != want {
			t.Errorf("stdin twice: err = %v, want %q", err, want)
		}
	})
	withStdin(t, goodLine+"BenchmarkX 10 1184 al", func() {
		_, err := results.Load("-")
		if want := results.StdinName + ":2: "; err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "truncated") {
			t.Errorf("truncated stdin: err = %v, want it to start with %q and say truncated", err, want)
		}
	})
	withStdin(t, "goos: linux\n", func() {
		_, err := results.Load("-")
		if want := results.StdinName + ": no benchmark results"; err == nil || err.Error() != want {
			t.Errorf("empty stdin: err = %v, want %q", err, want)
		}
	})
}

// TestLoadLabels: label=path, a file whose name has "=", and a repeated
// path.
func TestLoadLabels(t *testing.T) {
	dir := t.TempDir()
	eq := filepath.Join(dir, "a=b.txt")
	if err := os.WriteFile(eq, []byte(goodLine), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := tempFile(t, "p.txt", goodLine)
	rs, err := results.Load(eq, "base="+plain, plain, plain)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{eq, "base", plain, plain + "#1"}; !slices.Equal(rs.Files, want) {
		t.Errorf("files %q, want %q", rs.Files, want)
	}
}

// TestFolderHoldsResults: every *.txt in this folder is a result file, so
// that "certbench report results/*.txt" (as README suggests) reads them
// all; tables and notes go in .md files.
func TestFolderHoldsResults(t *testing.T) {
	paths, err := filepath.Glob("*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no *.txt: %v", err)
	}
	for _, p := range paths {
		if _, err := results.Load(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

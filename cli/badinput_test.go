package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// badInputFiles writes a base and a head result file (6 samples of two
// stores on one scenario) to a temporary directory; head's line 5 has
// value instead of its unit's.
func badInputFiles(t *testing.T, unit, value string) (base, head string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, bad bool) string {
		var b strings.Builder
		b.WriteString("goos: linux\ngoarch: amd64\n")
		for i := 0; i < 6; i++ {
			for _, st := range []string{"naive", "optimized"} {
				vals := map[string]string{
					"ns/op": fmt.Sprint(1000 + i), "B/op": "500", "allocs/op": "20",
					"retained-B": fmt.Sprint(4000 + i), "goroutines": "0",
				}
				if bad && strings.Count(b.String(), "\n") == 4 {
					vals[unit] = value
				}
				fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=%s 10 %s ns/op %s B/op %s allocs/op %s retained-B %s goroutines\n",
					st, vals["ns/op"], vals["B/op"], vals["allocs/op"], vals["retained-B"], vals["goroutines"])
			}
		}
		b.WriteString("Unit B/op assume=exact\nUnit allocs/op assume=exact\nUnit goroutines assume=exact\n")
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	return write("base.txt", false), write("head.txt", true)
}

// TestBadValues: a NaN, infinite or negative measurement is bad input
// (exit 2) for every command that reads result files, with an error
// naming file, line, unit and value. gate and compare used to allocate
// without bound on NaN, report to spin or panic; negatives passed the
// gate as improvements.
func TestBadValues(t *testing.T) {
	for _, unit := range []string{"ns/op", "B/op", "allocs/op", "retained-B", "goroutines"} {
		for _, value := range []string{"NaN", "+Inf", "-Inf", "-1"} {
			base, head := badInputFiles(t, unit, value)
			why := "not a finite number"
			if value == "-1" {
				why = "negative, a measurement cannot be below zero"
			}
			want := fmt.Sprintf("certbench: %s:5: %s value %s: %s\n", head, unit, value, why)
			for _, args := range [][]string{
				{"compare", base, head},
				{"compare", head},
				{"gate", base, head},
				{"gate", "--baseline", head, base},
				{"report", "-o", filepath.Join(t.TempDir(), "r.html"), base, head},
			} {
				t.Run(unit+"/"+value+"/"+args[0], func(t *testing.T) {
					code, _, errOut := run(t, args...)
					if code != cli.ExitUsage || errOut != want {
						t.Errorf("%s: exit %d, stderr %q; want exit %d, stderr %q", strings.Join(args, " "), code, errOut, cli.ExitUsage, want)
					}
				})
			}
		}
	}
	// The good file alone is fine.
	base, _ := badInputFiles(t, "ns/op", "1")
	if code, _, errOut := run(t, "gate", base, base); code != cli.ExitOK {
		t.Errorf("gate on good files: exit %d, stderr %s", code, errOut)
	}
}

// TestBadFiles: truncated files, directories and unknown units, through
// the commands; errors are not prefixed "compare:" whatever the command.
func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	truncated := "../results/testdata/truncated.txt"
	html := filepath.Join(dir, "r.html")
	// Cut at a line's end: whole lines, but no closing line.
	cut := filepath.Join(dir, "cut.txt")
	if err := os.WriteFile(cut, []byte("# certbench-version: v0.1.0\nBenchmarkChurn/scenario=s/store=a-2 10 100 ns/op 5 allocs/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"compare", "testdata/old.txt", truncated}, cli.ExitUsage, truncated + ":3: last line, without a newline, ends in unit \"al\""},
		{[]string{"gate", "testdata/old.txt", truncated}, cli.ExitUsage, truncated + ":3: "},
		{[]string{"gate", cut, cut}, cli.ExitUsage, cut + `: no closing "# certbench-end" line after its last result (line 2): the file looks truncated; 1 results read: the gate does not decide on part of a file`},
		{[]string{"report", "-o", html, truncated}, cli.ExitUsage, truncated + ":3: "},
		{[]string{"compare", dir}, cli.ExitUsage, "certbench: " + dir + ": is a directory, want a result file\n"},
		{[]string{"gate", dir, "testdata/old.txt"}, cli.ExitUsage, "certbench: " + dir + ": is a directory, want a result file\n"},
		{[]string{"report", "-o", html, dir}, cli.ExitUsage, "certbench: " + dir + ": is a directory, want a result file\n"},
		{[]string{"gate", "testdata/old.txt", "testdata/malformed.txt"}, cli.ExitUsage, "certbench: testdata/malformed.txt:2: "},
		{[]string{"report", "-o", html, "testdata/malformed.txt"}, cli.ExitUsage, "certbench: testdata/malformed.txt:2: "},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := run(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "compare:") {
				t.Errorf("exit %d, stderr %q; want exit %d, stderr with %q and no \"compare:\"", code, errOut, tc.code, tc.want)
			}
		})
	}
}

// TestUnknownUnitWarning: a unit certbench does not know is a warning on
// stderr, not an error.
func TestUnknownUnitWarning(t *testing.T) {
	file := "../results/testdata/unknown-unit.txt"
	want := "certbench: warning: " + file + ":2: unit \"al\" is not one certbench knows"
	for _, args := range [][]string{
		{"compare", file},
		{"report", "-o", filepath.Join(t.TempDir(), "r.html"), file},
	} {
		code, _, errOut := run(t, args...)
		if code != cli.ExitOK || !strings.Contains(errOut, want) || !strings.Contains(errOut, `"widgets"`) {
			t.Errorf("%s: exit %d, stderr %q; want exit 0 and warnings starting %q", args[0], code, errOut, want)
		}
	}
	code, _, errOut := run(t, "gate", file, file)
	if code == cli.ExitUsage || strings.Count(errOut, want) != 2 {
		t.Errorf("gate: exit %d, stderr %q; want a warning for each file", code, errOut)
	}
	// Files certbench wrote itself: no warning.
	if code, _, errOut := run(t, "compare", "testdata/old.txt", "testdata/new.txt"); code != cli.ExitOK || strings.Contains(errOut, "warning") {
		t.Errorf("compare old new: exit %d, stderr %q", code, errOut)
	}
}

// TestRunnerUnitsKnown: every unit the runner writes is one the readers
// know (the list lives in package compare, which must not import bench).
func TestRunnerUnitsKnown(t *testing.T) {
	for _, u := range []string{results.UnitRetained, results.UnitRetainedPerCert, results.UnitGoroutines,
		results.UnitP50, results.UnitP99, results.UnitP999, results.UnitRefreshRate, "ns/op", "B/op", "allocs/op"} {
		if !results.IsKnownUnit(u) {
			t.Errorf("bench writes %q, which compare does not know", u)
		}
	}
}

// TestCutFileWarning: a file certbench wrote, cut after a result line
// (its closing line lost), reads with a warning naming the file in
// compare, gate and report; the whole file and a plain go test -bench file
// read without one.
func TestCutFileWarning(t *testing.T) {
	dir := t.TempDir()
	var buf strings.Builder
	w := results.NewWriter(&buf)
	config := []benchfmt.Config{{Key: results.VersionKey, Value: []byte("v0.1.0"), File: true}}
	for i := range 6 {
		for j, store := range []string{"naive", "optimized"} {
			res := &benchfmt.Result{
				Config: config,
				Name:   benchfmt.Name(results.ChurnName("rotate-10-of-100", store) + "-2"),
				Iters:  5,
				Values: []benchfmt.Value{
					{Value: float64(1e6 * (j + 1) * (10 + i)), Unit: results.UnitNsPerOp},
					{Value: float64(900 * (j + 1)), Unit: results.UnitAllocs},
				},
			}
			if err := w.WriteResult(res); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	whole := buf.String()
	end := strings.LastIndex(whole, results.CommentPrefix+results.EndKey)
	if end < 0 {
		t.Fatalf("written file has no closing line:\n%s", whole)
	}
	full := filepath.Join(dir, "full.txt")
	cut := filepath.Join(dir, "cut.txt")
	if err := os.WriteFile(full, []byte(whole), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cut, []byte(whole[:end]), 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "r.html")
	want := "certbench: warning: " + cut + ": no closing"
	for _, tc := range []struct {
		args []string
		warn bool
	}{
		{[]string{"compare", cut}, true},
		{[]string{"report", "-o", html, cut}, true},
		{[]string{"compare", full}, false},
		{[]string{"gate", "--config=", full, full}, false},
		{[]string{"compare", "testdata/old.txt"}, false},
	} {
		code, _, errOut := run(t, tc.args...)
		if code == cli.ExitUsage {
			t.Errorf("%v: exit %d, stderr %s", tc.args, code, errOut)
		}
		if got := strings.Contains(errOut, "no closing"); got != tc.warn {
			t.Errorf("%v: warning %v, want %v; stderr %q", tc.args, got, tc.warn, errOut)
		} else if tc.warn && !strings.Contains(errOut, want) {
			t.Errorf("%v: stderr %q, want %q", tc.args, errOut, want)
		}
	}
	// The gate does not decide on part of a file: bad input.
	if code, _, errOut := run(t, "gate", "--config=", full, cut); code != cli.ExitUsage || !strings.Contains(errOut, cut+": no closing") {
		t.Errorf("gate of a cut file: exit %d, stderr %q; want %d naming it", code, errOut, cli.ExitUsage)
	}
}

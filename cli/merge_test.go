package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// writeRounds writes one result file per round, as one `certbench run
// --count 1` per round of scripts/ci-compare.sh does, with B/op taking
// the given values and everything else fixed but sec/op. Each file also
// carries the unit lines certbench wrote before exactness needed two
// samples (every count "exact"), as a base binary built before this
// change writes them: merge must not trust them.
func writeRounds(t *testing.T, dir, side string, bytesPerOp []float64) []string {
	t.Helper()
	var paths []string
	for i, b := range bytesPerOp {
		var buf bytes.Buffer
		w := results.NewWriter(&buf)
		s := bench.Sample{Scenario: "rotate-10-of-100", Store: "optimized", Ops: 10,
			NsPerOp: 310000 + float64((i*7919)%13)*1000, BytesPerOp: b, AllocsPerOp: 1184, Goroutines: 0,
			RetainedBytes: 51200, RetainedPerCert: 512}
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
		buf.WriteString("Unit goroutines assume=exact\nUnit B/op assume=exact\nUnit allocs/op assume=exact\n")
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("%s.%d.txt", side, i+1))
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// verdicts says, for one unit, whether compare, gate and benchmath (with
// the assumption the files declare) call the change significant.
type verdicts struct{ compare, gate, benchmath bool }

func judge(t *testing.T, basePath, headPath, unit string) verdicts {
	t.Helper()
	var v verdicts
	rs, err := results.Load(basePath, headPath)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := compare.Build(rs, compare.FileOptions())
	if err != nil {
		t.Fatal(err)
	}
	tb := rep.Table(unit)
	if tb == nil || len(tb.Rows) != 1 || tb.Rows[0].Cells[1] == nil || tb.Rows[0].Cells[1].Delta == nil {
		t.Fatalf("compare: no %s comparison", unit)
	}
	v.compare = tb.Rows[0].Cells[1].Delta.Significant

	base, err := results.Load(basePath)
	if err != nil {
		t.Fatal(err)
	}
	head, err := results.Load(headPath)
	if err != nil {
		t.Fatal(err)
	}
	verdict, err := gate.Evaluate(base, head, gate.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range verdict.Findings {
		if f.Unit == unit {
			found = true
			v.gate = f.Significant
		}
	}
	if !found {
		t.Fatalf("gate: no %s finding", unit)
	}

	// benchmath, as benchstat uses it, with the assumption the files
	// declare.
	assumption := rs.Units.GetAssumption(unit)
	th := &benchmath.Thresholds{CompareAlpha: 0.05}
	values := func(rs *results.Set) []float64 {
		var vs []float64
		for _, s := range rs.Series {
			if m := s.Metric(unit); m != nil {
				vs = append(vs, m.Values...)
			}
		}
		return vs
	}
	bs, hs := benchmath.NewSample(values(base), th), benchmath.NewSample(values(head), th)
	if assumption == benchmath.AssumeExact {
		// An exact comparison is a difference of the centers (P is
		// always 0).
		v.benchmath = assumption.Summary(bs, 0.95).Center != assumption.Summary(hs, 0.95).Center
	} else {
		v.benchmath = assumption.Compare(bs, hs).P < 0.05
	}
	return v
}

// TestCIArtifactsAgree builds the artifacts of scripts/ci-compare.sh from
// per-round files in which B/op varies slightly between rounds (86332 or
// 86890, as a map's growth can make it), merges them with certbench merge
// and checks that compare, gate and benchmath (and, unless -short,
// benchstat) give the same verdict: no significant B/op change, and no
// change in allocs/op, which is the same in every round. A head whose
// B/op does change is called changed by all of them.
func TestCIArtifactsAgree(t *testing.T) {
	dir := t.TempDir()
	lo, hi := 86332.0, 86890.0
	merge := func(name string, files []string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		code, _, stderr := run(t, append([]string{"merge", "-o", out}, files...)...)
		if code != cli.ExitOK {
			t.Fatalf("merge: exit %d: %s", code, stderr)
		}
		return out
	}
	base := merge("base.txt", writeRounds(t, dir, "base", []float64{hi, lo, hi, hi, lo, hi, lo, hi, hi, lo}))
	head := merge("head.txt", writeRounds(t, dir, "head", []float64{lo, lo, hi, lo, hi, lo, lo, hi, lo, lo}))
	changed := merge("changed.txt", writeRounds(t, dir, "changed", []float64{90112, 90112, 90112, 90112, 90112, 90112, 90112, 90112, 90112, 90112}))

	for _, p := range []string{base, head} {
		units := unitsOf(t, p)
		if units.GetAssumption("B/op") == benchmath.AssumeExact {
			t.Errorf("%s: B/op declared exact though its samples range from %v to %v", p, lo, hi)
		}
		if units.GetAssumption("allocs/op") != benchmath.AssumeExact {
			t.Errorf("%s: allocs/op, the same in every round, not declared exact", p)
		}
	}

	for _, tc := range []struct {
		head, unit string
		want       bool
	}{
		{head, "B/op", false},
		{head, "allocs/op", false},
		{changed, "B/op", true},
	} {
		got := judge(t, base, tc.head, tc.unit)
		if got.compare != tc.want || got.gate != tc.want || got.benchmath != tc.want {
			t.Errorf("%s vs %s, %s: significant in compare %v, gate %v, benchmath %v; want all %v",
				filepath.Base(base), filepath.Base(tc.head), tc.unit, got.compare, got.gate, got.benchmath, tc.want)
		}
	}

	if testing.Short() {
		t.Log("-short: benchstat not run")
		return
	}
	// benchstat itself: its B/op row says "~" (not significant) and no
	// "exact distribution expected" warning.
	cmd := exec.Command("go", "tool", "benchstat", base, head)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("go tool benchstat: %v\n%s", err, stderr.String())
	}
	text := string(out)
	if strings.Contains(text, "exact distribution expected") {
		t.Errorf("benchstat warns about an exact distribution:\n%s", text)
	}
	if row := benchstatRow(text, "B/op"); !strings.Contains(row, "~") {
		t.Errorf("benchstat B/op row %q, want ~ (not significant):\n%s", row, text)
	}
}

// benchstatRow returns the first benchmark row of benchstat's table for
// unit.
func benchstatRow(text, unit string) string {
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, unit) && strings.Contains(line, "│") && !strings.Contains(line, "scenario=") {
			in = true
			continue
		}
		if in && strings.Contains(line, "scenario=") {
			return line
		}
	}
	return ""
}

func unitsOf(t *testing.T, path string) benchfmt.UnitMetadataMap {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		if e, ok := r.Result().(*benchfmt.SyntaxError); ok {
			t.Fatalf("%v", e)
		}
	}
	return r.Units()
}

func TestMergeUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"merge"}, "requires at least 1 arg"},
		{[]string{"merge", "testdata/missing.txt"}, "testdata/missing.txt"},
		{[]string{"merge", "testdata/malformed.txt"}, "testdata/malformed.txt:2"},
		{[]string{"merge", "-o", "testdata/old.txt", "testdata/old.txt"}, "is also an input"},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, cli.ExitUsage, tc.want)
		}
	}
}

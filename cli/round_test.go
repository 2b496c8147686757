package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/results"
)

func TestRunWritesRound(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.txt")
	code, _, errOut := run(t, "run", "--stores", "optimized", "--scenarios", "lookup-1000", "--count", "1", "--ops", "4", "--round", "7", "-o", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rs, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rs.Series {
		for i := range s.N {
			if got := s.Round(i); got != "7" {
				t.Errorf("%s: round %q, want 7", s.Name, got)
			}
		}
	}
	if code, _, errOut := run(t, "run", "--round", "1 2", "--count", "1"); code != cli.ExitUsage || !strings.Contains(errOut, "--round") {
		t.Errorf("--round '1 2': exit %d, %s", code, errOut)
	}
}

// TestRoundsSurviveMergeAndCat writes one file per side and round, as
// scripts/certbench-ci.sh does with run --round, in which sec/op drifts
// by round far more than head's 6% slowdown, and checks that merged (and
// concatenated) files keep every sample's round, so that the gate pairs
// them and sees the slowdown that the U test on the same files does not.
func TestRoundsSurviveMergeAndCat(t *testing.T) {
	dir := t.TempDir()
	drift := []float64{1.0, 1.3, 0.9, 1.2, 0.8, 1.1, 1.4, 0.95}
	files := map[string][]string{}
	var cat = map[string]*bytes.Buffer{"base": {}, "head": {}}
	for i, d := range drift {
		for _, side := range []string{"base", "head"} {
			f := 1.0
			if side == "head" {
				f = 1.06
			}
			var buf bytes.Buffer
			w := results.NewWriter(&buf, results.RoundKey, fmt.Sprint(i+1))
			s := bench.Sample{Scenario: "rotate-10-of-100", Store: "optimized", Ops: 10,
				NsPerOp: 310000 * d * f, BytesPerOp: 86000, AllocsPerOp: 1184, RetainedBytes: 51200, RetainedPerCert: 512}
			if err := w.Write(s); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, fmt.Sprintf("%s.%d.txt", side, i+1))
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			files[side] = append(files[side], p)
			cat[side].Write(buf.Bytes())
		}
	}
	for _, side := range []string{"base", "head"} {
		args := append([]string{"merge", "-o", filepath.Join(dir, side+".txt")}, files[side]...)
		if code, _, errOut := run(t, args...); code != cli.ExitOK {
			t.Fatalf("merge %s: exit %d: %s", side, code, errOut)
		}
		if err := os.WriteFile(filepath.Join(dir, side+".cat.txt"), cat[side].Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := results.Load(filepath.Join(dir, side+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		var rounds []string
		for _, s := range rs.Series {
			rounds = append(rounds, s.Rounds...)
		}
		if got := strings.Join(rounds, ","); got != "1,2,3,4,5,6,7,8" {
			t.Errorf("merged %s: rounds %s, want 1..8", side, got)
		}
	}
	type finding struct {
		Unit, Method, Status string
		Pairs                int
		Ratio                *float64
	}
	gate := func(base, head string, extra ...string) finding {
		t.Helper()
		args := append([]string{"gate", "--config=", "--max", "sec/op=+3%", "--format", "json"}, extra...)
		_, out, errOut := run(t, append(args, filepath.Join(dir, base), filepath.Join(dir, head))...)
		var v struct{ Findings []finding }
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("gate %v: %v\n%s\n%s", extra, err, out, errOut)
		}
		for _, f := range v.Findings {
			if f.Unit == "sec/op" {
				return f
			}
		}
		t.Fatalf("gate %v: no sec/op finding", extra)
		return finding{}
	}
	for _, in := range [][2]string{{"base.txt", "head.txt"}, {"base.cat.txt", "head.cat.txt"}} {
		f := gate(in[0], in[1])
		if f.Method != "signed-rank" || f.Status != "regressed" || f.Pairs != len(drift) || f.Ratio == nil || *f.Ratio < 1.055 || *f.Ratio > 1.065 {
			t.Errorf("%s vs %s (auto): %+v, want a paired regression, ratio 1.06", in[0], in[1], f)
		}
		if f := gate(in[0], in[1], configFlag(t, "test: unpaired")); f.Method != "u-test" || f.Status != "unchanged" {
			t.Errorf("%s vs %s (test: unpaired): %+v, want the U test to miss it", in[0], in[1], f)
		}
	}
	if code, _, errOut := run(t, "gate", configFlag(t, "test: both"), filepath.Join(dir, "base.txt"), filepath.Join(dir, "head.txt")); code != cli.ExitUsage || !strings.Contains(errOut, `gate.test: "both"`) {
		t.Errorf("test: both: exit %d, %s", code, errOut)
	}
}

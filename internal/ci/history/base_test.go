package history

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
)

// headRun writes the results of a head whose levels are g's at commit c
// times step, as certbench run writes them, and loads them.
func headRun(t *testing.T, g gen, c int, step func(s int, unit string) float64) *results.Set {
	t.Helper()
	g.step = func(_, s int, u string) float64 { return step(s, u) }
	path := filepath.Join(t.TempDir(), "head.txt")
	if err := os.WriteFile(path, g.run(randFor(99), c), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := results.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestGateAgainstHistory gates heads against a generated history of 30
// commits: the simulated CPU's instructions/op (jitter 0.001%) and the
// counts must gate exactly, the clock (10-20% noise) pass when nothing
// changed; allocs/op step at commit 27, three commits before the newest.
func TestGateAgainstHistory(t *testing.T) {
	units := []string{results.UnitInstructions, results.UnitAllocs, results.UnitBytes, results.UnitNsPerOp}
	g := gen{commits: 30, scenarios: 3, samples: 5, units: units, seed: 11, step: func(c, s int, u string) float64 {
		if s == 1 && u == results.UnitAllocs && c >= 27 {
			return 1.001
		}
		return 1
	}}
	dir := t.TempDir()
	g.write(t, dir)
	base, used, err := Base(context.Background(), dirStore(dir), "", gate.DefaultHistoryCommits, results.InstrumentWall)
	if err != nil {
		t.Fatal(err)
	}
	if len(used) != gate.DefaultHistoryCommits || used[0].Hash != commitName(20) || used[len(used)-1].Hash != commitName(29) {
		t.Fatalf("window %v, want c00020..c00029", used)
	}
	now := func(s int, u string) float64 { return g.step(29, s, u) } // main's newest levels
	for _, tc := range []struct {
		name string
		step func(s int, u string) float64
		want gate.Status // of scenario 0's instructions/op
		pass bool
	}{
		{"unchanged", now, gate.Unchanged, true},
		{"instructions +0.3%", func(s int, u string) float64 {
			if s == 0 && u == results.UnitInstructions {
				return 1.003
			}
			return now(s, u)
		}, gate.Regressed, false},
		{"instructions +0.2%, within +0.25%", func(s int, u string) float64 {
			if s == 0 && u == results.UnitInstructions {
				return 1.002
			}
			return now(s, u)
		}, gate.Unchanged, true},
		{"one allocation more", func(s int, u string) float64 {
			if s == 0 && u == results.UnitAllocs {
				return 1 + 1/(1000*float64(len(u))) // scenario 0 makes 1000 x len(unit) allocs/op (gen.value)
			}
			return now(s, u)
		}, gate.Unchanged, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := gate.Evaluate(base, headRun(t, g, 29, tc.step), gate.DefaultPolicy())
			if err != nil {
				t.Fatal(err)
			}
			var regressed []string
			for _, f := range v.Findings {
				if f.Status == gate.Regressed {
					regressed = append(regressed, f.Scenario+" "+f.Unit)
				}
				switch {
				case f.Scenario == "s00" && f.Unit == results.UnitInstructions && f.Status != tc.want:
					t.Errorf("instructions/op of s00: %s (%s), want %s", f.Status, f.Note, tc.want)
				case f.Scenario == "s01" && f.Unit == results.UnitAllocs && (f.Method != gate.Exact || f.BaseN != 3*g.samples):
					// The step at c00027: the base is the newest three commits' samples.
					t.Errorf("allocs/op of s01: %s with %d base samples, want exact of 3 commits x %d", f.Method, f.BaseN, g.samples)
				case f.Unit == results.UnitNsPerOp && f.BaseN != gate.DefaultHistoryCommits:
					t.Errorf("sec/op of %s: %d base values, want one per commit", f.Scenario, f.BaseN)
				}
			}
			if v.Passed() != tc.pass {
				t.Errorf("passed %v, want %v: regressed %v; %s", v.Passed(), tc.pass, regressed, v.Summary())
			}
			if !tc.pass && tc.want == gate.Unchanged && !strings.Contains(strings.Join(regressed, ","), "s00 allocs/op") {
				t.Errorf("regressed %v, want s00 allocs/op", regressed)
			}
		})
	}
}

func TestBaseBadInput(t *testing.T) {
	ctx := context.Background()
	empty := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", empty).CombinedOutput(); err != nil {
		t.Skipf("git init: %v: %s", err, out)
	}
	dir := t.TempDir()
	gen{commits: 3, scenarios: 1, samples: 2, units: []string{results.UnitAllocs}}.write(t, dir)
	for _, tc := range []struct {
		name       string
		st         Store
		at, instr  string
		wantErrSub string
	}{
		{"no directory", dirStore(filepath.Join(empty, "nosuch")), "", results.InstrumentWall, "no such file"},
		{"empty", dirStore(empty), "", results.InstrumentWall, "no commits stored"},
		{"commit not in it", dirStore(dir), "deadbeef", results.InstrumentWall, "commit deadbeef is not in the history (its newest is c00002)"},
		{"other instrument", dirStore(dir), "", results.InstrumentSimulate, "no results measured by " + results.InstrumentSimulate + " in its 3 commit(s) up to c00002"},
		{"no such ref", &gitStore{ref: "refs/notes/nosuch", dir: empty}, "", results.InstrumentWall, "git:refs/notes/nosuch: no such ref"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Base(ctx, tc.st, tc.at, 10, tc.instr)
			if err == nil || !strings.Contains(err.Error(), tc.wantErrSub) {
				t.Errorf("error %v, want one with %q", err, tc.wantErrSub)
			}
		})
	}
	// At a commit: the window ends there.
	_, used, err := Base(ctx, dirStore(dir), "c00001", 10, results.InstrumentWall)
	if err != nil || len(used) != 2 || used[1].Hash != "c00001" {
		t.Errorf("at c00001: %v, %v", used, err)
	}
}

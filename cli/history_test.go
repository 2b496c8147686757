package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// historyRun writes a result file of one scenario whose allocs/op are allocs.
func historyRun(t *testing.T, allocs float64) string {
	t.Helper()
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	for range 3 {
		w.WriteResult(&benchfmt.Result{Config: []benchfmt.Config{{Key: results.VersionKey, Value: []byte("v0.0.0-test"), File: true}}, Name: benchfmt.Name(results.ChurnName("rotate", "naive")), Iters: 1, Values: []benchfmt.Value{
			{Value: allocs, Unit: "allocs/op"}, {Value: 1e6, Unit: "ns/op"}}})
	}
	w.Close()
	path := filepath.Join(t.TempDir(), "run.txt")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHistoryAddConcurrentAndChanges(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	t.Chdir(repo)
	const n = 16 // allocs/op step from 1,000 to 1,001 at commit 8
	files := make([]string, n)
	for c := range n {
		files[c] = historyRun(t, 1000+float64(c/8))
	}
	var wg sync.WaitGroup
	for c := range n { // all at once, as CI jobs of several commits
		wg.Go(func() {
			var out, errb bytes.Buffer
			args := []string{"history", "add", "--history", "git:refs/notes/certbench", "--commit", fmt.Sprintf("c%02d", c),
				"--time", fmt.Sprintf("2026-01-01T%02d:00:00Z", c), files[c]}
			if code := cli.Main(args, &out, &errb); code != 0 {
				t.Errorf("history add %d: exit %d: %s", c, code, errb.String())
			}
		})
	}
	wg.Wait()
	var out, errb bytes.Buffer
	if code := cli.Main([]string{"history", "changes", "--history", "git:refs/notes/certbench", "--format", "json", "--since", "c03"}, &out, &errb); code != 0 {
		t.Fatalf("history changes: exit %d: %s", code, errb.String())
	}
	var r struct {
		Commits int
		Changes []struct{ Unit, Commit, Previous string }
		Creep   []struct {
			Unit        string
			Significant bool
		}
	}
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Commits != n {
		t.Fatalf("%d concurrent adds: %d commits in the history", n, r.Commits)
	}
	if len(r.Changes) != 1 || r.Changes[0].Unit != "allocs/op" || r.Changes[0].Commit != "c08" || r.Changes[0].Previous != "c07" {
		t.Errorf("changes %+v, want allocs/op at c08 after c07", r.Changes)
	}
	for _, d := range r.Creep {
		if d.Significant != (d.Unit == "allocs/op") {
			t.Errorf("drift of %s since c03: significant %v", d.Unit, d.Significant)
		}
	}

	// A truncated file is refused, named, exit 2; the history keeps its files.
	data, _ := os.ReadFile(files[0])
	cut := filepath.Join(t.TempDir(), "cut.txt")
	os.WriteFile(cut, data[:bytes.LastIndex(data, []byte("Unit"))], 0o644)
	errb.Reset()
	if code := cli.Main([]string{"history", "add", "--history", "git:refs/notes/certbench", "--commit", "c99", "--time", "2026-02-01T00:00:00Z", cut}, &out, &errb); code != 2 || !strings.Contains(errb.String(), cut) {
		t.Errorf("add of a truncated file: exit %d, %q; want 2 naming %s", code, errb.String(), cut)
	}
	out.Reset()
	if code := cli.Main([]string{"history", "changes", "--history", "git:refs/notes/certbench"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "over 16 commits") {
		t.Errorf("history changes after a refused add: exit %d:\n%s", code, out.String())
	}
	t.Log(out.String())

	// --commit HEAD is the repository's commit, with its time.
	if out, err := exec.Command("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x").CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v: %s", err, out)
	}
	head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	dir := filepath.Join(t.TempDir(), "h")
	if code := cli.Main([]string{"history", "add", "--history", dir, "--commit", "HEAD", files[0]}, &out, &errb); code != 0 {
		t.Fatalf("history add --commit HEAD: exit %d: %s", code, errb.String())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, strings.TrimSpace(string(head))+"-*.txt")); len(m) != 1 {
		t.Errorf("history add --commit HEAD stored no file named by HEAD's hash %s", head)
	}
}

// TestGateHistory gates head files against a history in a git ref with
// no base run: allocs/op step from 1,000 to 1,001 at commit c08 of 12.
func TestGateHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	t.Chdir(repo)
	const ref = "git:refs/notes/certbench"
	for c := range 12 {
		var out, errb bytes.Buffer
		args := []string{"history", "add", "--history", ref, "--commit", fmt.Sprintf("c%02d", c),
			"--time", fmt.Sprintf("2026-01-%02dT00:00:00Z", c+1), historyRun(t, 1000+float64(c/8))}
		if code := cli.Main(args, &out, &errb); code != 0 {
			t.Fatalf("history add %d: exit %d: %s", c, code, errb.String())
		}
	}
	same, more := historyRun(t, 1001), historyRun(t, 1002)
	data, _ := os.ReadFile(same)
	sim := filepath.Join(t.TempDir(), "sim.txt")
	os.WriteFile(sim, append([]byte("instrument: simulate\n"), data...), 0o644)
	noClock := []string{"--config=", "--max", "sec/op=off"} // historyRun's 3 samples are too few for a clock
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"unchanged", []string{"--history", ref, same}, cli.ExitOK,
			"history: base from 10 commit(s) of main, oldest first: c02 2026-01-03, c03 2026-01-04, c04 2026-01-05, c05 2026-01-06, c06 2026-01-07, c07 2026-01-08, c08 2026-01-09, c09 2026-01-10, c10 2026-01-11, c11 2026-01-12", ""},
		{"one allocation more", []string{"--history", ref, more}, cli.ExitRegression, "FAIL: 1 regression", ""},
		{"at the merge base, before the step", []string{"--history", ref, "--history-at", "c05", configFlag(t, "history_commits: 4"), same}, cli.ExitRegression,
			"history: base from 4 commit(s) of main, oldest first: c02 2026-01-03, c03 2026-01-04, c04 2026-01-05, c05 2026-01-06", ""},
		{"commit not in the history", []string{"--history", ref, "--history-at", "c99", same}, cli.ExitUsage, "", "--history git:refs/notes/certbench: commit c99 is not in the history (its newest is c11)"},
		{"no such ref", []string{"--history", "git:refs/notes/nosuch", same}, cli.ExitUsage, "", "certbench: --history git:refs/notes/nosuch: no such ref"},
		{"empty directory", []string{"--history", t.TempDir(), same}, cli.ExitUsage, "", "no commits stored"},
		{"other instrument", []string{"--history", ref, sim}, cli.ExitUsage, "", "no results measured by simulate"},
		{"no head files", []string{"--history", ref}, cli.ExitUsage, "", "with --history, give HEAD's result files"},
		{"and a baseline", []string{"--history", ref, "--baseline", same, more}, cli.ExitUsage, "", "not --baseline"},
		{"at without history", []string{"--history-at", "c05", same, more}, cli.ExitUsage, "", "--history-at: only with --history"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runGate(t, append(slices.Clone(noClock), tc.args...)...)
			if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
				t.Errorf("exit %d, want %d with %q in stdout, %q in stderr\nstdout:\n%s\nstderr:\n%s", code, tc.code, tc.stdout, tc.stderr, out, errOut)
			}
		})
	}
}

// TestHistoryBackfill backfills a range of a scratch repository whose
// "certbench binary" is a stand-in the build command writes (its run
// copies a prepared result file): every commit is stored but the one that
// does not build, and a second backfill stores nothing again.
func TestHistoryBackfill(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	gitIn := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	gitIn("init", "-q", "-b", "main")
	for i := range 4 {
		if i == 2 {
			os.WriteFile(filepath.Join(repo, "broken"), nil, 0o644)
			gitIn("add", "broken")
		} else if i == 3 {
			gitIn("rm", "-q", "broken")
		}
		gitIn("commit", "-q", "--allow-empty", "-m", fmt.Sprint("c", i))
	}
	t.Chdir(repo)
	t.Setenv("TMPDIR", t.TempDir()) // the build log of the broken commit
	build := `test ! -f broken && printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ "$1" = -o ]; then cp %s "$2"; fi; shift; done\n' ` + historyRun(t, 1000) +
		` >"$CERTBENCH_BIN" && chmod +x "$CERTBENCH_BIN"`
	hist := filepath.Join(t.TempDir(), "h")
	backfill := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := cli.Main(append([]string{"ab", "--history", hist, "--record", "--build", build, "--cache", ""}, args...), &out, &errb)
		return code, errb.String()
	}
	code, log := backfill("main~3..main") // c1, c2 (broken), c3
	stored, _ := filepath.Glob(filepath.Join(hist, "*.txt"))
	if code != 0 || len(stored) != 2 || !strings.Contains(log, "2 of 3 commits stored") || !strings.Contains(log, gitIn("rev-parse", "--short=12", "main~1")+" (2 of 3): skipped") {
		t.Errorf("backfill: exit %d, %d files stored, want 2 (the broken commit skipped)\n%s", code, len(stored), log)
	}
	if c3 := gitIn("rev-parse", "main"); len(stored) > 0 && !slices.ContainsFunc(stored, func(p string) bool { return strings.HasPrefix(filepath.Base(p), c3+"-") }) {
		t.Errorf("no file of %s among %v", c3, stored)
	}
	if code, log := backfill("main~3..main"); code != 0 || !strings.Contains(log, "0 of 3 commits stored") || strings.Count(log, "stored already") != 2 {
		t.Errorf("second backfill: exit %d\n%s", code, log)
	}
	gitIn("checkout", "-q", "main~2")
	if code, log := backfill("main~3..main"); code != 2 || !strings.Contains(log, "not an ancestor of HEAD") {
		t.Errorf("a range past HEAD: exit %d, want 2\n%s", code, log)
	}
}

// TestGateHistoryInstructions is the criterion at the command
// line: against 10 commits of simulated-CPU results (instructions/op
// jittering by 0.001%), a head +0.3% fails (exit 1) and an unchanged one
// passes (exit 0), with no base run.
func TestGateHistoryInstructions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	simRun := func(instructions float64) string {
		var buf bytes.Buffer
		w := results.NewWriter(&buf)
		cfg := []benchfmt.Config{{Key: results.VersionKey, Value: []byte("v0.0.0-test"), File: true}, {Key: results.InstrumentKey, Value: []byte(results.InstrumentSimulate), File: true}}
		for range 5 {
			w.WriteResult(&benchfmt.Result{Config: cfg, Name: benchfmt.Name(results.ChurnName("rotate-10-of-100", "optimized")), Iters: 1, Values: []benchfmt.Value{
				{Value: math.Round(instructions * (1 + 1e-5*r.NormFloat64())), Unit: "instructions/op"}, {Value: 562, Unit: "allocs/op"}}})
		}
		w.Close()
		path := filepath.Join(t.TempDir(), "sim.txt")
		os.WriteFile(path, buf.Bytes(), 0o644)
		return path
	}
	hist := filepath.Join(t.TempDir(), "h")
	for c := range 10 {
		var out, errb bytes.Buffer
		args := []string{"history", "add", "--history", hist, "--commit", fmt.Sprintf("c%02d", c), "--time", fmt.Sprintf("2026-01-%02dT00:00:00Z", c+1), simRun(2.675e6)}
		if code := cli.Main(args, &out, &errb); code != 0 {
			t.Fatalf("history add: exit %d: %s", code, errb.String())
		}
	}
	for _, tc := range []struct {
		name   string
		factor float64
		code   int
	}{{"unchanged", 1, cli.ExitOK}, {"+0.3%", 1.003, cli.ExitRegression}} {
		code, out, errOut := runGate(t, "--config=", "--history", hist, simRun(2.675e6*tc.factor))
		if code != tc.code || !strings.Contains(out, "history: base from 10 commit(s)") {
			t.Errorf("%s: exit %d, want %d\n%s%s", tc.name, code, tc.code, out, errOut)
		}
		if tc.code == cli.ExitRegression && !strings.Contains(out, "instructions/op") {
			t.Errorf("%s: the regression does not name instructions/op:\n%s", tc.name, out)
		}
	}
}

package ab

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// TestRunHistory records four commits of main in a history directory
// (Record), gates a pull request against them with no base run (the same
// allocations: pass; one more: regressed), and falls back to an A/B run,
// saying why, when the merge base is not recorded. The "certbench binary"
// copies $RESULTS to run's -o file.
func TestRunHistory(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	repo, dir := t.TempDir(), t.TempDir()
	fake, hist := filepath.Join(dir, "fake"), filepath.Join(dir, "history")
	script := "#!/bin/sh\nprev=\nfor a; do [ \"$prev\" = -o ] && cp \"$RESULTS\" \"$a\"; prev=$a; done\nexit 0\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	resultFile := func(allocs int) string {
		var buf bytes.Buffer
		w := results.NewWriter(&buf)
		for range 6 {
			w.WriteResult(&benchfmt.Result{Config: []benchfmt.Config{{Key: results.VersionKey, Value: []byte("v0.0.0-test"), File: true}},
				Name: benchfmt.Name(results.ChurnName("s", "a")), Iters: 1, Values: []benchfmt.Value{{Value: float64(allocs), Unit: "allocs/op"}}})
		}
		w.Close()
		path := filepath.Join(dir, fmt.Sprint(allocs, ".txt"))
		os.WriteFile(path, buf.Bytes(), 0o644)
		return path
	}
	same, more := resultFile(10), resultFile(11)
	t.Chdir(repo)
	run := func(results string, record bool) (*Outcome, string) {
		t.Helper()
		t.Setenv("RESULTS", results)
		var log bytes.Buffer
		rep, err := Run(t.Context(), RunOptions{Build: "cp " + fake + ` "$CERTBENCH_BIN"`, BaseRef: "main", Count: 6, History: hist, Record: record,
			Policy: gate.PolicyFlags{NoConfig: true}, Out: filepath.Join(dir, "out"), Log: &log})
		if err != nil {
			t.Fatalf("Run: %v\n%s", err, log.String())
		}
		return rep, log.String()
	}
	gitIn("init", "-q", "-b", "main")
	for i := range 4 {
		gitIn("commit", "-q", "--allow-empty", "-m", fmt.Sprint("main ", i))
		if rep, log := run(same, true); !strings.Contains(string(rep.Summary), "recorded") || rep.Wall != nil {
			t.Fatalf("record %d: summary %q\n%s", i, rep.Summary, log)
		}
	}
	if stored, _ := filepath.Glob(filepath.Join(hist, "*.txt")); len(stored) != 4 {
		t.Fatalf("history holds %d files, want 4", len(stored))
	}
	gitIn("checkout", "-q", "-b", "pr")
	gitIn("commit", "-q", "--allow-empty", "-m", "pr")
	for allocs, want := range map[string]bool{same: true, more: false} {
		rep, log := run(allocs, false)
		if rep.Wall == nil || rep.Passed() != want || strings.Contains(log, "building base") || !strings.Contains(string(rep.Summary), "main's history") {
			t.Errorf("%s against the history: passed %v, want %v, with no base built\n%s\n%s", filepath.Base(allocs), rep.Passed(), want, rep.Summary, log)
		}
	}
	gitIn("checkout", "-q", "main")
	gitIn("commit", "-q", "--allow-empty", "-m", "main unrecorded")
	gitIn("checkout", "-q", "-b", "pr2")
	gitIn("commit", "-q", "--allow-empty", "-m", "pr2")
	t.Setenv("RESULTS", same)
	var log bytes.Buffer
	_, err := Run(t.Context(), RunOptions{Build: "cp " + fake + ` "$CERTBENCH_BIN"`, BaseRef: "main", Count: 6, History: hist,
		Policy: gate.PolicyFlags{NoConfig: true}, Out: filepath.Join(dir, "out"), Log: &log})
	if !strings.Contains(log.String(), "has results of 0 of the merge base") || !strings.Contains(log.String(), "building base") {
		t.Errorf("merge base not recorded: no A/B run, or not said why (%v)\n%s", err, log.String())
	}
}

package examples_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// TestCIScriptHistory runs certbench ab's history modes through
// scripts/certbench-ci.sh, as the action sets them (CERTBENCH_HISTORY,
// CERTBENCH_RECORD), on a scratch repository with an origin: four pushes
// to main are recorded in refs/notes/certbench on origin, a pull request is
// gated against them without a base run (unchanged: exit 0; one
// allocation more: exit 1), and a pull request whose merge base was not
// recorded falls back to an A/B run, saying why. The repository's "certbench binary" is a stand-in (the
// build command writes it) whose run writes a prepared result file, so
// no benchmark runs.
func TestCIScriptHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds certbench and runs git in a scratch repository")
	}
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	certbench, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(certbench, "scripts", "certbench-ci.sh")
	dir := t.TempDir()
	repo, origin := filepath.Join(dir, "repo"), filepath.Join(dir, "origin.git")
	files := map[int]string{1000: resultFile(t, dir, 1000), 1001: resultFile(t, dir, 1001)}
	env := append(os.Environ(),
		"GIT_AUTHOR_NAME=certbench test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=certbench test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(dir, ".nogitconfig"),
		"CERTBENCH_HISTORY=git:refs/notes/certbench",
		// The stand-in: run ... -o FILE copies $RESULTS to FILE.
		`CERTBENCH_BUILD=printf '#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ "$1" = -o ]; then cp %s "$2"; fi; shift; done\n' "$RESULTS" >"$CERTBENCH_BIN" && chmod +x "$CERTBENCH_BIN"`,
	)
	run(t, env, dir, "git", "init", "-q", "--bare", origin)
	run(t, env, dir, "git", "init", "-q", "-b", "main", repo)
	run(t, env, repo, "git", "remote", "add", "origin", origin)
	commit := func(msg string) {
		t.Helper()
		run(t, env, repo, "git", "commit", "-q", "--allow-empty", "-m", msg)
	}
	ci := func(allocs int, extra ...string) (int, string) {
		t.Helper()
		cmd := exec.Command("bash", script, "--out", filepath.Join(t.TempDir(), "out"), "origin/main")
		cmd.Dir, cmd.Env = repo, append(append(env, "RESULTS="+files[allocs]), extra...)
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), log.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, log.String()
	}
	// The last record's first push is rejected, as when another job
	// pushed first: it is pushed again.
	rejectOnce := filepath.Join(dir, "reject-once")
	writeFile(t, filepath.Join(origin, "hooks", "pre-receive"), "#!/bin/sh\nif [ -f "+rejectOnce+" ]; then rm "+rejectOnce+"; echo rejected once >&2; exit 1; fi\n")
	if err := os.Chmod(filepath.Join(origin, "hooks", "pre-receive"), 0o755); err != nil {
		t.Fatal(err)
	}
	var mains []string
	for i := range 4 {
		commit(fmt.Sprintf("main %d", i))
		run(t, env, repo, "git", "push", "-q", "origin", "main")
		if i == 3 {
			writeFile(t, rejectOnce, "")
		}
		if code, log := ci(1000, "CERTBENCH_RECORD=1"); code != 0 || !strings.Contains(log, "recorded") || (i == 3) != strings.Contains(log, "rejected") {
			t.Fatalf("recording main %d: exit %d\n%s", i, code, log)
		}
		out, _ := exec.Command("git", "-C", repo, "rev-parse", "--short", "HEAD").Output()
		mains = append(mains, strings.TrimSpace(string(out)))
	}
	stored, err := exec.Command("git", "-C", origin, "ls-tree", "--name-only", "refs/notes/certbench").Output()
	if err != nil || strings.Count(string(stored), "\n") != 4 {
		t.Fatalf("origin's refs/notes/certbench holds %q (%v), want 4 files", stored, err)
	}

	// A pull request: its checkout has no history until the script fetches it.
	run(t, env, repo, "git", "checkout", "-q", "-b", "pr")
	commit("pr")
	run(t, env, repo, "git", "update-ref", "-d", "refs/notes/certbench")
	run(t, env, repo, "git", "fetch", "-q", "origin")
	code, log := ci(1000)
	if want := "history: base from 4 commit(s) of main, oldest first: " + mains[0]; code != 0 || !strings.Contains(log, want) || strings.Contains(log, "building base") {
		t.Errorf("unchanged head against the history: exit %d, want 0 with %q and no base run\n%s", code, want, log)
	}
	if code, log := ci(1001); code != 1 || !strings.Contains(log, "FAIL: 1 regression") {
		t.Errorf("one allocation more: exit %d, want 1\n%s", code, log)
	}

	// Main moves on unrecorded: ab runs the base too.
	run(t, env, repo, "git", "checkout", "-q", "main")
	commit("main unrecorded")
	run(t, env, repo, "git", "push", "-q", "origin", "main")
	run(t, env, repo, "git", "checkout", "-q", "-b", "pr2")
	commit("pr2")
	if _, log := ci(1000); !strings.Contains(log, "has results of 0 of the merge base") || !strings.Contains(log, "ab: building base") {
		t.Errorf("merge base not in the history: no fallback to certbench ab\n%s", log)
	}
}

// resultFile writes a certbench result file of one benchmark, 6 samples of
// allocs allocs/op, and returns its path.
func resultFile(t *testing.T, dir string, allocs int) string {
	t.Helper()
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	for range 6 {
		w.WriteResult(&benchfmt.Result{Config: []benchfmt.Config{{Key: results.VersionKey, Value: []byte("v0.0.0-test"), File: true}},
			Name: benchfmt.Name(results.ChurnName("rotate-10-of-100", "mystore")), Iters: 1,
			Values: []benchfmt.Value{{Value: float64(allocs), Unit: "allocs/op"}, {Value: 4096, Unit: "B/op"}}})
	}
	w.Close()
	path := filepath.Join(dir, fmt.Sprintf("allocs-%d.txt", allocs))
	writeFile(t, path, buf.String())
	return path
}

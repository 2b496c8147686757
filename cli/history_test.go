package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

package history

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// gitRepo returns a new git repository.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	return dir
}

func TestHistoryConcurrentGitAdds(t *testing.T) {
	repo := gitRepo(t)
	st, err := Open("git:refs/notes/certbench", repo)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	g := gen{commits: n, scenarios: 2, samples: 2, units: units}
	paths := make([]string, n)
	for c := range n {
		paths[c] = filepath.Join(t.TempDir(), "run.txt")
		os.WriteFile(paths[c], g.run(randFor(uint64(c)), c), 0o644)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for c := range n {
		wg.Go(func() { _, errs[c] = Add(ctx, st, commitName(c), t0, paths[c]) })
	}
	wg.Wait()
	for c, err := range errs {
		if err != nil {
			t.Errorf("add %d: %v", c, err)
		}
	}
	// Adding a file again stores nothing new.
	if _, err := Add(ctx, st, commitName(0), t0, paths[0]); err != nil {
		t.Fatal(err)
	}
	h, err := Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Commits) != n {
		t.Fatalf("after %d concurrent adds, %d commits stored: %v", n, len(h.Commits), h.Commits)
	}
	for _, k := range h.Keys {
		if pts := h.Recent(k, -1); len(pts) != n || len(pts[0].Values) != 2 {
			t.Fatalf("%v: %d points, want %d of 2 samples", k, len(pts), n)
		}
	}
	out, _ := exec.Command("git", "-C", repo, "rev-list", "--count", "refs/notes/certbench").Output()
	if got := strings.TrimSpace(string(out)); got != fmt.Sprint(n) {
		t.Errorf("the ref has %s commits, want one per add: %d", got, n)
	}
}

func TestHistoryDirStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "h")
	st, _ := Open(dir, "")
	g := gen{commits: 3, scenarios: 1, samples: 3, units: units}
	run := filepath.Join(t.TempDir(), "run.txt")
	ctx := context.Background()
	for c := range 3 {
		os.WriteFile(run, g.run(randFor(uint64(c)), c), 0o644)
		if _, err := Add(ctx, st, commitName(c), t0.Add(-time.Duration(c)*time.Hour), run); err != nil {
			t.Fatal(err)
		}
	}
	// A second run of commit 0 adds samples to it.
	os.WriteFile(run, g.run(randFor(9), 0), 0o644)
	if _, err := Add(ctx, st, commitName(0), t0, run); err != nil {
		t.Fatal(err)
	}
	h, err := Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range h.Commits {
		order = append(order, c.Hash)
	}
	if got := strings.Join(order, " "); got != "c00002 c00001 c00000" {
		t.Errorf("commits in order %s, want by commit time: c00002 c00001 c00000", got)
	}
	k := h.Keys[0]
	if pts := h.Recent(k, 1); len(pts) != 1 || len(pts[0].Values) != 6 || h.Commits[pts[0].Commit].Hash != "c00000" {
		t.Errorf("Recent(1) = %v, want c00000's 6 samples", pts)
	}
	os.WriteFile(filepath.Join(dir, "c00009-000000000000.txt"), []byte("commit: c00001\ncommit-time: 2026-01-01T00:00:00Z\nBenchmarkChurn/scenario=a/store=b 1 1 ns/op\n"), 0o644)
	if _, err := Load(ctx, st); err == nil || !strings.Contains(err.Error(), "c00009-000000000000.txt") {
		t.Errorf("Load with a file misnamed: %v, want an error naming it", err)
	}
}

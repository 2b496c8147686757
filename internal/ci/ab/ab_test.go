package ab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/internal/ci/gate"
)

func TestRoundsABBA(t *testing.T) {
	var got []string
	err := Rounds(context.Background(), 3, 2, nil, func(_ context.Context, s Sample) error {
		got = append(got, s.Name())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"base.1.0.txt", "head.1.0.txt", "base.1.1.txt", "head.1.1.txt",
		"head.2.0.txt", "base.2.0.txt", "head.2.1.txt", "base.2.1.txt",
		"base.3.0.txt", "head.3.0.txt", "base.3.1.txt", "head.3.1.txt"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples %v, want %v", got, want)
	}
}

// fakeCertbench is a certbench stand-in for run and profile, the head
// when its name ends in "head": store a allocates 10 per op at the base
// and 12 at the head; store h does not return at the head in round 5;
// profile fails.
const fakeCertbench = `#!/bin/sh
[ "$1" = profile ] && { echo "no profiles here" >&2; exit 1; }
out=""; stores=""; round=""; scen=""; prev=""
for a in "$@"; do
  case $prev in -o) out=$a ;; --stores) stores=$a ;; --round) round=$a ;; --scenarios) scen=$a ;; esac
  prev=$a
done
head=0; case $0 in *head) head=1 ;; esac
{
  echo "goos: linux"; echo "round: $round"
  for st in $(echo $stores | tr , ' '); do
    allocs=10; [ $st = a ] && [ $head = 1 ] && allocs=12
    if [ $st = h ] && [ $head = 1 ] && [ $round = 5 ]; then
      printf -- '--- FAIL: BenchmarkChurn/scenario=%s/store=%s-2\n    Update did not return within 5s\n' $scen $st; continue
    fi
    echo "BenchmarkChurn/scenario=$scen/store=$st-2 100 5000 ns/op $allocs allocs/op"
  done
} > "$out"
`

func TestMeasure(t *testing.T) {
	dir := t.TempDir()
	var o Options
	for i, name := range Sides {
		o.Sides[i].Bin = filepath.Join(dir, "certbench-"+name)
		if err := os.WriteFile(o.Sides[i].Bin, []byte(fakeCertbench), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o.Stores, o.Scenarios, o.Count, o.Policy, o.Out = []string{"a", "h"}, []string{"lookup"}, 6, gate.DefaultPolicy(), filepath.Join(dir, "out")
	res, err := Measure(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(o.Out, "raw", "base.6.0.txt"))
	if err != nil || strings.Contains(string(b), "store=h") {
		t.Errorf("round 6 (%v): store h, which did not return at head in round 5, ran again:\n%s", err, b)
	}
	if !reflect.DeepEqual(res.Dropped, []string{"h"}) {
		t.Errorf("Dropped = %q, want [h]", res.Dropped)
	}
	if want := "store h did not return at head in round 5: left out of the later rounds on both sides"; !strings.Contains(strings.Join(res.Notes, "\n"), want) {
		t.Errorf("notes %q lack %q", res.Notes, want)
	}
	var failed, noSites bool
	for _, p := range res.Verdict.Problems {
		failed = failed || (p.Fatal && strings.Contains(p.Message, "store h in scenario lookup failed at head"))
		noSites = noSites || (p.Kind == gate.NoSites && strings.Contains(p.Message, "no profiles here"))
	}
	if !failed || !noSites || res.Verdict.Passed() {
		t.Errorf("want a failure of store h and a problem saying profile failed, got %+v", res.Verdict.Problems)
	}
}

func TestRenameStore(t *testing.T) {
	in := "BenchmarkChurn/scenario=x/store=t@base-2 1 2 ns/op\nBenchmarkChurn/scenario=x/store=t@base/n=1 1 2 ns/op\nBenchmarkChurn/scenario=x/store=t@basex-2 1 2 ns/op\n"
	want := "BenchmarkChurn/scenario=x/store=t-2 1 2 ns/op\nBenchmarkChurn/scenario=x/store=t/n=1 1 2 ns/op\nBenchmarkChurn/scenario=x/store=t@basex-2 1 2 ns/op\n"
	if got := string(renameStore([]byte(in), "t@base", "t")); got != want {
		t.Errorf("renameStore:\n%s\nwant\n%s", got, want)
	}
}

// TestCheckout checks out the merge base of a branch in a module in a
// subdirectory: the tree is the module's directory at that commit, and
// remove leaves no worktree.
func TestCheckout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	repo := t.TempDir()
	mod := filepath.Join(repo, "mod")
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	os.MkdirAll(mod, 0o755)
	os.WriteFile(filepath.Join(mod, "f"), []byte("base"), 0o644)
	gitIn("init", "-q", "-b", "main")
	gitIn("add", ".")
	gitIn("commit", "-q", "-m", "base")
	gitIn("checkout", "-q", "-b", "pr")
	os.WriteFile(filepath.Join(mod, "f"), []byte("head"), 0o644)
	gitIn("commit", "-q", "-am", "head")
	tree, commit, remove, err := Checkout(context.Background(), mod, "main")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(tree, "f"))
	remove()
	if err != nil || string(b) != "base" || len(commit) != 40 {
		t.Errorf("Checkout: %s/f = %q, %v (commit %q), want the base's", tree, b, err, commit)
	}
	if _, err := os.Stat(tree); err == nil {
		t.Errorf("remove left %s", tree)
	}
	if _, _, _, err := Checkout(context.Background(), mod, "nope"); err == nil || !strings.Contains(err.Error(), "no merge base of nope") {
		t.Errorf("Checkout of an unknown ref: %v", err)
	}
}

// TestCacheKeepsTheNewest: saving into a full cache removes its oldest
// files, never the one just saved.
func TestCacheKeepsTheNewest(t *testing.T) {
	dir, src := t.TempDir(), filepath.Join(t.TempDir(), "f")
	os.WriteFile(src, []byte("new"), 0o644)
	for i := range cacheFiles {
		f := filepath.Join(dir, fmt.Sprintf("old-%02d", i))
		os.WriteFile(f, nil, 0o644)
		at := time.Now().Add(-time.Duration(cacheFiles-i) * time.Hour) // old-00 the oldest
		os.Chtimes(f, at, at)
	}
	saveCache(src, filepath.Join(dir, "base-x"))
	ents, _ := os.ReadDir(dir)
	_, errOldest := os.Stat(filepath.Join(dir, "old-00"))
	b, _ := os.ReadFile(filepath.Join(dir, "base-x"))
	if len(ents) != cacheFiles || errOldest == nil || string(b) != "new" {
		t.Errorf("after save: %d files (want %d), oldest kept %v, saved %q", len(ents), cacheFiles, errOldest == nil, b)
	}
}

// TestSimGroups: scenarios with ops of their own on the simulated CPU run
// in a process per ops count, the others together at Ops.
func TestSimGroups(t *testing.T) {
	o := Options{Scenarios: []string{"rotate", "lookup", "renew", "lookup-big"}, Ops: 0, SimOps: map[string]int{"lookup": 1000, "lookup-big": 1000, "absent": 5}}
	want := []simGroup{{scenarios: []string{"rotate", "renew"}}, {scenarios: []string{"lookup", "lookup-big"}, ops: 1000}}
	if got := o.simGroups(); !reflect.DeepEqual(got, want) {
		t.Errorf("simGroups() = %+v, want %+v", got, want)
	}
	o.SimOps = nil
	if got := o.simGroups(); len(got) != 1 || len(got[0].scenarios) != 4 {
		t.Errorf("without SimOps: %+v, want one group of all", got)
	}
}

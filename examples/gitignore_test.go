package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestExampleIgnoresOutput: a repository made from examples/mystore does
// not take in what certbench ab writes by default (certbench-out/).
func TestExampleIgnoresOutput(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	repo := t.TempDir()
	ignore, err := os.ReadFile(filepath.Join("mystore", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".gitignore"), ignore, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"check-ignore", "-q", "certbench-out/summary.md"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s (certbench-out/ not ignored)", args, err, out)
		}
	}
}

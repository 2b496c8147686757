package bench_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	_ "github.com/certbench/certbench/stores/optimized"
)

// TestSimrandInitializesFirst fails when package simrand, which bench
// imports, no longer initializes before certstore and a store that seeds
// a hash at initialization (stores/optimized): the simulated CPU lines up
// the random stream in simrand's initialization, so a store initialized
// before it would get a different seed in each process.
func TestSimrandInitializesFirst(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var order []string
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order = append(order, strings.TrimPrefix(f[1], "github.com/certbench/certbench/"))
		}
	}
	first := slices.Index(order, "internal/simrand")
	for _, pkg := range []string{"certstore", "stores/optimized"} {
		if i := slices.Index(order, pkg); first < 0 || i < 0 || i < first {
			t.Errorf("package initialization order: simrand at %d, %s at %d, want simrand first", first, pkg, i)
		}
	}
}

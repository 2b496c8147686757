package examples_test

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/results"
)

var blameRuns = flag.Int("blame-runs", 2, "profiles of each side TestSimulatedBlame takes (10 by hand: -blame-runs 10)")

// TestSimulatedBlame builds the example store's certbench binary as it
// is and with moreInstructions planted in Update (a log tag built on the
// stack, no allocation), profiles both on the simulated CPU
// -blame-runs times (one window a side, as ab does after a regression),
// and checks that the gate's first site is the planted line every time:
// the blame does not depend on where in a window the goroutine's stack
// grows or which thread runs it. It needs valgrind and takes about 15 s a
// run on 2 cores; it is skipped under -short.
func TestSimulatedBlame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries and runs them under valgrind")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skipf("valgrind not installed: %v", err)
	}
	certbench, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false")
	bins := [2]string{filepath.Join(t.TempDir(), "base"), filepath.Join(t.TempDir(), "head")}
	var line int64
	for i, bin := range bins {
		mod := filepath.Join(t.TempDir(), "mystore")
		copyTree(t, filepath.Join(certbench, "examples", "mystore"), mod)
		run(t, env, mod, "go", "mod", "edit", "-replace", "github.com/certbench/certbench="+certbench)
		if i == 1 {
			src := readFile(t, filepath.Join(mod, "store.go"))
			if strings.Count(src, indexLoop) != 1 {
				t.Fatalf("store.go: the indexing loop of Update is not there exactly once")
			}
			src = strings.Replace(src, indexLoop, moreInstructions, 1) + "\nvar tagLen int\n"
			writeFile(t, filepath.Join(mod, "store.go"), src)
			line = int64(slices.Index(strings.Split(src, "\n"), "\t\t\tt = append(t, names[0]...)") + 1)
		}
		run(t, env, mod, "go", "build", "-o", bin, "./cmd/certbench")
	}
	for r := range *blameRuns {
		dirs := [2]string{t.TempDir(), t.TempDir()}
		for i, bin := range bins {
			cmd := exec.Command(bin, "profile", "--simulate", "--all", "-q", "--stores", "mystore",
				"--scenarios", "rotate-10-of-100", "--ops", "10", "--out", dirs[i])
			cmd.Env = env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("run %d: %v\n%s", r+1, err, out)
			}
		}
		sites, err := cost.Folders{Base: dirs[0], Head: dirs[1]}.GrownSites("rotate-10-of-100", "mystore", results.UnitInstructions, 5)
		if err != nil {
			t.Fatalf("run %d: %v", r+1, err)
		}
		first := sites[0]
		t.Logf("run %d: first site %s %+.0f instructions/op", r+1, first.Label(), first.Growth())
		if first.Function != "example.com/mystore.(*Store).Update" || first.Line != line {
			t.Errorf("run %d: first site %s, want example.com/mystore.(*Store).Update (store.go:%d); sites %+v", r+1, first.Label(), line, sites)
		}
	}
}

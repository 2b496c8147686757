package cli_test

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/results"
)

// Two run processes given one --sync directory measure together and both
// write complete results; a directory that is not there is bad usage.
func TestRunSync(t *testing.T) {
	dir := t.TempDir()
	sync0 := filepath.Join(dir, "sync")
	if code, _, errOut := run(t, "run", "--sync", sync0, "--count", "1"); code != cli.ExitUsage || !strings.Contains(errOut, "--sync") {
		t.Errorf("--sync to a missing directory: exit %d, %s", code, errOut)
	}

	sd := t.TempDir()
	outs := []string{filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")}
	codes := make([]int, 2)
	errs := make([]string, 2)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			codes[i], _, errs[i] = run(t, "run", "--stores", "optimized", "--scenarios", "rotate-10-of-100,lookup-1000",
				"--count", "2", "--ops", "3", "--sync", sd, "-o", outs[i])
		})
	}
	wg.Wait()
	for i, out := range outs {
		if codes[i] != cli.ExitOK {
			t.Fatalf("party %d: exit %d: %s", i, codes[i], errs[i])
		}
		rs, err := results.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		if rs.Samples() != 4 {
			t.Errorf("party %d: %d samples, want 4", i, rs.Samples())
		}
	}
	// Two scenarios, two samples each: four points.
	if got, _ := filepath.Glob(filepath.Join(sd, "point-*")); len(got) != 4 {
		t.Errorf("%d rendezvous points, want 4", len(got))
	}
}

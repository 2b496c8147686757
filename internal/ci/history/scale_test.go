package history

import (
	"context"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/certbench/certbench/results"
)

// TestHistoryScale generates a history of 10,000 commits x 20 scenarios
// x 10 units, 5 samples a commit, with one step (+0.05% instructions/op
// of s00 at commit 5,000), into $CERTBENCH_HISTORY_SCALE (a directory,
// kept for "certbench history changes --history DIR" under
// /usr/bin/time -v), then loads it and finds exactly that step. It runs
// only when the variable is set: it takes a while under -race.
func TestHistoryScale(t *testing.T) {
	dir := os.Getenv("CERTBENCH_HISTORY_SCALE")
	if dir == "" {
		t.Skip("set CERTBENCH_HISTORY_SCALE to a directory to generate and check a history of 10,000 commits")
	}
	g := gen{commits: 10000, scenarios: 20, samples: 5, units: append(slices.DeleteFunc(results.KnownUnits(), func(u string) bool { return u == results.UnitInstructions })[:9], results.UnitInstructions), seed: 1,
		step: func(c, s int, u string) float64 {
			if s == 0 && u == results.UnitInstructions && c >= 5000 {
				return 1.0005
			}
			return 1
		}}
	if ents, _ := os.ReadDir(dir); len(ents) != g.commits {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		g.write(t, dir)
	}
	start := time.Now()
	h, err := Load(context.Background(), dirStore(dir))
	if err != nil {
		t.Fatal(err)
	}
	loaded := time.Since(start)
	cps := Changes(h, Options{})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d commits, %d series: loaded in %v, change points in %v more; heap in use %d MiB",
		len(h.Commits), len(h.Keys), loaded, time.Since(start)-loaded, ms.HeapInuse>>20)
	want := results.ChurnName("s00", "naive") + " instructions/op c05000"
	if got := found(cps); len(got) != 1 || got[0] != want {
		t.Errorf("change points %v, want [%s]", got, want)
	}
}

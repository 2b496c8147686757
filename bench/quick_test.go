package bench_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
)

// sleepyStore sleeps in every Update: a store whose refreshes are slow.
type sleepyStore struct {
	simpleStore
	d time.Duration
}

func (s *sleepyStore) Update(cfg *certstore.Config) error {
	time.Sleep(s.d)
	return s.simpleStore.Update(cfg)
}

// Quick takes QuickCount samples of each store, cuts a slow store's ops
// to about QuickWindow a sample, and leaves out a store whose samples
// would not fit QuickBudget, saying which and how to measure it.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps for seconds")
	}
	sleepy := func(d time.Duration) certstore.Factory {
		return func() certstore.Store { return &sleepyStore{d: d} }
	}
	opts := bench.Options{
		Stores:    []certstore.Info{{Name: "fast", New: newSimple}, {Name: "slow", New: sleepy(100 * time.Millisecond)}, {Name: "slower", New: sleepy(time.Second)}},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
	}
	n := map[string]int{}
	ops := map[string]int{}
	notes, err := bench.Quick(context.Background(), opts, func(s bench.Sample) error {
		n[s.Store]++
		ops[s.Store] = s.Ops
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n["fast"] != bench.QuickCount || ops["fast"] != 10 || n["slow"] != bench.QuickCount || ops["slow"] < 2 || ops["slow"] > 3 || n["slower"] != 0 {
		t.Errorf("samples %v, ops %v: want %d of fast at 10 ops, of slow at 2 or 3, none of slower", n, ops, bench.QuickCount)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{"slow: ops a sample cut to fit about 250ms: rotate-10-of-100 ", " of 10",
		"slower left out of rotate-10-of-100: a sample would take up to about", "certbench compare --count 6 --stores slower --scenarios rotate-10-of-100 measures it"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes do not say %q:\n%s", want, all)
		}
	}
}

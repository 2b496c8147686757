package bench_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
)

// Run names samples through Options.Name, and an emit that returns
// ErrSkipStore stops that store's samples while the others go on.
func TestRunNameHookAndSkipStore(t *testing.T) {
	opts := bench.Options{
		Stores:    []certstore.Info{{Name: "a", New: newSimple}, {Name: "b", New: newSimple}},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
		Count:     3,
		Ops:       2,
		Name:      func(scenario, store string) string { return "X/" + scenario + "/" + store },
	}
	var got []string
	err := bench.Run(context.Background(), opts, func(s bench.Sample) error {
		got = append(got, s.Name)
		if s.Wall <= 0 {
			t.Errorf("sample %s: Wall %v, want the sample's wall time", s.Name, s.Wall)
		}
		if s.Store == "a" {
			return bench.ErrSkipStore
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "X/rotate-10-of-100/a X/rotate-10-of-100/b X/rotate-10-of-100/b X/rotate-10-of-100/b"
	if strings.Join(got, " ") != want {
		t.Errorf("samples %q, want %q", strings.Join(got, " "), want)
	}
}

// updateCounter counts the Updates of every store it makes.
type updateCounter struct {
	simpleStore
	n *atomic.Int64
}

func (s *updateCounter) Update(cfg *certstore.Config) error {
	s.n.Add(1)
	return s.simpleStore.Update(cfg)
}

// Options.Sync is called once per sample, after the initial configuration
// and before the first timed op, with the sample's names and number; its
// error ends Run without emitting that sample.
func TestRunSyncBeforeTheTimedOps(t *testing.T) {
	var updates atomic.Int64
	newCounted := func() certstore.Store { return &updateCounter{n: &updates} }
	var calls []string
	var atEmit int64 // Updates made when the last sample was emitted
	opts := bench.Options{
		Stores:    []certstore.Info{{Name: "a", New: newCounted}, {Name: "b", New: newCounted}},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
		Count:     2,
		Ops:       3,
		Sync: func(ctx context.Context, scenario, store string, sample int) error {
			// Since the last sample, only this one's initial Update.
			calls = append(calls, fmt.Sprintf("%s/%s/%d:+%d", scenario, store, sample, updates.Load()-atEmit))
			return nil
		},
	}
	err := bench.Run(context.Background(), opts, func(s bench.Sample) error {
		atEmit = updates.Load()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "rotate-10-of-100/a/1:+1 rotate-10-of-100/b/1:+1 rotate-10-of-100/a/2:+1 rotate-10-of-100/b/2:+1"
	if got := strings.Join(calls, " "); got != want {
		t.Errorf("Sync calls %q, want %q", got, want)
	}

	boom := errors.New("the other side is gone")
	opts.Sync = func(context.Context, string, string, int) error { return boom }
	emitted := 0
	err = bench.Run(context.Background(), opts, func(bench.Sample) error { emitted++; return nil })
	if !errors.Is(err, boom) || emitted != 0 {
		t.Errorf("Sync failing: Run err %v after %d samples, want %v and none", err, emitted, boom)
	}
}

package bench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
)

// The quick plan's settings (Quick).
const (
	// QuickCount is the samples a store takes of a scenario: the fewest
	// with which Mann-Whitney U can reach p < 0.05.
	QuickCount = 4
	// QuickWindow is about how long a sample's timed ops run: a sample's
	// ops are cut to fit it (never below one, never above the scenario's).
	QuickWindow = 250 * time.Millisecond
	// QuickBudget bounds what a store spends on a scenario: one that would
	// take longer is left out.
	QuickBudget = 8 * time.Second
)

// Quick measures every scenario on every store as Run does, but in about
// QuickBudget per scenario and store at most: a first sample of one op,
// not kept, says what a sample's set-up and an op cost; the kept samples,
// QuickCount of them, run the ops that fill about QuickWindow. A store
// whose samples would not fit is left out of the scenario: as its first
// sample says, or before it, on a pool larger than any it had so far, when
// one set-up alone would pass QuickBudget as the set-up of its largest so
// far says, scaled to the pool's size (an estimate: a small pool's set-up
// is mostly what does not grow with it). Stores take their samples one
// after the other, not interleaved. It returns a note per store on what it left out and where
// it cut the ops, and stops at the first error (opts.Count and opts.Ops
// are unused).
func Quick(ctx context.Context, opts Options, emit func(Sample) error) (notes []string, err error) {
	cuts, out := map[string][]string{}, map[string][]string{}
	slowest := map[string]time.Duration{}
	defer func() {
		for _, st := range opts.Stores {
			if c := cuts[st.Name]; len(c) > 0 {
				notes = append(notes, fmt.Sprintf("%s: ops a sample cut to fit about %s: %s", st.Name, QuickWindow, strings.Join(c, ", ")))
			}
			if o := out[st.Name]; len(o) > 0 {
				notes = append(notes, fmt.Sprintf("%s left out of %s: a sample would take up to about %s (certbench compare --count %d --stores %s --scenarios %s measures it)",
					st.Name, strings.Join(o, ", "), slowest[st.Name].Round(100*time.Millisecond), DefaultCount, st.Name, strings.Join(o, ",")))
			}
		}
	}()
	leftOut := func(store, scenario string, perSample time.Duration) {
		out[store] = append(out[store], scenario)
		slowest[store] = max(slowest[store], perSample)
	}
	type setUp struct {
		pool int
		took time.Duration
	}
	largest := map[string]setUp{} // a store's set-up on the largest pool so far
	for _, sc := range opts.Scenarios {
		for _, st := range opts.Stores {
			if l := largest[st.Name]; l.pool > 0 && sc.Pool.Count > l.pool {
				if est := l.took * time.Duration(sc.Pool.Count) / time.Duration(l.pool); est > QuickBudget {
					leftOut(st.Name, sc.Name, est)
					continue
				}
			}
			one := opts
			one.Stores, one.Scenarios, one.Count, one.Ops, one.Progress = []certstore.Info{st}, []scenarios.Scenario{sc}, 1, 1, nil
			var first Sample
			if err := Run(ctx, one, func(s Sample) error { first = s; return nil }); err != nil {
				return notes, err
			}
			if first.Store == "" { // a store fault, handed to opts.Fault
				continue
			}
			took := first.Wall - time.Duration(first.NsPerOp)
			if sc.Pool.Count >= largest[st.Name].pool {
				largest[st.Name] = setUp{sc.Pool.Count, took}
			}
			ops := min(max(int(QuickWindow.Nanoseconds()/max(int64(first.NsPerOp), 1)), 1), max(sc.Ops, 1))
			if per := took + time.Duration(ops)*time.Duration(first.NsPerOp); per*QuickCount > QuickBudget {
				leftOut(st.Name, sc.Name, per)
				continue
			}
			if ops < sc.Ops {
				cuts[st.Name] = append(cuts[st.Name], fmt.Sprintf("%s %d of %d", sc.Name, ops, sc.Ops))
			}
			one.Count, one.Ops, one.Progress = QuickCount, ops, opts.Progress
			if err := Run(ctx, one, emit); err != nil && !errors.Is(err, ErrSkipStore) {
				return notes, err
			}
		}
	}
	return notes, nil
}

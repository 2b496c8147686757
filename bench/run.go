package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
)

// Options says what Run measures.
type Options struct {
	// Stores and Scenarios are measured in full cross product.
	Stores    []certstore.Info
	Scenarios []scenarios.Scenario
	// Count is the number of samples per store and scenario; 0 means
	// DefaultCount.
	Count int
	// Ops overrides every scenario's ops per sample when > 0.
	Ops int
	// Progress, when not nil, receives a line per sample: which store,
	// scenario and sample, and the estimated time left.
	Progress io.Writer
	// Name, when not nil, names each sample (Sample.Name) from its
	// scenario and store, as certbench sweep names its samples with
	// results.SweepName; nil keeps results.ChurnName.
	Name func(scenario, store string) string
	// Sync, when not nil, is called once per sample just before its timed
	// ops, after the store holds the workload's initial configuration
	// (handshake workloads: before the sample's set-up), with the sample's
	// scenario, store and number (from 1). The sample waits for it, and an
	// error from it ends Run. certbench run --sync uses it to start the
	// timed windows of two processes together (package rendezvous).
	Sync func(ctx context.Context, scenario, store string, sample int) error
}

// ErrSkipStore, returned by Run's emit function, makes Run take no more
// samples of that sample's store in the current scenario, and go on with
// the others: this is how a caller gives stores fewer samples than Count
// (certbench sweep's time budget).
var ErrSkipStore = errors.New("bench: no more samples of this store")

// DefaultCount is the default number of samples: enough for a 95%
// confidence interval and for Mann-Whitney U to reach p < 0.05.
const DefaultCount = 6

// Run measures every scenario on every store, interleaving stores within
// each sample round (A B A B ...), and calls emit with each sample as soon as
// it is measured (emit may return ErrSkipStore). It stops at the first error, or when ctx is done: then
// the sample being measured is abandoned, never emitted (see
// MeasureContext), and Run returns an error wrapping ctx's error, so that
// every sample emitted is complete.
func Run(ctx context.Context, opts Options, emit func(Sample) error) error {
	count := opts.Count
	if count <= 0 {
		count = DefaultCount
	}
	if len(opts.Stores) == 0 || len(opts.Scenarios) == 0 {
		return fmt.Errorf("bench: nothing to run (%d stores, %d scenarios)", len(opts.Stores), len(opts.Scenarios))
	}
	total := count * len(opts.Stores) * len(opts.Scenarios)
	done := 0
	start := time.Now()
	for _, sc := range opts.Scenarios {
		w, err := sc.Build(opts.Ops)
		if err != nil {
			return fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		skipped := make(map[string]bool)
		for k := 0; k < count; k++ {
			for _, st := range opts.Stores {
				if skipped[st.Name] {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				if opts.Progress != nil {
					eta := ""
					if done > 0 {
						left := time.Since(start) / time.Duration(done) * time.Duration(total-done)
						eta = fmt.Sprintf(", about %s left", left.Round(time.Second))
					}
					fmt.Fprintf(opts.Progress, "\r\033[K[%d/%d] %s on %s, sample %d/%d%s", done+1, total, sc.Name, st.Name, k+1, count, eta)
				}
				t0 := time.Now()
				var sync func() error
				if opts.Sync != nil {
					name, n := st.Name, k+1
					sync = func() error { return opts.Sync(ctx, sc.Name, name, n) }
				}
				s, err := measureContext(ctx, st.New, st.Name, w, sync)
				if err != nil {
					return err
				}
				s.Wall = time.Since(t0)
				if opts.Name != nil {
					s.Name = opts.Name(sc.Name, st.Name)
				}
				done++
				if err := emit(s); errors.Is(err, ErrSkipStore) {
					skipped[st.Name] = true
				} else if err != nil {
					return err
				}
			}
		}
		w = nil
		runtime.GC()
	}
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "\r\033[K%d samples in %s\n", total, time.Since(start).Round(time.Second))
	}
	return nil
}

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
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
	// scenario and sample, and the estimated time left, each line
	// rewriting the last (for a terminal). With ProgressLines it
	// receives instead a line per finished scenario: its samples, how
	// long they took, the scenarios left and the estimated time left
	// (for a log or a file).
	Progress      io.Writer
	ProgressLines bool
	// Name, when not nil, names each sample (Sample.Name) from its
	// scenario and store, as certbench sweep names its samples with
	// results.SweepName; nil keeps results.ChurnName.
	Name func(scenario, store string) string
	// Sync, when not nil, is called once per sample just before its timed
	// ops, after the store holds the workload's initial configuration
	// (handshake workloads: before the sample's set-up), with the sample's
	// scenario, store and number (from 1). The sample waits for it, and an
	// error from it ends Run. certbench run --sync uses it to start the
	// timed windows of two processes together (package rendezvous). Run
	// also calls it for every sample it does not measure because its
	// store failed (see Fault), so that the other processes go on.
	Sync func(ctx context.Context, scenario, store string, sample int) error
	// SampleTimeout bounds the wall time of one sample, its waits for
	// Sync left out: 0 means DefaultSampleTimeout, a negative value no
	// bound. A sample that exceeds it ends in a *StoreFault (see Fault).
	SampleTimeout time.Duration
	// Fault, when not nil, is called with each sample the store under
	// test ended (a *StoreFault: a panic in a call the harness made, or a
	// call that did not return within SampleTimeout); nothing of that
	// sample is emitted, and an error from Fault ends Run. After a panic,
	// Run takes no more samples of that store in that scenario and goes
	// on. After a fault that Stops (a hang), Run measures nothing more (a
	// goroutine stuck in a store cannot be stopped, and later samples
	// would share the process with it), arrives at the Sync of every
	// sample left, and returns that fault. With Fault nil, a fault ends
	// Run like any other error.
	Fault func(*StoreFault) error
	// Instrument is how the timed ops are measured: Wall ("" means Wall)
	// or Simulate (the process must run under callgrind; see Simulate).
	// With Simulate, every scenario must pass CheckSimulate, and
	// scenarios run SimulateOps ops per sample unless Ops is set.
	Instrument string
	// CallgrindDir, with Simulate, is a directory that keeps the
	// callgrind file of every sample, named by CallgrindFileName (for
	// blame, and for callgrind_annotate or KCachegrind). "" keeps none.
	CallgrindDir string
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
// it is measured (emit may return ErrSkipStore). It stops at the first error
// (a fault of the store under test only without Options.Fault), or when
// ctx is done: then the sample being measured is abandoned, never emitted
// (see MeasureContext), and Run returns an error wrapping ctx's error, so
// that every sample emitted is complete.
func Run(ctx context.Context, opts Options, emit func(Sample) error) error {
	count := opts.Count
	if count <= 0 {
		count = DefaultCount
	}
	if len(opts.Stores) == 0 || len(opts.Scenarios) == 0 {
		return fmt.Errorf("bench: nothing to run (%d stores, %d scenarios)", len(opts.Stores), len(opts.Scenarios))
	}
	timeout := opts.SampleTimeout
	if timeout == 0 {
		timeout = DefaultSampleTimeout
	}
	var sim *simulator
	switch opts.Instrument {
	case "", Wall:
	case Simulate:
		for _, sc := range opts.Scenarios {
			if err := CheckSimulate(sc); err != nil {
				return fmt.Errorf("bench: %w", err)
			}
		}
		var err error
		if sim, err = newSimulator(opts.CallgrindDir); err != nil {
			return err
		}
	default:
		return fmt.Errorf("bench: unknown instrument %q (want %s or %s)", opts.Instrument, Wall, Simulate)
	}
	prog := newProgress(opts.Progress, opts.ProgressLines, count*len(opts.Stores)*len(opts.Scenarios), len(opts.Scenarios))
	var stopped *StoreFault // the fault after which nothing more is measured
	// arrive makes the Sync of a sample not measured.
	arrive := func(scenario, store string, k int) error {
		if opts.Sync == nil {
			return nil
		}
		return opts.Sync(ctx, scenario, store, k)
	}
	for si, sc := range opts.Scenarios {
		var w *scenarios.Workload
		if stopped == nil {
			var err error
			ops := opts.Ops
			if sim != nil && ops <= 0 {
				ops = SimulateOps(sc)
			}
			if w, err = sc.Build(ops); err != nil {
				return fmt.Errorf("scenario %s: %w", sc.Name, err)
			}
		}
		prog.startScenario()
		skipped := make(map[string]bool) // by ErrSkipStore
		failed := make(map[string]bool)  // by a fault
		for k := 0; k < count; k++ {
			for _, st := range opts.Stores {
				if skipped[st.Name] {
					continue
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				if failed[st.Name] || stopped != nil {
					if err := arrive(sc.Name, st.Name, k+1); err != nil {
						return err
					}
					prog.sampleDone(false)
					continue
				}
				prog.sample(sc.Name, st.Name, k+1, count)
				t0 := time.Now()
				var sync func() error
				if opts.Sync != nil {
					name, n := st.Name, k+1
					sync = func() error { return opts.Sync(ctx, sc.Name, name, n) }
				}
				var s Sample
				var synced bool
				var err error
				if sim != nil && k == 0 {
					// The warm-up sample (see simulator), not emitted; a
					// fault in it is the first sample's.
					sim.warm = true
					_, synced, err = superviseSample(ctx, st.New, st.Name, w, nil, timeout, sim)
					sim.warm = false
				}
				if err == nil {
					if sim != nil {
						sim.label = fmt.Sprintf("scenario=%s store=%s sample=%d ops=%d", sc.Name, st.Name, k+1, opsOf(w))
						sim.sample = k + 1
					}
					s, synced, err = superviseSample(ctx, st.New, st.Name, w, sync, timeout, sim)
				}
				var f *StoreFault
				if errors.As(err, &f) {
					f.Sample = k + 1
					f.Name = results.ChurnName(sc.Name, st.Name)
					if opts.Name != nil {
						f.Name = opts.Name(sc.Name, st.Name)
					}
				}
				if f != nil && opts.Fault != nil && ctx.Err() == nil {
					prog.sampleDone(false)
					prog.storeFailed(st.Name)
					prog.interrupt()
					if err := opts.Fault(f); err != nil {
						return err
					}
					failed[st.Name] = true
					if f.Stops() {
						stopped = f
						if opts.Sync == nil {
							return f
						}
					}
					if !synced {
						if err := arrive(sc.Name, st.Name, k+1); err != nil {
							return err
						}
					}
					continue
				}
				if err != nil {
					return err
				}
				prog.sampleDone(true)
				s.Wall = time.Since(t0)
				if opts.Name != nil {
					s.Name = opts.Name(sc.Name, st.Name)
				}
				if err := emit(s); errors.Is(err, ErrSkipStore) {
					skipped[st.Name] = true
				} else if err != nil {
					return err
				}
			}
		}
		prog.scenarioDone(si, sc.Name)
		w = nil
		runtime.GC()
	}
	prog.end()
	if stopped != nil {
		return stopped
	}
	return nil
}

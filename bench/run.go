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
	// Progress, when not nil, receives a line per sample, each rewriting
	// the last (for a terminal), or with ProgressLines a line per finished
	// scenario (for a log); both estimate the time left.
	Progress      io.Writer
	ProgressLines bool
	// Name, when not nil, names each sample (Sample.Name) from its
	// scenario and store; nil keeps results.ChurnName.
	Name func(scenario, store string) string
	// Sync, when not nil, is called once per sample just before its timed
	// ops (handshake workloads: before the sample's set-up), with the
	// sample's scenario, store and number (from 1); an error from it ends
	// Run. It starts the timed windows of processes together (package
	// rendezvous), so Run also calls it for the samples a failed store
	// does not take.
	Sync func(ctx context.Context, scenario, store string, sample int) error
	// SampleTimeout bounds the wall time of one sample, its waits for
	// Sync left out: 0 means DefaultSampleTimeout, a negative value no
	// bound. A sample that exceeds it ends in a *StoreFault (see Fault).
	SampleTimeout time.Duration
	// Fault, when not nil, is called with each *StoreFault; nothing of
	// that sample is emitted, and an error from Fault ends Run. After a
	// panic Run takes no more samples of that store in that scenario;
	// after a fault that Stops it measures nothing more, arrives at the
	// Sync of every sample left, and returns the fault. With Fault nil, a
	// fault ends Run like any other error.
	Fault func(*StoreFault) error
	// Instrument is Wall ("" means Wall) or Simulate; with Simulate every
	// scenario must pass CheckSimulate and runs SimulateOps ops per sample
	// unless Ops is set.
	Instrument string
	// CallgrindDir, with Simulate, keeps every sample's callgrind file,
	// named by CallgrindFileName; "" keeps none.
	CallgrindDir string
}

// ErrSkipStore, returned by Run's emit function, makes Run take no more
// samples of that sample's store in the current scenario (a sweep's time
// budget).
var ErrSkipStore = errors.New("bench: no more samples of this store")

// DefaultCount is the default number of samples: enough for a 95%
// confidence interval and for Mann-Whitney U to reach p < 0.05.
const DefaultCount = 6

// Run measures every scenario on every store, interleaving stores within
// each sample round (A B A B ...), and calls emit with each sample as soon
// as it is measured. It stops at the first error, or when ctx is done:
// the sample being measured is then never emitted, and Run returns an
// error wrapping ctx's error.
func Run(ctx context.Context, opts Options, emit func(Sample) error) error {
	r, err := newRunner(ctx, opts, emit)
	if err != nil {
		return err
	}
	for si, sc := range opts.Scenarios {
		if err := r.scenario(sc); err != nil {
			return err
		}
		r.prog.scenarioDone(si, sc.Name)
		runtime.GC() // the scenario's workload is garbage now
	}
	r.prog.end()
	if r.stopped != nil {
		return r.stopped
	}
	return nil
}

// runner holds the state of one Run.
type runner struct {
	ctx     context.Context
	opts    Options
	emit    func(Sample) error
	count   int           // samples per store and scenario
	timeout time.Duration // per sample
	sim     *simulator    // nil unless Instrument is Simulate
	prog    *progress
	stopped *StoreFault // the fault after which nothing more is measured
}

// newRunner checks opts and fills in their defaults.
func newRunner(ctx context.Context, opts Options, emit func(Sample) error) (*runner, error) {
	r := &runner{ctx: ctx, opts: opts, emit: emit, count: opts.Count, timeout: opts.SampleTimeout}
	if r.count <= 0 {
		r.count = DefaultCount
	}
	if len(opts.Stores) == 0 || len(opts.Scenarios) == 0 {
		return nil, fmt.Errorf("bench: nothing to run (%d stores, %d scenarios)", len(opts.Stores), len(opts.Scenarios))
	}
	if r.timeout == 0 {
		r.timeout = DefaultSampleTimeout
	}
	switch opts.Instrument {
	case "", Wall:
	case Simulate:
		for _, sc := range opts.Scenarios {
			if err := CheckSimulate(sc); err != nil {
				return nil, fmt.Errorf("bench: %w", err)
			}
		}
		var err error
		if r.sim, err = newSimulator(opts.CallgrindDir); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("bench: unknown instrument %q (want %s or %s)", opts.Instrument, Wall, Simulate)
	}
	r.prog = newProgress(opts.Progress, opts.ProgressLines, r.count*len(opts.Stores), sampleCosts(opts, r.sim != nil))
	return r, nil
}

// scenarioRun is the state of one scenario's samples.
type scenarioRun struct {
	sc      scenarios.Scenario
	w       *scenarios.Workload // nil once Run has stopped
	skipped map[string]bool     // stores skipped by ErrSkipStore
	failed  map[string]bool     // stores ended by a fault
}

// scenario takes the samples of one scenario, round by round, each round
// interleaving the stores. Once Run has stopped, or a store has failed,
// it only arrives at the Syncs of the samples not measured.
func (r *runner) scenario(sc scenarios.Scenario) error {
	s := &scenarioRun{sc: sc, skipped: make(map[string]bool), failed: make(map[string]bool)}
	if r.stopped == nil {
		ops := r.opts.Ops
		if r.sim != nil && ops <= 0 {
			ops = SimulateOps(sc)
		}
		var err error
		if s.w, err = sc.Build(ops); err != nil {
			return fmt.Errorf("scenario %s: %w", sc.Name, err)
		}
		if r.sim != nil {
			reseedMaps(s.w)
		}
	}
	r.prog.startScenario()
	for n := 1; n <= r.count; n++ {
		for _, st := range r.opts.Stores {
			if s.skipped[st.Name] {
				continue
			}
			if err := r.ctx.Err(); err != nil {
				return err
			}
			if s.failed[st.Name] || r.stopped != nil {
				if err := r.arrive(sc.Name, st.Name, n); err != nil {
					return err
				}
				r.prog.sampleDone(false)
				continue
			}
			if err := r.sample(s, st, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// sample measures sample n (from 1) of store st and emits it, or hands
// its fault to Options.Fault.
func (r *runner) sample(s *scenarioRun, st certstore.Info, n int) error {
	r.prog.sample(s.sc.Name, st.Name, n, r.count)
	t0 := time.Now()
	smp, synced, err := r.measure(s, st, n)
	var f *StoreFault
	if errors.As(err, &f) {
		f.Sample = n
		f.Name = results.ChurnName(s.sc.Name, st.Name)
		if r.opts.Name != nil {
			f.Name = r.opts.Name(s.sc.Name, st.Name)
		}
	}
	if f != nil && r.opts.Fault != nil && r.ctx.Err() == nil {
		return r.fault(s, st, n, f, synced)
	}
	if err != nil {
		return err
	}
	r.prog.sampleDone(true)
	smp.Wall = time.Since(t0)
	if r.opts.Name != nil {
		smp.Name = r.opts.Name(s.sc.Name, st.Name)
	}
	if err := r.emit(smp); errors.Is(err, ErrSkipStore) {
		s.skipped[st.Name] = true
	} else if err != nil {
		return err
	}
	return nil
}

// measure runs sample n of store st under supervision. With Simulate,
// the first sample is preceded by a warm-up sample (see simulator), not
// returned, whose fault is the first sample's.
func (r *runner) measure(s *scenarioRun, st certstore.Info, n int) (smp Sample, synced bool, err error) {
	var sync func() error
	if r.opts.Sync != nil {
		sync = func() error { return r.opts.Sync(r.ctx, s.sc.Name, st.Name, n) }
	}
	if r.sim == nil {
		return superviseSample(r.ctx, st.New, st.Name, s.w, sync, r.timeout, nil)
	}
	if n == 1 {
		r.sim.warm = true
		_, synced, err = superviseSample(r.ctx, st.New, st.Name, s.w, nil, r.timeout, r.sim)
		r.sim.warm = false
		if err != nil {
			return Sample{}, synced, err
		}
	}
	r.sim.label = fmt.Sprintf("scenario=%s store=%s sample=%d ops=%d", s.sc.Name, st.Name, n, opsOf(s.w))
	r.sim.sample = n
	return superviseSample(r.ctx, st.New, st.Name, s.w, sync, r.timeout, r.sim)
}

// fault hands the fault f of sample n to Options.Fault and takes no more
// samples of st in this scenario; after a fault that Stops, Run measures
// nothing more (and returns f at once without Sync).
func (r *runner) fault(s *scenarioRun, st certstore.Info, n int, f *StoreFault, synced bool) error {
	r.prog.sampleDone(false)
	r.prog.storeFailed(st.Name)
	r.prog.interrupt()
	if err := r.opts.Fault(f); err != nil {
		return err
	}
	s.failed[st.Name] = true
	if f.Stops() {
		r.stopped = f
		if r.opts.Sync == nil {
			return f
		}
	}
	if !synced {
		// The fault came before the sample's Sync: arrive at it so that
		// the other processes go on.
		return r.arrive(s.sc.Name, st.Name, n)
	}
	return nil
}

// arrive makes the Sync of a sample not measured.
func (r *runner) arrive(scenario, store string, n int) error {
	if r.opts.Sync == nil {
		return nil
	}
	return r.opts.Sync(r.ctx, scenario, store, n)
}

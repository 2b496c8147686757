package bench

import (
	"cmp"
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
	Stores    []certstore.Info     // measured in full cross product
	Scenarios []scenarios.Scenario // with the stores
	Count     int                  // samples per store and scenario; 0: DefaultCount
	Ops       int                  // when > 0, every scenario's ops per sample
	// Progress, when not nil, receives a line per sample rewriting the
	// last (a terminal), or with ProgressLines one per scenario (a log).
	Progress      io.Writer
	ProgressLines bool
	// Name, when not nil, names each sample; nil keeps results.ChurnName.
	Name func(scenario, store string) string
	// SampleTimeout bounds one sample: 0 means
	// DefaultSampleTimeout, negative no bound. Exceeding it is a fault.
	SampleTimeout time.Duration
	// Fault, when not nil, gets each *StoreFault (the sample is not
	// emitted; an error ends Run). After a panic Run takes no more samples
	// of that store in that scenario; after a fault that Stops it measures
	// nothing more and returns the fault.
	// With Fault nil, a fault ends Run like any other error.
	Fault func(*StoreFault) error
	// Instrument is Wall ("") or Simulate: every scenario must then pass
	// Scenario.CheckSimulate and runs SimulateOps ops unless Ops is set.
	Instrument string
	// Profiles, with Simulate, is a directory that keeps every sample's
	// window as a profile with stacks (cost.SimFileName; the process must
	// run under callgrind with callgrind.Options.Stacks); "" keeps none.
	Profiles string
}

// ErrSkipStore, returned by Run's emit function, makes Run take no more
// samples of that sample's store in the current scenario (a sweep's time
// budget).
var ErrSkipStore = errors.New("bench: no more samples of this store")

// DefaultCount is the default number of samples: enough for a 95%
// confidence interval and for Mann-Whitney U to reach p < 0.05.
const DefaultCount = 6

// Run measures every scenario on every store, stores interleaved within
// each round (A B A B ...), and calls emit with each sample. It stops at
// the first error, or when ctx is done (the sample in flight is dropped,
// and the error wraps ctx's).
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
}

// newRunner checks opts and fills in their defaults.
func newRunner(ctx context.Context, opts Options, emit func(Sample) error) (*runner, error) {
	r := &runner{ctx: ctx, opts: opts, emit: emit, count: opts.Count, timeout: cmp.Or(opts.SampleTimeout, DefaultSampleTimeout)}
	if r.count <= 0 {
		r.count = DefaultCount
	}
	if len(opts.Stores) == 0 || len(opts.Scenarios) == 0 {
		return nil, fmt.Errorf("bench: nothing to run (%d stores, %d scenarios)", len(opts.Stores), len(opts.Scenarios))
	}
	switch opts.Instrument {
	case "", Wall:
	case Simulate:
		for _, sc := range opts.Scenarios {
			if err := sc.CheckSimulate(); err != nil {
				return nil, fmt.Errorf("bench: %w", err)
			}
		}
		var err error
		if r.sim, err = newSimulator(opts.Profiles); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("bench: unknown instrument %q (want %s or %s)", opts.Instrument, Wall, Simulate)
	}
	r.prog = newProgress(opts.Progress, opts.ProgressLines, r.count, len(opts.Stores), sampleCosts(opts, r.sim != nil))
	return r, nil
}

// scenarioRun is the state of one scenario's samples.
type scenarioRun struct {
	sc      scenarios.Scenario
	w       *scenarios.Workload
	skipped map[string]bool // stores skipped by ErrSkipStore
	failed  map[string]bool // stores ended by a fault
}

// scenario takes the samples of one scenario, round by round, each round
// interleaving the stores.
func (r *runner) scenario(sc scenarios.Scenario) error {
	s := &scenarioRun{sc: sc, skipped: make(map[string]bool), failed: make(map[string]bool)}
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
	r.prog.startScenario()
	for n := 1; n <= r.count; n++ {
		for _, st := range r.opts.Stores {
			if s.skipped[st.Name] {
				continue
			}
			if err := r.ctx.Err(); err != nil {
				return err
			}
			if s.failed[st.Name] {
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
	smp, err := r.measure(s, st, n)
	var f *StoreFault
	if errors.As(err, &f) {
		f.Sample = n
		f.Name = results.ChurnName(s.sc.Name, st.Name)
		if r.opts.Name != nil {
			f.Name = r.opts.Name(s.sc.Name, st.Name)
		}
	}
	if f != nil && r.opts.Fault != nil && r.ctx.Err() == nil {
		return r.fault(s, st, f)
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
func (r *runner) measure(s *scenarioRun, st certstore.Info, n int) (Sample, error) {
	if r.sim == nil {
		return superviseSample(r.ctx, st.New, st.Name, s.w, r.timeout, nil)
	}
	if n == 1 {
		r.sim.warm = true
		_, err := superviseSample(r.ctx, st.New, st.Name, s.w, r.timeout, r.sim)
		r.sim.warm = false
		if err != nil {
			return Sample{}, err
		}
	}
	r.sim.label = fmt.Sprintf("scenario=%s store=%s sample=%d ops=%d", s.sc.Name, st.Name, n, opsOf(s.w))
	r.sim.sample = n
	return superviseSample(r.ctx, st.New, st.Name, s.w, r.timeout, r.sim)
}

// fault hands the fault f of sample n to Options.Fault and takes no more
// samples of st in this scenario; after a fault that Stops, Run measures
// nothing more and returns f.
func (r *runner) fault(s *scenarioRun, st certstore.Info, f *StoreFault) error {
	r.prog.sampleDone(false)
	r.prog.storeFailed(st.Name)
	r.prog.interrupt()
	if err := r.opts.Fault(f); err != nil {
		return err
	}
	s.failed[st.Name] = true
	if f.Stops() {
		return f
	}
	return nil
}

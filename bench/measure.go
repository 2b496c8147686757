package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchfmt"
)

// Sample is the measurement of one sample of one scenario on one store.
type Sample struct {
	Scenario, Store string
	Ops             int // timed ops
	NsPerOp         float64
	// BytesPerOp and AllocsPerOp are the window's process-wide totals over
	// Ops, not truncated; estimates for HandshakeUnderChurn (measureChurn).
	BytesPerOp, AllocsPerOp float64
	// RetainedBytes is the live heap's growth (after a GC) from before the
	// store to the sample's end, never negative; RetainedPerCert divides
	// it by the last configuration's certificates (0 when none).
	RetainedBytes   float64
	RetainedPerCert float64
	Goroutines      int              // the store's, still running (labelled SampleLabel)
	Name            string           // when set, written instead of results.ChurnName (sweeps)
	Wall            time.Duration    // the whole sample, setup included (never written)
	Extra           []benchfmt.Value // written after the standard values
	Instrument      string           // "", Wall or Simulate (no NsPerOp written)
}

// Measure runs one sample of w on a new store from newStore.
func Measure(newStore certstore.Factory, storeName string, w *scenarios.Workload) (Sample, error) {
	return MeasureContext(context.Background(), newStore, storeName, w)
}

// MeasureContext is Measure, abandoned when ctx is done: the ops stop at
// the next op and it returns ctx's error and no sample, also for a sample
// that finished after (it may have timed whatever cancelled ctx); a stuck
// store is abandoned StopGrace later. A store panic is a *StoreFault.
func MeasureContext(ctx context.Context, newStore certstore.Factory, storeName string, w *scenarios.Workload) (Sample, error) {
	return superviseSample(ctx, newStore, storeName, w, -1, nil)
}

// superviseSample measures one sample on its own goroutine and waits for
// it to end, for ctx (then StopGrace more), or for timeout (> 0), then
// abandons it with a *StoreFault naming the call that did not return.
func superviseSample(ctx context.Context, newStore certstore.Factory, storeName string, w *scenarios.Workload, timeout time.Duration, sim *simulator) (Sample, error) {
	ctl := &sampleCtl{}
	unregister := context.AfterFunc(ctx, func() { ctl.stop.Store(true) })
	defer unregister()
	done := startSample(ctl, newStore, storeName, w, sim)
	return waitSample(ctx, ctl, done, Sample{Scenario: w.Scenario.Name, Store: storeName}, timeout)
}

// sampleOutcome is what measureSample returned.
type sampleOutcome struct {
	s   Sample
	err error
}

// startSample runs measureSample on its own goroutine, a panic recovered
// into ctl, and returns its outcome's channel (ctl's first fault as the
// error).
func startSample(ctl *sampleCtl, newStore certstore.Factory, storeName string, w *scenarios.Workload, sim *simulator) <-chan sampleOutcome {
	done := make(chan sampleOutcome, 1)
	go func() {
		if sim != nil {
			// One thread for the sample, whose random stream the
			// simulator resets, and a stack grown before any window
			// (see simulator).
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			growStack(stackDepth)
		}
		var out sampleOutcome
		defer func() {
			if v := recover(); v != nil {
				ctl.panicked(v, callHarness, debug.Stack())
			}
			if f := ctl.firstFault(); f != nil {
				out.err = f
			}
			done <- out
		}()
		out.s, out.err = measureSample(newStore, storeName, w, ctl, sim)
	}()
	return done
}

// waitSample waits as superviseSample says; none names the scenario and store.
func waitSample(ctx context.Context, ctl *sampleCtl, done <-chan sampleOutcome, none Sample, timeout time.Duration) (Sample, error) {
	fault := func(f *StoreFault) *StoreFault {
		f.Store, f.Scenario = none.Store, none.Scenario
		if l := ctl.label.Load(); l != nil {
			f.Label = *l
		}
		return f
	}
	abandoned := func(format string, args ...any) error {
		return fmt.Errorf("store %s, scenario %s: sample abandoned%s: %w", none.Store, none.Scenario, fmt.Sprintf(format, args...), ctx.Err())
	}
	var timer <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	for {
		select {
		case out := <-done:
			var f *StoreFault
			if errors.As(out.err, &f) {
				fault(f)
				if f.Label != "" {
					f.Goroutines, _ = labelledGoroutines(f.Label)
				}
				return none, f
			}
			if ctx.Err() != nil {
				return none, abandoned("")
			}
			return out.s, out.err
		case <-ctx.Done():
			select {
			case <-done:
				return none, abandoned("")
			case <-time.After(StopGrace):
			}
			name, detail := ctl.describe(callHarness)
			if detail != "" {
				name += " (" + detail + ")"
			}
			return none, abandoned(", %s had not returned %s later", name, StopGrace)
		case <-timer:
			ctl.stop.Store(true)
			name, detail := ctl.describe(callHarness)
			return none, fault(&StoreFault{Call: name, Detail: detail, Timeout: timeout, Stack: allStacks()})
		}
	}
}

// measureSample measures one sample of w, in a callgrind window when sim
// is not nil.
func measureSample(newStore certstore.Factory, storeName string, w *scenarios.Workload, ctl *sampleCtl, sim *simulator) (Sample, error) {
	switch w.Scenario.Kind {
	case scenarios.Handshake:
		return measureHandshake(newStore, storeName, w, ctl)
	case scenarios.HandshakeUnderChurn:
		return measureChurn(newStore, storeName, w, ctl)
	}
	return measure(newStore, storeName, w, ctl, sim)
}

// opsOf returns the timed ops of a sample of w (see measure).
func opsOf(w *scenarios.Workload) int {
	if w.Scenario.Kind == scenarios.Lookup {
		return w.Scenario.Ops
	}
	return len(w.Configs) - 1
}

// measure measures one sample of a refresh or lookup workload.
func measure(newStore certstore.Factory, storeName string, w *scenarios.Workload, ctl *sampleCtl, sim *simulator) (Sample, error) {
	ops := opsOf(w)
	s := Sample{Scenario: w.Scenario.Name, Store: storeName, Ops: ops}
	if ops <= 0 {
		return s, fmt.Errorf("scenario %s: no ops to time", w.Scenario.Name)
	}

	probe := startProbe()
	ctl.setLabel(probe.label)
	var store certstore.Store
	var timing timing
	var steady heapReading // a Held sample's store with its first generation only
	var err error
	if w.Scenario.Kind == scenarios.Held {
		ctl.held = newHolders(w)
	}
	probe.run(func() {
		defer ctl.catch(callHarness)
		if !w.FreshStore {
			sim.reset()
			store, err = firstStore(newStore, w, ctl)
		}
	})
	if err == nil && ctl.firstFault() == nil && ctl.held != nil {
		steady, err = probe.read() // off the label, as the held reading is
	}
	if err == nil && ctl.firstFault() == nil {
		probe.run(func() {
			defer ctl.catch(callHarness)
			ctl.mark(callHarness, 0, 0)
			if sim != nil {
				store, timing, err = simulateOps(sim, storeName, store, newStore, w, ops, ctl)
				return
			}
			store, timing, err = timeOps(store, newStore, w, ops, ctl)
		})
	}
	if err == nil && ctl.firstFault() != nil {
		err = errStopped // the supervisor returns the fault
	}
	if err != nil {
		closeStore(store, ctl)
		return s, fmt.Errorf("store %s, scenario %s: %w", storeName, w.Scenario.Name, err)
	}
	s.BytesPerOp = float64(timing.bytes) / float64(ops)
	s.AllocsPerOp = float64(timing.allocs) / float64(ops)
	if sim != nil {
		// No clock figures, and no peak-heap pass (a refresh at GOGC=10
		// under the simulation).
		s.Instrument = Simulate
		s.Extra = timing.sim
	} else {
		s.NsPerOp = float64(timing.elapsed.Nanoseconds()) / float64(ops)
		if timing.cpuOK {
			s.Extra = append(s.Extra, benchfmt.Value{Value: float64(timing.cpu.Nanoseconds()) / float64(ops), Unit: results.UnitCPUNsPerOp})
		}
		s.Extra = append(s.Extra, timing.gc.values(ops, false)...)
		if w.FreshStore && timing.rss > 0 {
			s.Extra = append(s.Extra, benchfmt.Value{Value: float64(timing.rss), Unit: results.UnitMaxRSS})
		}
	}
	held, err := probe.read()
	s.RetainedBytes, s.RetainedPerCert = probe.retained(held, w.Certs)
	s.Goroutines = held.goroutines
	if err == nil && sim == nil {
		var peak []benchfmt.Value
		ctl.mark(callPeak, 0, 0)
		probe.run(func() {
			defer ctl.catch(callHarness)
			peak, err = peakValues(store, newStore, w, timing.bytes/uint64(ops))
		})
		if err == nil && ctl.firstFault() != nil {
			err = errStopped
		}
		s.Extra = append(s.Extra, peak...)
	}
	if err == nil && ctl.held != nil {
		var vals []benchfmt.Value
		vals, err = heldValues(probe, ctl.held, steady, held)
		s.Extra = append(s.Extra, vals...)
	}
	runtime.KeepAlive(store)
	closeStore(store, ctl)
	if err != nil {
		return s, fmt.Errorf("store %s, scenario %s: %w", storeName, w.Scenario.Name, err)
	}
	return s, nil
}

type timing struct {
	sim           []benchfmt.Value // the simulated units (Simulate), instead of the times
	elapsed       time.Duration
	bytes, allocs uint64
	gc            gcCost        // GC over the timed ops (see gcMeter)
	cpu           time.Duration // process CPU time (user+sys) over the timed ops, if cpuOK
	cpuOK         bool
	rss           uint64 // process peak RSS right after the timed ops; 0 if unknown
}

// timeOps runs the timed ops and returns the store of the last configuration.
func timeOps(store certstore.Store, newStore certstore.Factory, w *scenarios.Workload, ops int, ctl *sampleCtl) (certstore.Store, timing, error) {
	var t timing
	var err error
	meter := startGCMeter()
	t.bytes, t.allocs = allocated(func() {
		cpu0, ok0 := cpuTime()
		start := time.Now()
		store, err = apply(store, newStore, w, ops, ctl)
		t.elapsed = time.Since(start)
		cpu1, ok1 := cpuTime()
		t.cpu, t.cpuOK = cpu1-cpu0, ok0 && ok1
	})
	t.rss, _ = maxRSS()
	t.gc = meter.stop()
	return store, t, err
}

// allocated runs f and returns the bytes and objects the process
// allocated meanwhile.
func allocated(f func()) (bytes, allocs uint64) {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc, m1.Mallocs - m0.Mallocs
}

// simulateOps runs the timed ops in a callgrind window (a warm-up: as in
// one, uncounted) and returns the last store, with the window's values.
func simulateOps(sim *simulator, storeName string, store certstore.Store, newStore certstore.Factory, w *scenarios.Workload, ops int, ctl *sampleCtl) (certstore.Store, timing, error) {
	var t timing
	var err error
	p, bytes, allocs, werr := sim.window(w.Scenario.Name, storeName, func() { store, err = apply(store, newStore, w, ops, ctl) })
	if err == nil {
		err = werr
	}
	if err != nil || p == nil {
		return store, t, err
	}
	t.bytes, t.allocs = bytes, allocs
	t.sim, err = simulatedValues(p, ops)
	return store, t, err
}

// Apply is what is timed: ops ops of w on store, which holds w.Configs[0]
// (fresh-store workloads: nil or any store, replaced per op): lookups over
// the hellos, handshakes (an error if any fails), or w.Configs[1..ops]. It
// returns the store that holds the last configuration.
func Apply(store certstore.Store, newStore certstore.Factory, w *scenarios.Workload, ops int) (certstore.Store, error) {
	return apply(store, newStore, w, ops, nil)
}

// errStopped is apply's error for a sample stopped before its last op.
var errStopped = errors.New("stopped before the last op")

// apply is Apply, stopping with errStopped once ctl (if not nil) is
// stopped (checked before each refresh and every 256 lookups), marking
// in ctl what it calls.
func apply(store certstore.Store, newStore certstore.Factory, w *scenarios.Workload, ops int, ctl *sampleCtl) (certstore.Store, error) {
	var err error
	switch {
	case w.Scenario.Kind == scenarios.Lookup:
		ctl.mark(callLookups, 0, 0)
		err = lookupOps(store, w, ops, ctl)
	case w.Scenario.Kind == scenarios.HandshakeUnderChurn:
		ctl.mark(callChurn, 0, 0)
		_, err = runChurn(store, w, churnRun{lookups: ops, ctl: ctl})
	case w.Scenario.Kind == scenarios.Handshake:
		ctl.mark(callHandshakes, 0, 0)
		var res hsResult
		res, err = runHandshakes(store, w, serverConfig(store, w), hsRun{handshakes: ops, ctl: ctl})
		if err == nil && res.errors > 0 {
			err = fmt.Errorf("%d of %d handshakes failed; first: %w", res.errors, res.attempts, res.firstErr)
		}
	case w.FreshStore:
		for i := 1; i <= ops && err == nil; i++ {
			if ctl.stopped() {
				return store, errStopped
			}
			if store != nil {
				closeStore(store, ctl)
			}
			ctl.mark(callFactory, i, ops)
			store = newStore()
			ctl.mark(callOp, i, ops)
			err = store.Update(w.Configs[i])
		}
	default:
		hold := ctl.holders(w)
		for i := 1; i <= ops && err == nil; i++ {
			if ctl.stopped() {
				return store, errStopped
			}
			if hold != nil {
				ctl.mark(callHold, i, ops)
				if err = hold.open(store); err != nil {
					break
				}
			}
			ctl.mark(callOp, i, ops)
			err = store.Update(w.Configs[i])
		}
	}
	ctl.mark(callHarness, 0, 0)
	return store, err
}

// lookupOps does ops lookups, cycling over the workload's hellos.
func lookupOps(store certstore.Store, w *scenarios.Workload, ops int, ctl *sampleCtl) error {
	hellos := w.Hellos
	if len(hellos) == 0 {
		return fmt.Errorf("lookup workload has no hellos")
	}
	for i := 0; i < ops; i++ {
		if i&255 == 0 && ctl.stopped() {
			return errStopped
		}
		c, err := store.Certificate(w.Store, hellos[i%len(hellos)])
		if err != nil || c == nil {
			return fmt.Errorf("lookup %q: %v", hellos[i%len(hellos)].ServerName, err)
		}
	}
	return nil
}

// closeStore closes s if it is a certstore.Closer, unless it faulted: its
// state is then unknown, and Close could panic again or block.
func closeStore(s certstore.Store, ctl *sampleCtl) {
	if ctl.firstFault() != nil {
		return
	}
	if c, ok := s.(certstore.Closer); ok {
		ctl.mark(callClose, 0, 0)
		c.Close()
		ctl.mark(callHarness, 0, 0)
	}
}

// heapProbe measures what a store holds: the live heap before it exists,
// and the label its goroutines carry.
type heapProbe struct {
	heap  uint64
	label string
}

func startProbe() heapProbe {
	probeTables()
	var m runtime.MemStats
	gcTwice()
	runtime.ReadMemStats(&m)
	return heapProbe{heap: m.HeapAlloc, label: sampleLabel()}
}

// probeTables makes, once, what a process's first reading of the
// goroutine profile and of runtime metrics allocate and keep (gzip's CRC
// table, the metrics' descriptions: about 22 KB), so that no sample
// counts them as its store's.
var probeTables = sync.OnceFunc(func() {
	_, _ = labelledGoroutines("")
	_ = readUint(metricLive)
})

// run calls f, which makes and uses the store, under the probe's label.
func (p heapProbe) run(f func()) { underLabel(p.label, f) }

// finish returns the heap retained since startProbe (at least 0), in all
// and per certificate, and the store's goroutines still running. The
// caller keeps the store alive across the call.
func (p heapProbe) finish(certs int) (retained, perCert float64, goroutines int, err error) {
	r, err := p.read()
	retained, perCert = p.retained(r, certs)
	return retained, perCert, r.goroutines, err
}

// heapReading is the live heap after collections, and the store's
// goroutines then.
type heapReading struct {
	heap       uint64
	goroutines int
}

// read collects garbage and reads the heap and the store's goroutines.
func (p heapProbe) read() (heapReading, error) {
	var m runtime.MemStats
	gcTwice()
	runtime.ReadMemStats(&m)
	n, err := labelledGoroutines(p.label)
	return heapReading{heap: m.HeapAlloc, goroutines: n}, err
}

// retained returns r's heap above startProbe's (at least 0), in all and
// per certificate.
func (p heapProbe) retained(r heapReading, certs int) (retained, perCert float64) {
	if r.heap > p.heap {
		retained = float64(r.heap - p.heap)
	}
	if certs > 0 {
		perCert = retained / float64(certs)
	}
	return retained, perCert
}

// gcTwice collects garbage twice before a heap reading: objects freed by
// the first cycle's finalizers and sync.Pool victim caches only go in the
// second, and a single GC leaves retained-B noisier.
func gcTwice() {
	runtime.GC()
	runtime.GC()
}

package bench

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchfmt"
)

// PeakGCPercent is the GOGC of the peak-heap pass's refresh: lower reads
// the live heap more often, more precise and slower (see measurePeak).
const PeakGCPercent = 10

// peakMu serializes peak passes: GOGC and the GC hook are process-wide.
var peakMu sync.Mutex

// gcHook reads the live heap after every GC cycle, from a finalizer that
// re-arms itself: the finalizer of an unreachable sentinel runs once the
// cycle that found it unreachable has ended, and the runtime's
// /gc/heap/live:bytes is then that cycle's marked heap.
type gcHook struct {
	active atomic.Bool   // readings are kept while set
	done   atomic.Bool   // the hook stops re-arming once set
	max    atomic.Uint64 // the largest reading kept
	seen   atomic.Int64  // readings kept
}

// sentinel has a pointer, so that it is not placed in a tiny-allocator
// block whose finalizer would wait for its neighbours.
type sentinel struct {
	_ *byte
	_ [8]byte
}

func (h *gcHook) arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		if h.active.Load() {
			h.observe(readUint(metricLive))
		}
		if !h.done.Load() {
			h.arm()
		}
	})
}

func (h *gcHook) observe(v uint64) {
	h.seen.Add(1)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

// readUint reads a uint64 runtime metric, such as metricLive.
func readUint(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakResult is what one peak pass measured.
type peakResult struct {
	peak   uint64 // bytes above the live heap before the refresh
	cycles uint64 // GC cycles during the refresh
	seen   int64  // of which the hook read
}

// measurePeak applies cfg to store (a new one from newStore when nil) and
// returns the largest live heap reached during Update, above the live
// heap (/gc/heap/live:bytes, after two GCs) just before it.
//
// The live heap is known only at a GC cycle's end, so during the refresh
// GOGC is PeakGCPercent and a stepper forces a cycle every step bytes
// allocated (a sixteenth of a timed refresh's, so that even a small
// refresh is read several times); gcHook reads every cycle's end. peak-B
// is thus low by at most about min(step, PeakGCPercent% of the heap) plus
// one cycle's allocation, and high by its floating garbage. Anything else
// the process allocates meanwhile counts.
func measurePeak(store certstore.Store, newStore certstore.Factory, cfg *certstore.Config, step uint64) (peakResult, error) {
	peakMu.Lock()
	defer peakMu.Unlock()
	var res peakResult
	gcTwice()
	base := readUint(metricLive)
	h := &gcHook{}
	h.arm()
	c0 := readUint(metricCycles)

	old := debug.SetGCPercent(PeakGCPercent)
	h.active.Store(true)
	stepper := startGCStepper(step)
	restored := false
	restore := func() {
		if restored {
			return
		}
		restored = true
		stepper.stop()
		h.observe(readUint(metricLive))
		h.active.Store(false)
		debug.SetGCPercent(old)
		h.done.Store(true)
	}
	// A panic in the store must not leave GOGC at PeakGCPercent and the
	// stepper forcing collections for the rest of the process.
	defer restore()
	fresh := store == nil
	if fresh {
		store = newStore()
	}
	err := store.Update(cfg)
	restore()

	res.cycles = readUint(metricCycles) - c0
	res.seen = h.seen.Load() - 1
	if m := h.max.Load(); m > base {
		res.peak = m - base
	}
	if fresh {
		closeStore(store, nil)
	}
	runtime.KeepAlive(store)
	return res, err
}

// PeakSteps is the fewest collections the peak pass forces over a refresh.
const PeakSteps = 16

// gcStepper forces a collection whenever step bytes
// (/gc/heap/allocs:bytes) were allocated since the last cycle it saw end.
type gcStepper struct {
	quit chan struct{}
	done chan struct{}
}

func startGCStepper(step uint64) *gcStepper {
	g := &gcStepper{quit: make(chan struct{}), done: make(chan struct{})}
	if step == 0 {
		close(g.done)
		return g
	}
	go func() {
		defer close(g.done)
		s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: metricCycles}}
		metrics.Read(s)
		mark, cycles := s[0].Value.Uint64(), s[1].Value.Uint64()
		t := time.NewTicker(100 * time.Microsecond)
		defer t.Stop()
		for {
			select {
			case <-g.quit:
				return
			case <-t.C:
			}
			metrics.Read(s)
			if c := s[1].Value.Uint64(); c != cycles { // a cycle ended: count from it
				mark, cycles = s[0].Value.Uint64(), c
			}
			if s[0].Value.Uint64()-mark >= step {
				runtime.GC()
				metrics.Read(s)
				mark, cycles = s[0].Value.Uint64(), s[1].Value.Uint64()
			}
		}
	}()
	return g
}

func (g *gcStepper) stop() {
	select {
	case <-g.done:
	default:
		close(g.quit)
		<-g.done
	}
}

// The peak pass forces a collection every sixteenth of what a refresh
// allocates, but not more often than every peakMinStep bytes: a refresh
// that allocates less than PeakSteps steps of it is read too coarsely
// (once, if at all), and one during which fewer than peakMinReadings
// collections ended was not read. Its peak is then known only to be at
// most its B/op, and not written.
const (
	peakMinStep     = 16 << 10
	peakMinReadings = 2
)

// peakValues runs the peak pass of a refresh workload after its sample
// (store holds the last configuration; nil for fresh-store workloads),
// refreshAlloc being what one timed refresh allocated, and returns
// peak-B and peak-B/cert: 0 where the timed refreshes allocated nothing,
// none where the pass could not read the peak (peakMinStep).
func peakValues(store certstore.Store, newStore certstore.Factory, w *scenarios.Workload, refreshAlloc uint64) ([]benchfmt.Value, error) {
	if w.Next == nil {
		return nil, nil
	}
	if w.FreshStore {
		store = nil
	}
	res, err := measurePeak(store, newStore, w.Next, max(refreshAlloc/PeakSteps, peakMinStep))
	switch {
	case err != nil:
		return nil, err
	case refreshAlloc == 0:
		res.peak = 0 // the timed refreshes allocated nothing: nothing added
	case refreshAlloc < PeakSteps*peakMinStep || res.seen < peakMinReadings:
		return nil, nil
	}
	perCert := 0.0
	if n := len(w.Next.Certificates); n > 0 {
		perCert = float64(res.peak) / float64(n)
	}
	return []benchfmt.Value{
		{Value: float64(res.peak), Unit: results.UnitPeak},
		{Value: perCert, Unit: results.UnitPeakPerCert},
	}, nil
}

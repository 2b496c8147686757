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

// PeakGCPercent is the GOGC the peak-heap pass runs its refresh with
// (debug.SetGCPercent): a collection whenever the heap has grown by 10%
// of the live heap, so that the live heap is read often during the
// refresh. It bounds the pass's error (see measurePeak); lower is more
// precise and slower.
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
			h.observe(readLive())
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

func readLive() uint64 {
	s := []metrics.Sample{{Name: metricLive}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// peakResult is what one peak pass measured.
type peakResult struct {
	peak   uint64 // bytes above the live heap before the refresh
	cycles uint64 // GC cycles during the refresh
	seen   int64  // of which the hook read
}

// measurePeak applies cfg to store (a new store from newStore when store
// is nil, as a startup does) and returns the largest live heap reached
// while Update ran, above the live heap just before it.
//
// Method: two forced collections, then the live heap (/gc/heap/live:bytes)
// is the baseline: the store with its previous configuration, the
// workload, the rest of the process. GOGC is set to PeakGCPercent for the
// refresh and restored after, and a stepper goroutine forces a collection
// whenever step bytes were allocated since the last cycle ended (step is
// a sixteenth of what one timed refresh allocated, so that even a
// refresh that allocates far less than GOGC's 10% of the process's heap
// is read several times); a finalizer-driven hook (gcHook) reads the
// live heap at the end of every cycle, keeping the largest reading taken
// while Update runs; one reading more is taken as Update returns (the
// last cycle's, before the previous generation can be collected). peak-B
// is that maximum less the baseline, 0 when the heap never rose above it.
//
// Error: the live heap is known only at the end of each cycle, so a
// peak between two cycles is seen as the last cycle's reading; cycles
// come every PeakGCPercent% of heap growth or every step bytes allocated,
// whichever is first (plus what is allocated while the stepper polls,
// every 100 µs, and while a cycle runs), so peak-B is low by at most
// about the smaller of the two: a sixteenth of a refresh's allocation,
// or 10% of the process's live heap, plus the allocation of one cycle's
// duration. A cycle's marked heap also counts objects allocated while
// it marked (floating garbage), high by at most that last amount. A cycle whose finalizer runs only after a later cycle has
// ended is read as that later one. The pass runs outside any timed
// window and one at a time (peakMu), but anything else the process
// allocates meanwhile counts.
func measurePeak(store certstore.Store, newStore certstore.Factory, cfg *certstore.Config, step uint64) (peakResult, error) {
	peakMu.Lock()
	defer peakMu.Unlock()
	var res peakResult
	gcTwice()
	base := readLive()
	h := &gcHook{}
	h.arm()
	var cyc [1]metrics.Sample
	cyc[0].Name = metricCycles
	metrics.Read(cyc[:])
	c0 := cyc[0].Value.Uint64()

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
		h.observe(readLive())
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

	metrics.Read(cyc[:])
	res.cycles = cyc[0].Value.Uint64() - c0
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

// PeakSteps is the number of collections the peak pass forces at least
// over one refresh: one every 1/PeakSteps of what a timed refresh
// allocated.
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

// peakValues runs the peak pass of a refresh workload after its sample
// (store holds the last configuration; nil for fresh-store workloads),
// refreshAlloc being what one timed refresh allocated, and returns
// peak-B and peak-B/cert.
func peakValues(store certstore.Store, newStore certstore.Factory, w *scenarios.Workload, refreshAlloc uint64) ([]benchfmt.Value, error) {
	if w.Next == nil {
		return nil, nil
	}
	if w.FreshStore {
		store = nil
	}
	res, err := measurePeak(store, newStore, w.Next, max(refreshAlloc/PeakSteps, 16<<10))
	if err != nil {
		return nil, err
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

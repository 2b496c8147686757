package bench

import (
	"fmt"
	"runtime"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchfmt"
)

// Sample is the measurement of one sample of one scenario on one store.
type Sample struct {
	// Scenario and Store name what was measured.
	Scenario, Store string
	// Ops is the number of timed ops.
	Ops int
	// NsPerOp is the wall time per op in nanoseconds.
	NsPerOp float64
	// BytesPerOp and AllocsPerOp are heap bytes and objects allocated per
	// op, truncated as the testing package does.
	BytesPerOp, AllocsPerOp uint64
	// RetainedBytes is the live heap the store holds after the sample,
	// measured after a GC; RetainedPerCert divides it by the certificates
	// in the last configuration.
	RetainedBytes   float64
	RetainedPerCert float64
	// Goroutines is the number of goroutines the store left running.
	Goroutines int
	// Name, when set, is the benchmark name to write instead of
	// "Churn/scenario=SCENARIO/store=STORE" (without the "Benchmark"
	// prefix and the -GOMAXPROCS suffix), as certbench sweep names its
	// samples.
	Name string
	// Extra holds measurements beyond the standard ones, written after
	// them (the latency percentiles and refresh rate of
	// HandshakeUnderChurn scenarios).
	Extra []benchfmt.Value
}

// Measure runs one sample of w on a new store from newStore.
func Measure(newStore certstore.Factory, storeName string, w *scenarios.Workload) (Sample, error) {
	if w.Scenario.Kind == scenarios.HandshakeUnderChurn {
		return measureChurn(newStore, storeName, w)
	}
	ops := len(w.Configs) - 1
	if w.Scenario.Kind == scenarios.Lookup {
		ops = w.Scenario.Ops
	}
	s := Sample{Scenario: w.Scenario.Name, Store: storeName, Ops: ops}
	if ops <= 0 {
		return s, fmt.Errorf("scenario %s: no ops to time", w.Scenario.Name)
	}

	probe := startProbe()
	var store certstore.Store
	if !w.FreshStore {
		store = newStore()
		if err := store.Update(w.Configs[0]); err != nil {
			closeStore(store)
			return s, fmt.Errorf("store %s, scenario %s: initial configuration: %w", storeName, w.Scenario.Name, err)
		}
	}
	store, timing, err := timeOps(store, newStore, w, ops)
	if err != nil {
		closeStore(store)
		return s, fmt.Errorf("store %s, scenario %s: %w", storeName, w.Scenario.Name, err)
	}
	s.NsPerOp = float64(timing.elapsed.Nanoseconds()) / float64(ops)
	s.BytesPerOp = timing.bytes / uint64(ops)
	s.AllocsPerOp = timing.allocs / uint64(ops)

	s.RetainedBytes, s.RetainedPerCert, s.Goroutines = probe.finish(w.Certs)
	runtime.KeepAlive(store)
	closeStore(store)
	return s, nil
}

type timing struct {
	elapsed       time.Duration
	bytes, allocs uint64
}

// timeOps runs the timed ops and returns the store that holds the last
// configuration (a new one per op for fresh-store workloads).
func timeOps(store certstore.Store, newStore certstore.Factory, w *scenarios.Workload, ops int) (certstore.Store, timing, error) {
	var t timing
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	start := time.Now()
	store, err := Apply(store, newStore, w, ops)
	t.elapsed = time.Since(start)
	runtime.ReadMemStats(&m1)
	t.bytes = m1.TotalAlloc - m0.TotalAlloc
	t.allocs = m1.Mallocs - m0.Mallocs
	return store, t, err
}

// Apply is what is timed: ops ops of the workload on store, which holds
// w.Configs[0] (or, for fresh-store workloads, is nil or any store: each op
// discards it and loads a new one). Lookup workloads cycle over their
// hellos; others apply w.Configs[1..ops]. It returns the store that holds
// the last configuration.
func Apply(store certstore.Store, newStore certstore.Factory, w *scenarios.Workload, ops int) (certstore.Store, error) {
	var err error
	switch {
	case w.Scenario.Kind == scenarios.Lookup:
		err = lookupOps(store, w, ops)
	case w.Scenario.Kind == scenarios.HandshakeUnderChurn:
		_, err = runChurn(store, w, churnRun{lookups: ops})
	case w.FreshStore:
		for i := 1; i <= ops && err == nil; i++ {
			if store != nil {
				closeStore(store)
			}
			store = newStore()
			err = store.Update(w.Configs[i])
		}
	default:
		for i := 1; i <= ops && err == nil; i++ {
			err = store.Update(w.Configs[i])
		}
	}
	return store, err
}

// lookupOps does ops lookups, cycling over the workload's hellos.
func lookupOps(store certstore.Store, w *scenarios.Workload, ops int) error {
	hellos := w.Hellos
	if len(hellos) == 0 {
		return fmt.Errorf("lookup workload has no hellos")
	}
	for i := 0; i < ops; i++ {
		c, err := store.Certificate(w.Store, hellos[i%len(hellos)])
		if err != nil || c == nil {
			return fmt.Errorf("lookup %q: %v", hellos[i%len(hellos)].ServerName, err)
		}
	}
	return nil
}

func closeStore(s certstore.Store) {
	if c, ok := s.(certstore.Closer); ok {
		c.Close()
	}
}

// heapProbe measures what a store holds: the live heap and goroutines
// before it exists, to be subtracted from those while it holds its last
// configuration.
type heapProbe struct {
	heap       uint64
	goroutines int
}

// startProbe reads the live heap (after garbage collection) and the
// goroutine count before a store is made.
func startProbe() heapProbe {
	var m runtime.MemStats
	gcTwice()
	runtime.ReadMemStats(&m)
	return heapProbe{heap: m.HeapAlloc, goroutines: runtime.NumGoroutine()}
}

// finish returns the heap retained since the probe started, in all and per
// certificate (0 when certs is 0), and the goroutines started since. The
// caller keeps the store alive across the call.
func (p heapProbe) finish(certs int) (retained, perCert float64, goroutines int) {
	var m runtime.MemStats
	gcTwice()
	runtime.ReadMemStats(&m)
	retained = float64(int64(m.HeapAlloc) - int64(p.heap))
	if certs > 0 {
		perCert = retained / float64(certs)
	}
	return retained, perCert, runtime.NumGoroutine() - p.goroutines
}

// gcTwice collects garbage twice before a heap reading: objects freed by
// the first cycle's finalizers and sync.Pool victim caches only go in the
// second, and a single GC leaves retained-B noisier by a few percent.
func gcTwice() {
	runtime.GC()
	runtime.GC()
}

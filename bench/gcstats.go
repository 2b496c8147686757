package bench

import (
	"math"
	"runtime"
	"runtime/metrics"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// The runtime/metrics this file reads.
const (
	metricGCCPU    = "/cpu/classes/gc/total:cpu-seconds"
	metricTotalCPU = "/cpu/classes/total:cpu-seconds"
	metricIdleCPU  = "/cpu/classes/idle:cpu-seconds"
	metricCycles   = "/gc/cycles/total:gc-cycles"
	metricPauses   = "/sched/pauses/total/gc:seconds"
	metricLive     = "/gc/heap/live:bytes"
)

// gcSnapshot is one reading of the runtime's GC accounting.
type gcSnapshot struct {
	gcCPU, busyCPU float64 // seconds: GC, and all CPU the process used (total less idle)
	cycles         uint64
}

func readGCSnapshot() gcSnapshot {
	s := []metrics.Sample{{Name: metricGCCPU}, {Name: metricTotalCPU}, {Name: metricIdleCPU}, {Name: metricCycles}}
	metrics.Read(s)
	return gcSnapshot{
		gcCPU:   s[0].Value.Float64(),
		busyCPU: s[1].Value.Float64() - s[2].Value.Float64(),
		cycles:  s[3].Value.Uint64(),
	}
}

// gcMeter measures what garbage collection cost over a window.
//
// The runtime updates /cpu/classes/... only at a GC cycle's end, so the
// window is bracketed by forced collections: one before it, and two after
// (reading after each); the second closing one, of the same live heap,
// estimates the first's cost and is subtracted. Values are the runtime's
// estimates, comparable with other /cpu/classes figures, not getrusage;
// cycles are exact.
type gcMeter struct {
	start  gcSnapshot
	pauses *metrics.Float64Histogram // GC pauses up to the window's start
}

// startGCMeter collects garbage and reads the accounting; call it
// immediately before the window.
func startGCMeter() gcMeter {
	runtime.GC()
	return gcMeter{start: readGCSnapshot(), pauses: readPauses()}
}

// gcCost is what garbage collection cost over a window.
type gcCost struct {
	// gcCPU and busyCPU are CPU seconds: GC's, and the process's in all.
	gcCPU, busyCPU float64
	// cycles is the number of GC cycles that ended in the window.
	cycles uint64
	// pauses is the distribution of GC pauses (stop-the-world phases)
	// in the window: counts per bucket of the runtime's histogram.
	pauses *metrics.Float64Histogram
}

// stop ends the window: it reads the pause histogram, then collects
// twice as the type's comment says. Call it immediately after the window.
func (m gcMeter) stop() gcCost {
	pauses := readPauses()
	runtime.GC()
	s1 := readGCSnapshot()
	runtime.GC()
	s2 := readGCSnapshot()
	c := gcCost{
		gcCPU:   max(0, (s1.gcCPU-m.start.gcCPU)-(s2.gcCPU-s1.gcCPU)),
		busyCPU: max(0, (s1.busyCPU-m.start.busyCPU)-(s2.busyCPU-s1.busyCPU)),
		pauses:  subHistogram(pauses, m.pauses),
	}
	if d := s1.cycles - m.start.cycles; d > 1 {
		c.cycles = d - 1
	}
	if c.cycles == 0 {
		// No cycle of the window's own: what the subtraction leaves is
		// the difference between the two closing collections, not GC
		// work of the window.
		c.gcCPU = 0
	}
	return c
}

func readPauses() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: metricPauses}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	h := s[0].Value.Float64Histogram()
	// Float64Histogram may share memory with later reads: copy.
	return &metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: append([]float64(nil), h.Buckets...)}
}

// subHistogram returns the counts of a less those of b (same buckets).
func subHistogram(a, b *metrics.Float64Histogram) *metrics.Float64Histogram {
	if a == nil || b == nil || len(a.Counts) != len(b.Counts) {
		return nil
	}
	d := &metrics.Float64Histogram{Counts: make([]uint64, len(a.Counts)), Buckets: a.Buckets}
	for i := range a.Counts {
		if a.Counts[i] > b.Counts[i] {
			d.Counts[i] = a.Counts[i] - b.Counts[i]
		}
	}
	return d
}

// histQuantile returns the nearest-rank p-quantile (0 < p <= 1) of a
// histogram as its bucket's upper boundary (the lower one for the last,
// unbounded, bucket), 0 when empty: at most a bucket (25%) high.
func histQuantile(h *metrics.Float64Histogram, p float64) float64 {
	if h == nil {
		return 0
	}
	var total uint64
	for _, c := range h.Counts {
		total += c
	}
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(p*float64(total) - 1e-9))
	rank = max(rank, 1)
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen >= rank {
			hi := h.Buckets[i+1]
			if math.IsInf(hi, 1) {
				return h.Buckets[i]
			}
			return hi
		}
	}
	return 0
}

// gcValues returns the GC cost units of a window of ops ops (see
// results.UnitGCCPU and the others): CPU per op, share of the process's CPU and
// cycles per op; with pauses, also the pause p99 and max.
func (c gcCost) values(ops int, pauses bool) []benchfmt.Value {
	if ops <= 0 {
		return nil
	}
	frac := 0.0
	if c.busyCPU > 0 {
		frac = min(1, c.gcCPU/c.busyCPU)
	}
	v := []benchfmt.Value{
		{Value: c.gcCPU * 1e9 / float64(ops), Unit: results.UnitGCCPU},
		{Value: frac, Unit: results.UnitGCFraction},
		{Value: float64(c.cycles) / float64(ops), Unit: results.UnitGCCycles},
	}
	if pauses {
		v = append(v,
			benchfmt.Value{Value: histQuantile(c.pauses, 0.99) * 1e9, Unit: results.UnitGCPauseP99},
			benchfmt.Value{Value: histQuantile(c.pauses, 1) * 1e9, Unit: results.UnitGCPauseMax})
	}
	return v
}

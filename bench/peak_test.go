package bench_test

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
)

// transient is a correct store whose Update also holds a 16 MiB buffer
// until it returns, while it makes 8 MiB of short-lived garbage (so that
// collections run while the buffer is live): a refresh whose peak is
// known.
type transient struct{ matchStore }

const transientBytes = 16 << 20

var peakSink []byte

func (s *transient) Update(cfg *certstore.Config) error {
	buf := make([]byte, transientBytes)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	for range 8 << 10 {
		peakSink = make([]byte, 1024)
	}
	peakSink = nil
	runtime.KeepAlive(buf)
	return s.matchStore.Update(cfg)
}

func TestPeakHeap(t *testing.T) {
	w, err := scenario(t, "rotate-10-of-100").Build(3)
	if err != nil {
		t.Fatal(err)
	}
	if w.Next == nil || len(w.Configs) != 4 {
		t.Fatalf("workload of 3 ops: %d configurations, next %v", len(w.Configs), w.Next != nil)
	}
	plain, err := bench.Measure(newMatch, "match", w)
	if err != nil {
		t.Fatal(err)
	}
	big, err := bench.Measure(func() certstore.Store { return &transient{} }, "transient", w)
	if err != nil {
		t.Fatal(err)
	}
	p, b := extra(plain), extra(big)
	// The method misses at most about 10% of the live heap (a few MB
	// here) and the buffer is live across several collections.
	if got := b[results.UnitPeak]; got < 0.9*transientBytes || got > 1.5*transientBytes {
		t.Errorf("peak-B = %.0f for a refresh holding %d bytes at its peak, want within -10%%..+50%%", got, transientBytes)
	}
	if d := b[results.UnitPeak] - p[results.UnitPeak]; d < 0.75*transientBytes {
		t.Errorf("peak-B of the transient store exceeds the plain one's by %.0f, want about %d", d, transientBytes)
	}
	if got, want := b[results.UnitPeakPerCert], b[results.UnitPeak]/10; got != want {
		t.Errorf("peak-B/cert = %v, want peak-B/10 = %v", got, want)
	}
	if big.RetainedBytes > transientBytes/2 {
		t.Errorf("retained-B %.0f: the buffer is not retained", big.RetainedBytes)
	}
	// 24 MiB allocated per refresh: collections ran in the timed ops. Their
	// CPU time is the runtime's estimate less that of the closing GC,
	// which on a loaded machine can leave nothing: it is only never
	// negative.
	if b[results.UnitGCCycles] <= 0 || b[results.UnitGCCPU] < 0 {
		t.Errorf("gc-cycles/op %v, gc-cpu-ns/op %v for refreshes allocating 24 MiB each", b[results.UnitGCCycles], b[results.UnitGCCPU])
	}
	for _, m := range []map[string]float64{p, b} {
		if f, ok := m[results.UnitGCFraction]; !ok || f < 0 || f > 1 {
			t.Errorf("gc-cpu-fraction %v, %v", f, ok)
		}
		if _, ok := m[results.UnitMaxRSS]; ok {
			t.Error("maxrss-B on a scenario that is not a startup")
		}
	}
}

func TestStartupPeakAndRSS(t *testing.T) {
	sc := scenarios.Families[3].At(20) // startup-20
	if sc.Kind != scenarios.Startup {
		t.Fatalf("family 3 is %s", sc.Kind)
	}
	w, err := sc.Build(2)
	if err != nil {
		t.Fatal(err)
	}
	s, err := bench.Measure(func() certstore.Store { return &transient{} }, "transient", w)
	if err != nil {
		t.Fatal(err)
	}
	m := extra(s)
	if got := m[results.UnitPeak]; got < 0.9*transientBytes {
		t.Errorf("startup peak-B = %.0f, want >= 90%% of %d", got, transientBytes)
	}
	if rss := m[results.UnitMaxRSS]; runtime.GOOS == "linux" && rss < transientBytes {
		t.Errorf("maxrss-B = %v on Linux, want at least the %d-byte buffer", rss, transientBytes)
	}
}

// small is a correct store whose Update keeps the configuration as it is
// (allocating nothing) or, with alloc, also makes a 512-byte buffer.
type small struct {
	matchStore
	alloc bool
	cfg   atomic.Pointer[certstore.Config]
}

var smallSink []byte

func (s *small) Update(cfg *certstore.Config) error {
	if s.alloc {
		smallSink = make([]byte, 512)
	}
	if s.cfg.Swap(cfg) == nil {
		return s.matchStore.Update(cfg) // answers from the first configuration
	}
	return nil
}

// TestPeakHeapUnread: a refresh that allocates nothing adds 0 to the
// heap; one that allocates too little for a collection to end while it
// runs has no peak-B (at most its B/op), not a peak of 0.
func TestPeakHeapUnread(t *testing.T) {
	w, err := scenario(t, "rotate-10-of-100").Build(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, alloc := range []bool{false, true} {
		s, err := bench.Measure(func() certstore.Store { return &small{alloc: alloc} }, "small", w)
		if err != nil {
			t.Fatal(err)
		}
		peak, ok := extra(s)[results.UnitPeak]
		switch {
		case s.BytesPerOp == 0 && (!ok || peak != 0):
			t.Errorf("refreshes allocating nothing: peak-B %v (written %v), want 0", peak, ok)
		case s.BytesPerOp > 0 && ok:
			t.Errorf("refreshes allocating %v B/op: peak-B %v, want none (too little to read)", s.BytesPerOp, peak)
		}
		if alloc == (s.BytesPerOp == 0) {
			t.Errorf("alloc %v: B/op %v", alloc, s.BytesPerOp)
		}
	}
}

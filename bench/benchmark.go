package bench

import (
	"runtime"
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
)

// Benchmark runs a scenario on a store under go test -bench, b.N ops of
// the code Run times, and reports retained-B, retained-B/cert and
// goroutines besides the testing package's metrics (use -benchmem, and
// -benchtime=Nx to fix the op count; testing truncates B/op and
// allocs/op to integers, certbench run does not, and a store's count may
// vary between runs by map growth). newStore makes a new, empty store
// per call; a package's own constructor fits as it is:
//
//	func BenchmarkMyStore(b *testing.B) {
//		sc, err := scenarios.ByName("rotate-10-of-100")
//		if err != nil {
//			b.Fatal(err)
//		}
//		bench.Benchmark(b, mystore.New, sc[0])
//	}
func Benchmark[S certstore.Store](b *testing.B, newStore func() S, sc scenarios.Scenario) {
	b.Helper()
	if newStore == nil {
		b.Fatal("bench.Benchmark: nil newStore")
	}
	var factory certstore.Factory = func() certstore.Store { return newStore() }
	ops := b.N
	if sc.Kind == scenarios.Lookup {
		ops = 0 // one cycle of hellos serves any b.N
	}
	w, err := sc.Build(ops)
	if err != nil {
		b.Fatal(err)
	}
	if sc.Kind == scenarios.Lookup {
		w.Scenario.Ops = b.N
	}
	probe := startProbe()
	var held certstore.Store
	probe.run(func() {
		var store certstore.Store
		if !w.FreshStore {
			if store, err = firstStore(factory, w, nil); err != nil {
				held = store
				return
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		held, err = Apply(store, factory, w, b.N)
		b.StopTimer()
	})
	if err != nil {
		closeStore(held, nil)
		b.Fatal(err)
	}
	retained, perCert, goroutines, err := probe.finish(w.Certs)
	if err != nil {
		closeStore(held, nil)
		b.Fatal(err)
	}
	b.ReportMetric(retained, results.UnitRetained)
	if w.Certs > 0 {
		b.ReportMetric(perCert, results.UnitRetainedPerCert)
	}
	b.ReportMetric(float64(goroutines), results.UnitGoroutines)
	runtime.KeepAlive(held)
	closeStore(held, nil)
}

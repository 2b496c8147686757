package bench

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
)

// Benchmark runs a scenario on a store under go test -bench, with b.N ops,
// the same code Run times. It reports the retained-B, retained-B/cert and
// goroutines metrics besides the testing package's own; use -benchmem for
// B/op and allocs/op and -benchtime=Nx to fix the op count. B/op and
// allocs/op are then the testing package's, truncated to integers (0.2
// allocs/op prints as 0); certbench run writes the unrounded ratios.
//
// newStore makes a new, empty store on every call. It may return the
// store's concrete type, so a package's own constructor fits as it is
// (mystore.New returning *mystore.Store), as does a [certstore.Factory]
// (certstore.Info.New):
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
			store = factory()
			if err = store.Update(w.Configs[0]); err != nil {
				err = fmt.Errorf("initial configuration: %w", err)
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

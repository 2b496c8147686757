package bench_test

import (
	"fmt"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
	_ "github.com/certbench/certbench/stores/naive"
	"github.com/certbench/certbench/stores/optimized"
)

// BenchmarkChurn runs every catalogued scenario on every registered store,
// named as certbench run names them, so that
//
//	go test -run '^$' -bench . -benchmem -benchtime 10x ./bench/
//
// gives results that benchstat and certbench compare read alike.
func BenchmarkChurn(b *testing.B) {
	for _, sc := range scenarios.Catalogue {
		b.Run("scenario="+sc.Name, func(b *testing.B) {
			for _, st := range certstore.Registered() {
				b.Run("store="+st.Name, func(b *testing.B) {
					bench.Benchmark(b, st.New, sc)
				})
			}
		})
	}
}

// A store's benchmark passes its own constructor, whatever concrete type it
// returns (here optimized.New, a func() *optimized.Store), or a
// certstore.Factory such as certstore.Info.New. In a store's _test.go:
//
//	func BenchmarkRotate(b *testing.B) {
//		sc, err := scenarios.ByName("rotate-10-of-100")
//		if err != nil {
//			b.Fatal(err)
//		}
//		bench.Benchmark(b, mystore.New, sc[0])
//	}
//
// Here testing.Benchmark runs the same function outside go test -bench.
func ExampleBenchmark() {
	sc, err := scenarios.ByName("rotate-10-of-100")
	if err != nil {
		fmt.Println(err)
		return
	}
	r := testing.Benchmark(func(b *testing.B) {
		bench.Benchmark(b, optimized.New, sc[0])
	})
	fmt.Println("ran:", r.N > 0, "allocates:", r.AllocsPerOp() > 0)
	// Output: ran: true allocates: true
}

package regressions_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/stores/optimized"
	"github.com/certbench/certbench/stores/regressions"
)

// TestJanitorGoroutinePerHeldGeneration checks the Janitor variant's
// shape: one goroutine per held generation, gone once it is released.
func TestJanitorGoroutinePerHeldGeneration(t *testing.T) {
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 1, Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := regressions.Wrap(regressions.Janitor, func() certstore.Store { return optimized.New() })()
	base := runtime.NumGoroutine()
	const held = 20
	var gens []certstore.Generation
	for range held {
		if err := s.Update(&certstore.Config{Certificates: pool.Certificates(0, 2)}); err != nil {
			t.Fatal(err)
		}
		gens = append(gens, s.Current())
	}
	if n := runtime.NumGoroutine() - base; n < held {
		t.Fatalf("%d goroutines for %d held generations, want at least %d", n, held, held)
	}
	runtime.KeepAlive(gens)
	gens = nil
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine()-base > 1; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left after releasing every generation but the current", runtime.NumGoroutine()-base)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

package regressions_test

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/regressions"
	"github.com/certbench/certbench/stores/optimized"
)

// TestJanitorGoroutinePerHeldGeneration checks the Janitor variant's
// shape: one goroutine per held generation, gone once it is released.
func TestJanitorGoroutinePerHeldGeneration(t *testing.T) {
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 1, Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	s := regressions.Wrap(regressions.Janitor, func() certstore.Store { return optimized.New() })()
	const held = 20
	var gens []certstore.Generation
	for range held {
		if err := s.Update(&certstore.Config{Certificates: pool.Certificates(0, 2)}); err != nil {
			t.Fatal(err)
		}
		gens = append(gens, s.Current())
	}
	// A goroutine just started may not be running yet.
	for deadline := time.Now().Add(10 * time.Second); janitors() < held && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := janitors(); n != held {
		t.Fatalf("%d janitors for %d held generations, want %d", n, held, held)
	}
	runtime.KeepAlive(gens)
	gens = nil
	for deadline := time.Now().Add(10 * time.Second); janitors() > 1; {
		if time.Now().After(deadline) {
			t.Fatalf("%d janitors left after releasing every generation but the current", janitors())
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// janitors counts the goroutines running a Janitor store's janitor (other
// tests' goroutines may still be winding down).
func janitors() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Count(buf[:n], []byte("regressions.janitor("))
		}
		buf = make([]byte, 2*len(buf))
	}
}

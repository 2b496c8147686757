package bench

import (
	"io"
	"math"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
	"github.com/certbench/certbench/stores/naive"
	"github.com/certbench/certbench/stores/optimized"
)

// TestHandshakeMix checks the phase does what the scenario says on the
// real stores: no error, the share of resumed handshakes, misses served
// (and verified as) the configured default, TLS 1.2 and 1.3 alike.
func TestHandshakeMix(t *testing.T) {
	sc, err := scenarios.ByName("handshake-1000")
	if err != nil {
		t.Fatal(err)
	}
	s := sc[0]
	s.Pool.Count = 60
	w, err := s.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]certstore.Store{"naive": naive.New(), "optimized": optimized.New()} {
		if err := st.Update(w.Configs[0]); err != nil {
			t.Fatal(err)
		}
		// The count ends the phase; the duration only bounds it, and
		// must not end it first however loaded the machine.
		res, err := runHandshakes(st, w, serverConfig(st, w), hsRun{handshakes: 400, duration: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if res.errors != 0 || res.attempts != 400 || res.succeeded != 400 {
			t.Errorf("%s: %d attempts, %d succeeded, %d errors (first %v)", name, res.attempts, res.succeeded, res.errors, res.firstErr)
		}
		// 20% offer a session (after each client's first handshake) and
		// the server takes them all.
		if res.resumed < 70 || res.resumed > 80 {
			t.Errorf("%s: %d of 400 resumed, want about 80", name, res.resumed)
		}
		// Two hellos in ten are misses, of the 80% that are full.
		if res.misses < 50 || res.misses > 80 {
			t.Errorf("%s: %d misses, want about 64", name, res.misses)
		}
		if len(res.latencies) != res.succeeded {
			t.Errorf("%s: %d latencies for %d handshakes", name, len(res.latencies), res.succeeded)
		}
	}
}

func TestShareAt(t *testing.T) {
	for _, share := range []float64{0, 0.2, 0.25, 1} {
		n := 0
		for i := range 1000 {
			if shareAt(i, share) {
				n++
			}
		}
		if want := int(share * 1000); n != want {
			t.Errorf("share %v: %d of 1000", share, n)
		}
	}
}

func TestMemPipe(t *testing.T) {
	a, b := memPipe()
	if _, err := a.Write([]byte("hello")); err != nil { // never waits for the reader
		t.Fatal(err)
	}
	a.Close()
	got, err := io.ReadAll(b)
	if err != nil || string(got) != "hello" {
		t.Errorf("read %q, %v after the writer closed", got, err)
	}
	if _, err := b.Write([]byte("x")); err == nil {
		t.Error("write to a closed pipe succeeded")
	}
	c, d := memPipe()
	done := make(chan error)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	time.Sleep(10 * time.Millisecond)
	c.Close() // wakes the blocked Read
	if err := <-done; err != io.EOF {
		t.Errorf("blocked read after Close: %v", err)
	}
	d.Close()
}

func TestHistQuantile(t *testing.T) {
	h := &metrics.Float64Histogram{Buckets: []float64{0, 1, 2, 4, math.Inf(1)}, Counts: []uint64{98, 1, 0, 1}}
	for _, c := range []struct{ p, want float64 }{{0.5, 1}, {0.98, 1}, {0.99, 2}, {1, 4}} {
		if got := histQuantile(h, c.p); got != c.want {
			t.Errorf("q(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := histQuantile(&metrics.Float64Histogram{Buckets: []float64{0, 1}, Counts: []uint64{0}}, 0.99); got != 0 {
		t.Errorf("empty: %v", got)
	}
}

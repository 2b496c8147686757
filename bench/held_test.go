package bench_test

import (
	"crypto/tls"
	"strings"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/regressions"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"github.com/certbench/certbench/stores/optimized"
)

// heldWorkload returns the held family's workload at n held generations.
func heldWorkload(t *testing.T, n int) *scenarios.Workload {
	t.Helper()
	fam, err := scenarios.FamilyByName("held")
	if err != nil {
		t.Fatal(err)
	}
	w, err := fam.At(n).Build(0)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// heldUnits measures one sample of w and returns its held units.
func heldUnits(t *testing.T, w *scenarios.Workload, name string, newStore certstore.Factory) map[string]float64 {
	t.Helper()
	s, err := bench.Measure(newStore, name, w)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, v := range s.Extra {
		got[v.Unit] = v.Value
	}
	for _, u := range []string{results.UnitHeldPerGen, results.UnitHeldGoroutinesPerGen, results.UnitReleasedHeld, results.UnitReleasedHeldGoroutines} {
		if _, ok := got[u]; !ok {
			t.Fatalf("%s: no %s in the sample's values %v", name, u, s.Extra)
		}
	}
	t.Logf("%s: %.0f held-B/gen, %.2f held-goroutines/gen, %.0f released-held-B, %.0f released-held-goroutines", name,
		got[results.UnitHeldPerGen], got[results.UnitHeldGoroutinesPerGen], got[results.UnitReleasedHeld], got[results.UnitReleasedHeldGoroutines])
	return got
}

// TestHeldJanitorAgainstOptimized checks the held units on the shape of
// the go-cache janitor (a goroutine and 64 KiB per generation until the
// generation is collected): held, one goroutine and at least the buffer
// more per generation than the optimized store, which starts none; let
// go, both back to their steady state.
func TestHeldJanitorAgainstOptimized(t *testing.T) {
	const held = 20
	w := heldWorkload(t, held)
	opt := func() certstore.Store { return optimized.New() }
	o := heldUnits(t, w, "optimized", opt)
	j := heldUnits(t, w, "janitor", regressions.Wrap(regressions.Janitor, opt))
	if g := o[results.UnitHeldGoroutinesPerGen]; g != 0 {
		t.Errorf("optimized: %v held-goroutines/gen, want 0", g)
	}
	if g := j[results.UnitHeldGoroutinesPerGen]; g != 1 {
		t.Errorf("janitor: %v held-goroutines/gen, want 1 (one janitor per held generation)", g)
	}
	// The buffer less what the collector's timing may move: 4 KiB a generation.
	if d := j[results.UnitHeldPerGen] - o[results.UnitHeldPerGen]; d < regressions.JanitorBytes-4<<10 {
		t.Errorf("janitor holds %.0f B/gen more than optimized, want about its %d B buffer or more", d, regressions.JanitorBytes)
	}
	for name, u := range map[string]map[string]float64{"optimized": o, "janitor": j} {
		if g := u[results.UnitReleasedHeldGoroutines]; g != 0 {
			t.Errorf("%s: %v released-held-goroutines, want 0 once every generation is let go", name, g)
		}
		if b := u[results.UnitReleasedHeld]; b >= regressions.JanitorBytes {
			t.Errorf("%s: %.0f released-held-B, want less than one janitor's buffer (%d B) once every generation is let go", name, b, regressions.JanitorBytes)
		}
	}
}

// leakyStore starts a goroutine on every Update that runs until the test
// ends: released-held-goroutines must count them, within a bounded wait.
type leakyStore struct {
	certstore.Store
	stop chan struct{}
}

func (s *leakyStore) Update(cfg *certstore.Config) error {
	go func() { <-s.stop }()
	return s.Store.Update(cfg)
}

func TestHeldLeakIsReported(t *testing.T) {
	const held = 10
	w := heldWorkload(t, held)
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	u := heldUnits(t, w, "leaky", func() certstore.Store { return &leakyStore{Store: optimized.New(), stop: stop} })
	if g := u[results.UnitHeldGoroutinesPerGen]; g != 1 {
		t.Errorf("%v held-goroutines/gen, want 1", g)
	}
	// One per refresh after the steady reading: the held ones and the peak pass's.
	if g := u[results.UnitReleasedHeldGoroutines]; g < held {
		t.Errorf("%v released-held-goroutines, want at least the %d that never stop", g, held)
	}
}

// forgetful is a store whose generations lose their certificates once
// the next is published: a lookup through a held connection fails.
type forgetful struct{ certstore.Store }

type emptyGen struct{}

func (emptyGen) Certificate(string, *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return nil, certstore.ErrNoCertificate
}

func (forgetful) Current() certstore.Generation { return emptyGen{} }

func TestHeldLooksUpThroughTheHeldGeneration(t *testing.T) {
	w := heldWorkload(t, 2)
	_, err := bench.Measure(func() certstore.Store { return forgetful{optimized.New()} }, "forgetful", w)
	if err == nil || !strings.Contains(err.Error(), "in its held generation") {
		t.Fatalf("err = %v, want the failed lookup through the held connection", err)
	}
}

package bench_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"github.com/certbench/certbench/stores/optimized"
	"golang.org/x/perf/benchfmt"
)

// rareAlloc wraps a store and allocates 32 bytes on one lookup in every.
type rareAlloc struct {
	certstore.Store
	every, calls int
}

var sink []byte

func (s *rareAlloc) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	s.calls++
	if s.calls%s.every == 0 {
		sink = make([]byte, 32)
	}
	return s.Store.Certificate(store, hello)
}

// TestMeasureCountsRareAllocations checks that a lookup path that
// allocates on one lookup in 5, or one in 1,000, is not reported as 0
// allocs/op (the truncated total/ops) but as about 0.2 or 0.001.
//
// The counters are process-wide, so anything else the process allocates
// during the window (the runtime's own background work) adds to them:
// the test asserts at least the store's allocations, and at most 50
// more over the window.
func TestMeasureCountsRareAllocations(t *testing.T) {
	w, err := scenario(t, "lookup-1000").Build(0)
	if err != nil {
		t.Fatal(err)
	}
	const background = 50 // allocations by others the window may see
	for _, every := range []int{5, 1000} {
		newStore := func() certstore.Store { return &rareAlloc{Store: optimized.New(), every: every} }
		s, err := bench.Measure(newStore, "rare", w)
		if err != nil {
			t.Fatal(err)
		}
		ops := float64(s.Ops)
		want := float64(s.Ops/every) / ops
		if !(s.AllocsPerOp >= want && s.AllocsPerOp <= want+background/ops) {
			t.Errorf("one allocation every %d lookups: %v allocs/op, want %v (up to %v)", every, s.AllocsPerOp, want, want+background/ops)
		}
		if !(s.AllocsPerOp > 0) {
			t.Errorf("one allocation every %d lookups reported as 0 allocs/op", every)
		}
		if !(s.BytesPerOp >= 32*want && s.BytesPerOp <= 32*want+background*1024/ops) {
			t.Errorf("one 32-byte allocation every %d lookups: %v B/op, want about %v", every, s.BytesPerOp, 32*want)
		}
		var buf bytes.Buffer
		if err := results.NewWriter(&buf).Write(s); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), " 0 allocs/op") {
			t.Errorf("written as 0 allocs/op: %s", buf.String())
		}
	}
}

// cancelling is the simple store, calling onUpdate before each update.
type cancelling struct {
	simpleStore
	onUpdate func()
}

func (s *cancelling) Update(cfg *certstore.Config) error {
	s.onUpdate()
	return s.simpleStore.Update(cfg)
}

// TestRunInterrupted cancels the context in the middle of the third
// sample, as a signal would: the two complete samples are emitted, the
// third is not, and what is written parses with only complete samples.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// An unrelated goroutine that exits when ctx is cancelled, as
	// signal.NotifyContext's does: it must not show in any count.
	go func() { <-ctx.Done() }()
	var updates atomic.Int64
	// rotate-10-of-100 with 3 ops: 5 updates per sample (the initial
	// configuration, 3 timed and the peak-heap pass's); the 12th is the
	// third sample's first timed op.
	newStore := func() certstore.Store {
		return &cancelling{onUpdate: func() {
			if updates.Add(1) == 12 {
				cancel()
			}
		}}
	}
	opts := bench.Options{
		Stores:    []certstore.Info{{Name: "cancelling", New: newStore}},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
		Count:     5,
		Ops:       3,
	}
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	err := bench.Run(ctx, opts, func(s bench.Sample) error { return w.Write(s) })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	// The cancellation reaches the timed loop through a flag that a
	// goroutine of context.AfterFunc sets, so on a loaded machine the
	// third sample may still run to its end (15 updates) before it is
	// dropped; Run itself checks the context between samples, so a fourth
	// sample never starts.
	if n := updates.Load(); n > 15 {
		t.Errorf("%d updates: another sample started after the cancellation", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Samples() != 2 {
		t.Errorf("%d samples written, want the 2 complete ones", w.Samples())
	}
	checkComplete(t, buf.String(), 2, 3)
}

// checkComplete parses text and checks it has n results, each with every
// metric, iters iterations and no negative value.
func checkComplete(t *testing.T, text string, n, iters int) {
	t.Helper()
	r := benchfmt.NewReader(strings.NewReader(text), "interrupted.txt")
	got := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("does not parse: %v", rec)
		case *benchfmt.Result:
			got++
			if rec.Iters != iters {
				t.Errorf("%s: %d iterations, want %d", rec.Name, rec.Iters, iters)
			}
			for _, u := range []string{"sec/op", "B/op", "allocs/op", results.UnitRetained, results.UnitRetainedPerCert, results.UnitGoroutines} {
				if _, ok := rec.Value(u); !ok {
					t.Errorf("%s: no %s", rec.Name, u)
				}
			}
			for _, v := range rec.Values {
				if v.Value < 0 {
					t.Errorf("%s: %v %s", rec.Name, v.Value, v.Unit)
				}
			}
		}
	}
	if got != n {
		t.Errorf("%d results, want %d:\n%s", got, n, text)
	}
}

func TestMeasureChurnInterrupted(t *testing.T) {
	sc := scenario(t, "handshake-under-churn")
	sc.Ops = 1 << 40 // only the cancellation ends it (and the latency buffer stays bounded)
	sc.Pool.Count = 50
	sc.Duration = time.Hour
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var updates atomic.Int64
	newStore := func() certstore.Store {
		return &cancelling{onUpdate: func() {
			if updates.Add(1) == 1+bench.ChurnWarmup+3 {
				cancel() // during the timed window
			}
		}}
	}
	if _, err := bench.MeasureContext(ctx, newStore, "cancelling", w); !errors.Is(err, context.Canceled) {
		t.Fatalf("MeasureContext: %v, want context.Canceled", err)
	}
}

// goroutineStore starts n goroutines on its first update, which run until
// Close, and calls onUpdate on every update.
type goroutineStore struct {
	simpleStore
	n        int
	onUpdate func()
	stop     chan struct{}
	wg       sync.WaitGroup
}

func (s *goroutineStore) Update(cfg *certstore.Config) error {
	if s.stop == nil {
		s.stop = make(chan struct{})
		for range s.n {
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				<-s.stop
			}()
		}
	}
	if s.onUpdate != nil {
		s.onUpdate()
	}
	return s.simpleStore.Update(cfg)
}

func (s *goroutineStore) Close() error {
	if s.stop != nil {
		close(s.stop)
		s.wg.Wait()
	}
	return nil
}

// TestGoroutinesAreTheStores checks that the goroutines metric counts the
// goroutines the store runs, and not goroutines of the process that start
// or end during the sample (a signal handler's exiting made it -1).
func TestGoroutinesAreTheStores(t *testing.T) {
	w, err := scenario(t, "rotate-10-of-100").Build(3)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		quit := make(chan struct{})
		var done sync.WaitGroup
		for range 3 { // unrelated goroutines, ending during the sample
			done.Add(1)
			go func() {
				defer done.Done()
				<-quit
			}()
		}
		// spawner starts an unrelated goroutine when asked, outside the
		// store's call tree.
		late := make(chan struct{})
		defer close(late)
		spawn, spawned := make(chan struct{}), make(chan struct{})
		go func() {
			<-spawn
			go func() { <-late }()
			close(spawned)
		}()
		var once sync.Once
		newStore := func() certstore.Store {
			return &goroutineStore{n: 2, onUpdate: func() {
				once.Do(func() {
					close(quit)
					done.Wait()
					close(spawn)
					<-spawned
				})
			}}
		}
		s, err := bench.Measure(newStore, "goroutines", w)
		if err != nil {
			t.Fatal(err)
		}
		if s.Goroutines != 2 {
			t.Errorf("goroutines %d, want the store's 2", s.Goroutines)
		}
	}
}

// TestRetainedNeverNegative frees a large buffer during the sample, so
// that the heap ends smaller than it started: retained-B is 0, not
// negative.
func TestRetainedNeverNegative(t *testing.T) {
	w, err := scenario(t, "rotate-10-of-100").Build(2)
	if err != nil {
		t.Fatal(err)
	}
	var big atomic.Pointer[[]byte]
	buf := new([]byte)
	*buf = make([]byte, 16<<20)
	big.Store(buf)
	buf = nil
	newStore := func() certstore.Store {
		return &cancelling{onUpdate: func() { big.Store(nil) }}
	}
	s, err := bench.Measure(newStore, "shrinking", w)
	if err != nil {
		t.Fatal(err)
	}
	if s.RetainedBytes != 0 || s.RetainedPerCert != 0 {
		t.Errorf("retained %v B (%v B/cert) after the heap shrank by 16 MiB, want 0", s.RetainedBytes, s.RetainedPerCert)
	}
}

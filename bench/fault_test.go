package bench_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/regressions"
	"github.com/certbench/certbench/scenarios"
)

// runFaults runs opts, collecting the samples emitted (store/sample
// names) and the faults reported.
func runFaults(t *testing.T, ctx context.Context, opts bench.Options) (emitted []string, faults []*bench.StoreFault, err error) {
	t.Helper()
	var mu sync.Mutex
	opts.Fault = func(f *bench.StoreFault) error {
		mu.Lock()
		defer mu.Unlock()
		faults = append(faults, f)
		return nil
	}
	err = bench.Run(ctx, opts, func(s bench.Sample) error {
		emitted = append(emitted, s.Store)
		return nil
	})
	return emitted, faults, err
}

// A store that panics in Update ends its sample and its other samples of
// the scenario, with a fault naming the store, scenario, sample and
// call; the other store's samples are all measured, and Run goes on.
func TestRunPanicInUpdate(t *testing.T) {
	lookups := scenario(t, "lookup-1000")
	lookups.Pool.Count = 60
	opts := bench.Options{
		Stores: []certstore.Info{
			{Name: "a", New: newSimple},
			{Name: "boom", New: regressions.Panic(3, newSimple)}, // the initial configuration is the first Update
		},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100"), lookups},
		Count:     3,
		Ops:       4,
	}
	emitted, faults, err := runFaults(t, context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	// lookup-1000 makes one Update: boom's samples are all measured there.
	if got, want := strings.Join(emitted, " "), "a a a a boom a boom a boom"; got != want {
		t.Errorf("samples emitted %q, want %q", got, want)
	}
	if len(faults) != 1 {
		t.Fatalf("%d faults, want 1: %v", len(faults), faults)
	}
	f := faults[0]
	if f.Store != "boom" || f.Scenario != "rotate-10-of-100" || f.Sample != 1 || f.Call != "Update" || f.Detail != "configuration 2 of 4" || f.Hung() || f.Stops() {
		t.Errorf("fault %+v", f)
	}
	if f.Name != "Churn/scenario=rotate-10-of-100/store=boom" {
		t.Errorf("fault's name %q", f.Name)
	}
	if want := "store boom, scenario rotate-10-of-100, sample 1: panic in Update (configuration 2 of 4): regressions: update 3: deliberate panic"; f.Error() != want {
		t.Errorf("fault\n%s\nwant\n%s", f.Error(), want)
	}
	if f.Reason() != "panic in Update (configuration 2 of 4)" {
		t.Errorf("reason %q", f.Reason())
	}
	if !strings.Contains(string(f.Stack), "regressions.(*faulty).Update") || !strings.Contains(string(f.Stack), "panic(") {
		t.Errorf("stack does not show the panic in the store's Update:\n%s", f.Stack)
	}
}

// Without Options.Fault, a fault ends Run as an error.
func TestRunFaultWithoutHandler(t *testing.T) {
	err := bench.Run(context.Background(), bench.Options{
		Stores:    []certstore.Info{{Name: "boom", New: regressions.Panic(1, newSimple)}},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
		Count:     2,
		Ops:       2,
	}, func(bench.Sample) error { return nil })
	var f *bench.StoreFault
	if !errors.As(err, &f) || f.Call != "Update" || f.Detail != "initial configuration" {
		t.Fatalf("Run: %v, want the fault of the initial configuration", err)
	}
}

// panicking panics in the calls it is told to, after a correct first
// Update.
type panicking struct {
	simpleStore
	lookup bool
}

func (s *panicking) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if s.lookup {
		panic("lookup panics")
	}
	return s.simpleStore.Certificate(store, hello)
}

// closePanics panics in Close.
type closePanics struct{ simpleStore }

func (*closePanics) Close() error { panic("close panics") }

// Each call the harness makes into a store is named when it panics, on
// whichever goroutine it runs: the timed lookups, a handshake's
// GetCertificate on a server goroutine, a churn window's lookup
// goroutines, the factory, Close.
func TestMeasurePanicNamesTheCall(t *testing.T) {
	small := func(name string, ops int) *scenarios.Workload {
		sc := scenario(t, name)
		sc.Pool.Count = 60
		sc.Ops = ops
		sc.Duration = 5 * time.Second
		w, err := sc.Build(0)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	lookups := func() certstore.Store { return &panicking{lookup: true} }
	for _, tc := range []struct {
		name     string
		w        *scenarios.Workload
		newStore certstore.Factory
		call     string
		detail   string
	}{
		{"lookup", small("lookup-1000", 1000), lookups, "Certificate", "lookups"},
		{"handshake", small("handshake-1000", 20), lookups, "Certificate", "through GetCertificate, in a handshake"},
		{"churn", small("handshake-under-churn", 2000), lookups, "Certificate", "lookups under churn"},
		{"factory", small("rotate-10-of-100", 2), func() certstore.Store { panic("factory panics") }, "the factory", ""},
		{"close", small("rotate-10-of-100", 2), func() certstore.Store { return &closePanics{} }, "Close", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bench.MeasureContext(context.Background(), tc.newStore, "p", tc.w)
			var f *bench.StoreFault
			if !errors.As(err, &f) {
				t.Fatalf("MeasureContext: %v, want a *StoreFault", err)
			}
			if f.Call != tc.call || f.Detail != tc.detail || f.Panic == nil {
				t.Errorf("fault: call %q (%q), panic %v; want %q (%q)", f.Call, f.Detail, f.Panic, tc.call, tc.detail)
			}
		})
	}
}

// A panic in the peak-heap pass (an untimed Update after the sample's
// readings, under a lowered GOGC) is named, and GOGC is restored.
func TestMeasurePanicInPeakPass(t *testing.T) {
	w, err := scenario(t, "rotate-10-of-100").Build(2)
	if err != nil {
		t.Fatal(err)
	}
	before := debug.SetGCPercent(100)
	debug.SetGCPercent(before)
	// Updates 1 to 3: the initial configuration and the two timed ops.
	_, err = bench.MeasureContext(context.Background(), regressions.Panic(4, newSimple), "p", w)
	var f *bench.StoreFault
	if !errors.As(err, &f) || f.Call != "Update" || f.Detail != "peak-heap pass" {
		t.Fatalf("MeasureContext: %v, want a panic in the peak-heap pass", err)
	}
	if after := debug.SetGCPercent(before); after != before {
		t.Errorf("GOGC %d after the panic, want %d restored", after, before)
	}
}

// A store whose refresher panics under churn is named by its refresh.
func TestMeasurePanicInChurnRefresh(t *testing.T) {
	sc := scenario(t, "handshake-under-churn")
	sc.Pool.Count = 60
	sc.Ops = 1 << 30 // ends by the panic, or by the duration
	sc.Duration = time.Minute
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	// Update 1 is the initial configuration, 2 and 3 the warmup
	// refreshes: 5 is the refresher's second, refresh 4.
	_, err = bench.MeasureContext(context.Background(), regressions.Panic(5, newSimple), "p", w)
	var f *bench.StoreFault
	if !errors.As(err, &f) || f.Call != "Update" || f.Detail != fmt.Sprintf("refresh %d", 4) {
		t.Fatalf("MeasureContext: %v, want a panic in Update (refresh 4)", err)
	}
}

// A store whose Update does not return is abandoned when the sample
// timeout passes: the fault names the call, holds every goroutine's
// stack with the sample's label, and stops Run, which returns it; the
// samples before it were emitted.
func TestRunHangingStore(t *testing.T) {
	t.Parallel() // it waits out SampleTimeout, as the other hang tests do: together
	release := make(chan struct{})
	defer close(release) // lets the stuck goroutine end
	opts := bench.Options{
		Stores: []certstore.Info{
			{Name: "a", New: newSimple},
			{Name: "hang", New: regressions.Hang(3, release, newSimple)},
		},
		Scenarios:     []scenarios.Scenario{scenario(t, "rotate-10-of-100"), scenario(t, "noop-10000")},
		Count:         3,
		Ops:           4,
		SampleTimeout: 10 * time.Second, // long enough for a's sample on a loaded machine
	}
	emitted, faults, err := runFaults(t, context.Background(), opts)
	var f *bench.StoreFault
	if !errors.As(err, &f) || len(faults) != 1 || faults[0] != f {
		t.Fatalf("Run: %v, faults %v; want the one fault", err, faults)
	}
	if got := strings.Join(emitted, " "); got != "a" {
		t.Errorf("samples emitted %q, want only a's first (nothing after the hang)", got)
	}
	if !f.Hung() || !f.Stops() || f.Call != "Update" || f.Detail != "configuration 2 of 4" || f.Timeout != 10*time.Second || f.Sample != 1 {
		t.Errorf("fault %+v", f)
	}
	if want := "store hang, scenario rotate-10-of-100, sample 1: Update (configuration 2 of 4) did not return within 10s"; f.Error() != want {
		t.Errorf("fault\n%s\nwant\n%s", f.Error(), want)
	}
	label := fmt.Sprintf("%q: %q", bench.SampleLabel, f.Label)
	if f.Label == "" || !strings.Contains(string(f.Stack), label) || !strings.Contains(string(f.Stack), "regressions.(*faulty).Update") {
		t.Errorf("stack lacks the store's goroutine labelled %s:\n%s", label, f.Stack)
	}
}

// After a hang Run measures nothing more: the other store's next sample
// is not taken.
func TestRunStopsAfterAHang(t *testing.T) {
	t.Parallel() // see TestRunHangingStore
	release := make(chan struct{})
	defer close(release)
	opts := bench.Options{
		Stores: []certstore.Info{
			{Name: "a", New: newSimple},
			{Name: "hang", New: regressions.Hang(1, release, newSimple)}, // its initial configuration
		},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
		Count:     2,
		Ops:       2,
		// Store a's samples (the pool's generation and parsing included)
		// must never reach it, even under -race on a loaded machine: at
		// 1 s they did, and a took the fault meant for hang. The wait is
		// TestRunHangingStore's, in parallel.
		SampleTimeout: 10 * time.Second,
	}
	emitted, faults, err := runFaults(t, context.Background(), opts)
	if !errors.As(err, new(*bench.StoreFault)) || len(faults) != 1 || faults[0].Store != "hang" {
		t.Fatalf("Run: %v, faults %v; want one, of store hang", err, faults)
	}
	if got := strings.Join(emitted, " "); got != "a" {
		t.Errorf("emitted %q, want a", got)
	}
}

// An interrupted Run returns within bench.StopGrace of the interrupt even
// when the store is stuck in a call. The bound checked is generous: a
// liveness check, not a timing.
func TestRunInterruptedWhileHung(t *testing.T) {
	t.Parallel() // see TestRunHangingStore
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	opts := bench.Options{
		Stores:        []certstore.Info{{Name: "hang", New: regressions.Hang(2, release, newSimple)}},
		Scenarios:     []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
		Count:         1,
		Ops:           2,
		SampleTimeout: -1,
		Fault:         func(f *bench.StoreFault) error { t.Errorf("fault %v", f); return nil },
	}
	done := make(chan error, 1)
	go func() { done <- bench.Run(ctx, opts, func(bench.Sample) error { return nil }) }()
	time.Sleep(100 * time.Millisecond) // not synchronisation: Run must end wherever it is
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v, want it to wrap context.Canceled", err)
		}
	case <-time.After(2 * time.Minute): // a guard: the stuck store never returns
		t.Fatal("Run still running after the interrupt")
	}
}

// spawning starts a goroutine that outlives its panicking Update.
type spawning struct {
	simpleStore
	release <-chan struct{}
	n       int
}

func (s *spawning) Update(cfg *certstore.Config) error {
	if s.n++; s.n == 2 {
		go func() { <-s.release }()
		panic("spawned, then panicked")
	}
	return s.simpleStore.Update(cfg)
}

// A panic that leaves goroutines of the store running stops Run as a
// hang does.
func TestRunPanicLeavingGoroutines(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	opts := bench.Options{
		Stores: []certstore.Info{
			{Name: "spawn", New: func() certstore.Store { return &spawning{release: release} }},
			{Name: "a", New: newSimple},
		},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
		Count:     2,
		Ops:       2,
	}
	emitted, faults, err := runFaults(t, context.Background(), opts)
	var f *bench.StoreFault
	if !errors.As(err, &f) || len(faults) != 1 || f.Goroutines != 1 || !f.Stops() || f.Hung() {
		t.Fatalf("Run: %v, faults %+v; want one panic leaving 1 goroutine, stopping Run", err, faults)
	}
	if len(emitted) != 0 {
		t.Errorf("emitted %v after the fault", emitted)
	}
	if !strings.Contains(f.Reason(), "leaving 1 goroutines of the store running") {
		t.Errorf("reason %q", f.Reason())
	}
}

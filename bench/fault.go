package bench

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultSampleTimeout bounds the wall time of one sample when
// Options.SampleTimeout is 0: far above what a default scenario takes, so
// that only a store that hangs reaches it.
const DefaultSampleTimeout = 10 * time.Minute

// StopGrace is how long a sample whose context is done may take to stop
// (it stops at its next op) before it is abandoned: a store stuck in a
// call cannot be stopped, and must not keep an interrupted run alive.
const StopGrace = 3 * time.Second

// A StoreFault is the error of a sample that the store under test ended:
// it panicked in a call the harness made (recovered on any of the
// sample's goroutines), or a call did not return within the sample
// timeout. A panic in a goroutine the store itself started still ends the
// process, as it would in production.
type StoreFault struct {
	// Store and Scenario name the sample; Run sets its number Sample
	// (from 1) and its benchmark Name.
	Store, Scenario string
	Sample          int
	Name            string
	// Call is the store call that panicked or did not return: "Update",
	// "Certificate", "Close" or "the factory" ("the harness" for a panic
	// outside any store call). Detail says which one, such as
	// "configuration 5 of 10" or "lookups under churn"; it may be "".
	Call, Detail string
	// Panic is the value the store panicked with; nil if it hung.
	Panic any
	// Timeout is the sample timeout the call exceeded; 0 if it panicked.
	Timeout time.Duration
	// Stack is the panicking goroutine's stack, or, if the store hung,
	// every goroutine's with their profiler labels: the sample's carry
	// SampleLabel=Label.
	Stack []byte
	Label string
	// Goroutines counts the store's goroutines still running when a panic
	// ended the sample.
	Goroutines int
}

// Hung reports whether the store did not return (rather than panicked).
func (f *StoreFault) Hung() bool { return f.Timeout > 0 }

// Stops reports whether the fault ends Run's measuring: a call that did
// not return, or a panic that left goroutines of the store running. Code
// of the failed store that cannot be stopped stays in the process, and
// would disturb every later sample (a CPU it spins on, a heap it keeps
// live).
func (f *StoreFault) Stops() bool { return f.Hung() || f.Goroutines > 0 }

// What is the call, with its detail in parentheses when there is one.
func (f *StoreFault) What() string {
	if f.Detail == "" {
		return f.Call
	}
	return f.Call + " (" + f.Detail + ")"
}

// Reason is what happened, in one line without the panic value (which
// may quote the store's input): "panic in Update (configuration 5 of
// 10)" or "Update (configuration 5 of 10) did not return within 10m0s".
// certbench writes it into result files.
func (f *StoreFault) Reason() string {
	if f.Hung() {
		return fmt.Sprintf("%s did not return within %s", f.What(), f.Timeout)
	}
	s := "panic in " + f.What()
	if f.Goroutines > 0 {
		s += fmt.Sprintf(", leaving %d goroutines of the store running", f.Goroutines)
	}
	return s
}

// Error is one line: the store, the scenario, the sample, the reason,
// and the panic value (shortened to one line).
func (f *StoreFault) Error() string {
	s := fmt.Sprintf("store %s, scenario %s", f.Store, f.Scenario)
	if f.Sample > 0 {
		s += fmt.Sprintf(", sample %d", f.Sample)
	}
	s += ": " + f.Reason()
	if !f.Hung() {
		s += ": " + panicText(f.Panic)
	}
	return s
}

// panicText renders a panic value on one line of at most 300 bytes.
func panicText(v any) string {
	var s string
	if err, ok := v.(error); ok {
		s = err.Error()
	} else {
		s = fmt.Sprint(v)
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

// call is what a sample's goroutine is calling, for a fault's Call and
// Detail.
type call uint8

const (
	callHarness    call = iota // no store call (the harness's own code)
	callFactory                // the store's factory
	callFirst                  // Update with the initial configuration
	callOp                     // Update of timed op i of n
	callLookups                // Certificate: the timed lookups
	callWarmup                 // Update: warmup refresh i
	callChurn                  // lookups (Certificate) under refreshes (Update) on other goroutines
	callHandshakes             // handshakes (Certificate through GetCertificate), refreshes on another goroutine
	callPeak                   // Update of the peak-heap pass
	callClose                  // Close
	// Calls on goroutines other than the sample's own, for catch.
	callRefresh // a refresher's Update
	callLookup  // a lookup goroutine's Certificate
	callGetCert // GetCertificate in a handshake's server goroutine
)

// sampleCtl is shared by a sample's goroutines and its supervisor (see
// superviseSample): the flag that stops the sample, what the sample is
// calling, and the first panic recovered.
type sampleCtl struct {
	stop atomic.Bool
	// at is what the sample's goroutine calls: call<<56 | i<<28 | n.
	at atomic.Uint64
	// refresh is the refresh a refresher goroutine is applying, 0 when
	// none.
	refresh atomic.Int64
	// pausedAt is when the sample began to wait for its Sync (unix
	// nanoseconds, 0 when not waiting); paused is the time spent waiting
	// so far. The sample timeout does not count that time.
	pausedAt, paused atomic.Int64
	// synced reports the sample reached its Sync.
	synced atomic.Bool
	// label is the sample's SampleLabel value, once its probe started.
	label atomic.Pointer[string]

	mu    sync.Mutex
	fault *StoreFault // the first panic recovered
}

// setLabel records the sample's SampleLabel value.
func (c *sampleCtl) setLabel(l string) {
	if c != nil {
		c.label.Store(&l)
	}
}

// setRefresh records the refresh a refresher goroutine applies (0:
// none).
func (c *sampleCtl) setRefresh(k int) {
	if c != nil {
		c.refresh.Store(int64(k))
	}
}

// stopped reports whether the sample should stop; a nil sampleCtl never
// stops.
func (c *sampleCtl) stopped() bool { return c != nil && c.stop.Load() }

// mark records that the sample's goroutine calls k, the i-th of n (0, 0
// when not counted). Cheap enough for every refresh: one atomic store.
func (c *sampleCtl) mark(k call, i, n int) {
	if c == nil {
		return
	}
	const limit = 1<<28 - 1
	c.at.Store(uint64(k)<<56 | uint64(min(i, limit))<<28 | uint64(min(n, limit)))
}

// describe returns the Call and Detail of a fault of a call k (for k
// callHarness, of what the sample's goroutine calls).
func (c *sampleCtl) describe(k call) (string, string) {
	at := c.at.Load()
	i, n := int(at>>28&(1<<28-1)), int(at&(1<<28-1))
	if k == callHarness {
		k = call(at >> 56)
	}
	refresh := c.refresh.Load()
	switch k {
	case callFactory:
		if n > 0 {
			return "the factory", fmt.Sprintf("new store for configuration %d of %d", i, n)
		}
		return "the factory", ""
	case callFirst:
		return "Update", "initial configuration"
	case callOp:
		return "Update", fmt.Sprintf("configuration %d of %d", i, n)
	case callLookups:
		return "Certificate", "lookups"
	case callWarmup:
		return "Update", fmt.Sprintf("warmup refresh %d", i)
	case callChurn:
		if refresh > 0 {
			return "Update", fmt.Sprintf("refresh %d, under lookups", refresh)
		}
		return "Certificate", "lookups under churn"
	case callHandshakes:
		if refresh > 0 {
			return "Update", fmt.Sprintf("refresh %d, during handshakes", refresh)
		}
		return "Certificate", "through GetCertificate, in handshakes"
	case callPeak:
		return "Update", "peak-heap pass"
	case callClose:
		return "Close", ""
	case callRefresh:
		return "Update", fmt.Sprintf("refresh %d", refresh)
	case callLookup:
		return "Certificate", "lookups under churn"
	case callGetCert:
		return "Certificate", "through GetCertificate, in a handshake"
	}
	return "the harness", "not in a store call"
}

// catch, deferred by a goroutine that calls the store (k names the
// call; callHarness: what mark last recorded), recovers a panic and
// records it as the sample's fault, stopping the sample. With a nil
// sampleCtl (Apply) it recovers nothing.
func (c *sampleCtl) catch(k call) {
	if c == nil {
		return
	}
	if v := recover(); v != nil {
		c.panicked(v, k, debug.Stack())
	}
}

// panicked records a recovered panic as the sample's fault (the first
// one wins) and stops the sample.
func (c *sampleCtl) panicked(v any, k call, stack []byte) {
	name, detail := c.describe(k)
	c.mu.Lock()
	if c.fault == nil {
		c.fault = &StoreFault{Call: name, Detail: detail, Panic: v, Stack: stack}
	}
	c.mu.Unlock()
	c.stop.Store(true)
}

// firstFault returns the fault recorded, if any.
func (c *sampleCtl) firstFault() *StoreFault {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fault
}

// pause and resume bracket the sample's wait for its Sync.
func (c *sampleCtl) pause() { c.pausedAt.Store(time.Now().UnixNano()) }
func (c *sampleCtl) resume() {
	if at := c.pausedAt.Swap(0); at != 0 {
		c.paused.Add(time.Now().UnixNano() - at)
	}
	c.synced.Store(true)
}

// active returns the time the sample has run since start, its waits for
// Sync left out, and whether it is waiting now.
func (c *sampleCtl) active(start time.Time) (time.Duration, bool) {
	return time.Since(start) - time.Duration(c.paused.Load()), c.pausedAt.Load() != 0
}

// stacksMu serializes allStacks: it changes GODEBUG for the process.
var stacksMu sync.Mutex

// allStacks returns the stacks of every goroutine (runtime.Stack), with
// each goroutine's profiler labels in its header line (GODEBUG
// tracebacklabels=1, set for the call), so that the goroutines of a
// sample (SampleLabel) can be told from the others.
func allStacks() []byte {
	stacksMu.Lock()
	defer stacksMu.Unlock()
	old, had := os.LookupEnv("GODEBUG")
	set := "tracebacklabels=1"
	if old != "" {
		set = old + "," + set
	}
	if os.Setenv("GODEBUG", set) == nil {
		defer func() {
			if had {
				os.Setenv("GODEBUG", old)
			} else {
				os.Unsetenv("GODEBUG")
			}
		}()
	}
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}

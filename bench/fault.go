package bench

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/results"
)

// DefaultSampleTimeout bounds the wall time of one sample when
// Options.SampleTimeout is 0: far above what a default scenario takes, so
// that only a store that hangs reaches it.
const DefaultSampleTimeout = 10 * time.Minute

// StopGrace is how long a sample whose context is done may take to stop
// (it stops at its next op) before it is abandoned: a store stuck in a
// call cannot be stopped, and must not keep an interrupted run alive.
const StopGrace = 3 * time.Second

// A StoreFault is the error of a sample the store ended: a panic in a
// call the harness made (on any of the sample's goroutines), or a call
// that did not return within the sample timeout. A panic in a goroutine
// the store started itself still ends the process, as in production.
type StoreFault struct {
	Store, Scenario string
	Sample          int    // from 1, set by Run
	Name            string // the benchmark name, set by Run
	// Call is "Update", "Certificate", "Close", "the factory" or "the
	// harness"; Detail says which, such as "configuration 5 of 10", or "".
	Call, Detail string
	Panic        any           // nil if it hung
	Timeout      time.Duration // the timeout exceeded; 0 if it panicked
	// Stack is the panicking goroutine's, or after a hang every
	// goroutine's with their labels (the sample's: SampleLabel=Label).
	Stack      []byte
	Label      string
	Goroutines int // the store's, still running after a panic
}

// Hung reports whether the store did not return (rather than panicked).
func (f *StoreFault) Hung() bool { return f.Timeout > 0 }

// Stops reports whether the fault ends Run's measuring: a hang, or a panic
// that left the store's goroutines running, which would disturb every
// later sample.
func (f *StoreFault) Stops() bool { return f.Hung() || f.Goroutines > 0 }

// What is the call, with its detail in parentheses when there is one.
func (f *StoreFault) What() string {
	if f.Detail == "" {
		return f.Call
	}
	return f.Call + " (" + f.Detail + ")"
}

// Reason is what happened, in one line without the panic value (which may
// quote the store's input), as result files record it.
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
// Detail (see calls).
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
	callHold                   // Current, and Certificate through a held connection's GetCertificate
	// Calls on goroutines other than the sample's own, for catch.
	callRefresh // a refresher's Update
	callLookup  // a lookup goroutine's Certificate
	callGetCert // GetCertificate in a handshake's server goroutine
)

// sampleCtl is shared by a sample's goroutines and its supervisor: the
// stop flag, what the sample calls, and the first panic recovered. Its
// methods do nothing on a nil sampleCtl (Apply).
type sampleCtl struct {
	stop    atomic.Bool
	at      atomic.Uint64          // what the sample's goroutine calls: call<<56 | i<<28 | n
	refresh atomic.Int64           // the refresh a refresher applies, 0 when none
	label   atomic.Pointer[string] // the sample's SampleLabel value
	held    *holders               // a Held sample's connections (set before it runs)

	mu    sync.Mutex
	fault *StoreFault // the first panic recovered
}

func (c *sampleCtl) setLabel(l string) {
	if c != nil {
		c.label.Store(&l)
	}
}

func (c *sampleCtl) setRefresh(k int) {
	if c != nil {
		c.refresh.Store(int64(k))
	}
}

func (c *sampleCtl) stopped() bool { return c != nil && c.stop.Load() }

// mark records that the sample's goroutine calls k, the i-th of n (0, 0
// when not counted): one atomic store.
func (c *sampleCtl) mark(k call, i, n int) {
	if c == nil {
		return
	}
	const limit = 1<<28 - 1
	c.at.Store(uint64(k)<<56 | uint64(min(i, limit))<<28 | uint64(min(n, limit)))
}

// calls are each call's Call and Detail, the detail formatted with i, n
// and the refresh applied (%[1]d, %[2]d, %[3]d); refreshing, when not
// empty, is the call while a refresh is applied.
var calls = [...]struct{ name, detail, refreshing string }{
	callHarness:    {"the harness", "not in a store call", ""},
	callFactory:    {"the factory", "", ""},
	callFirst:      {"Update", "initial configuration", ""},
	callOp:         {"Update", "configuration %[1]d of %[2]d", ""},
	callLookups:    {"Certificate", "lookups", ""},
	callWarmup:     {"Update", "warmup refresh %[1]d", ""},
	callChurn:      {"Certificate", "lookups under churn", "refresh %[3]d, under lookups"},
	callHandshakes: {"Certificate", "through GetCertificate, in handshakes", "refresh %[3]d, during handshakes"},
	callPeak:       {"Update", "peak-heap pass", ""},
	callClose:      {"Close", "", ""},
	callHold:       {"Current", "a connection held before configuration %[1]d of %[2]d, and its lookup", ""},
	callRefresh:    {"Update", "refresh %[3]d", ""},
	callLookup:     {"Certificate", "lookups under churn", ""},
	callGetCert:    {"Certificate", "through GetCertificate, in a handshake", ""},
}

// describe returns the Call and Detail of a fault of a call k (for k
// callHarness, of what the sample's goroutine calls).
func (c *sampleCtl) describe(k call) (string, string) {
	at := c.at.Load()
	i, n := int(at>>28&(1<<28-1)), int(at&(1<<28-1))
	if k == callHarness {
		k = call(at >> 56)
	}
	if int(k) >= len(calls) {
		k = callHarness
	}
	refresh := c.refresh.Load()
	d := calls[k]
	name, detail := d.name, d.detail
	switch {
	case d.refreshing != "" && refresh > 0:
		name, detail = "Update", d.refreshing
	case k == callFactory && n > 0:
		detail = "new store for configuration %[1]d of %[2]d"
	}
	if strings.Contains(detail, "%") {
		detail = fmt.Sprintf(detail, i, n, refresh)
	}
	return name, detail
}

// catch, deferred by a goroutine that calls the store (k names the call;
// callHarness: what mark last recorded), recovers a panic into the
// sample's fault, stopping the sample.
func (c *sampleCtl) catch(k call) {
	if c == nil {
		return
	}
	if v := recover(); v != nil {
		c.panicked(v, k, debug.Stack())
	}
}

// panicked records a recovered panic (the first wins) and stops the sample.
func (c *sampleCtl) panicked(v any, k call, stack []byte) {
	name, detail := c.describe(k)
	c.mu.Lock()
	if c.fault == nil {
		c.fault = &StoreFault{Call: name, Detail: detail, Panic: v, Stack: stack}
	}
	c.mu.Unlock()
	c.stop.Store(true)
}

func (c *sampleCtl) firstFault() *StoreFault {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.fault
}

// stacksMu serializes allStacks: it changes GODEBUG for the process.
var stacksMu sync.Mutex

// allStacks returns every goroutine's stack with its profiler labels
// (GODEBUG tracebacklabels=1, set for the call), so that a sample's
// goroutines can be told from the others.
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

// FileName names the fault's stack file without an extension:
// KIND-STORE-SCENARIO-SAMPLE (KIND panic or hang), keeping of the names
// only what a file name may hold.
func (f *StoreFault) FileName() string {
	kind := "panic"
	if f.Hung() {
		kind = "hang"
	}
	safe := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
				return r
			}
			return '_'
		}, s)
	}
	return fmt.Sprintf("%s-%s-%s-%d", kind, safe(f.Store), safe(f.Scenario), f.Sample)
}

// WriteStack writes what a stack file holds: the fault's line, the build,
// and the stack.
func (f *StoreFault) WriteStack(w io.Writer) error {
	fmt.Fprintf(w, "certbench: %s\n", f.Error())
	fmt.Fprintf(w, "certbench %s, %s %s/%s, GOMAXPROCS %d\n\n", results.VersionLine(), runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	if f.Hung() {
		fmt.Fprintf(w, "Every goroutine's stack, %s into the sample. The sample's goroutines (the store's and the harness's\n", f.Timeout)
		fmt.Fprintf(w, "calling it) carry the label %q: %q.\n\n", SampleLabel, f.Label)
	} else {
		fmt.Fprintf(w, "panic: %v\n\nThe stack of the goroutine that panicked, where it panicked:\n\n", f.Panic)
	}
	_, err := w.Write(f.Stack)
	return err
}

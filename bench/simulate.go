package bench

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/simrand"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchfmt"
)

// The instruments, as Options.Instrument names them.
const (
	// Wall measures the timed ops with the clock (sec/op, cpu-sec/op, GC
	// time) and the allocation counters. It is the default.
	Wall = results.InstrumentWall
	// Simulate measures the timed ops on a simulated CPU, Valgrind's
	// callgrind: instructions/op (and est-cycles/op with the cache
	// simulation), plus the allocation counters, retained heap and
	// goroutines. Other tenants of the machine cannot disturb the counts.
	// The process must run under callgrind as certbench run --simulate
	// starts it (internal/callgrind.Command); Run fails
	// otherwise. No clock figure is written: the simulation slows
	// everything down.
	Simulate = results.InstrumentSimulate
)

// SimulateOps returns the ops per sample of sc under the Simulate
// instrument when no op count is given: the clock's (sc.Ops), but one for
// a startup scenario, whose ops are alike and independent (each a fresh
// store loading thousands of certificates: a long window under callgrind).
func SimulateOps(sc scenarios.Scenario) int {
	if sc.Kind == scenarios.Startup {
		return 1
	}
	return sc.Ops
}

// PrepareSimulate does natively, before a simulated run, what would be
// slow under callgrind: it fills the pool cache of every scenario whose
// pool is large enough to be cached (certgen.CachedPool).
func PrepareSimulate(scs []scenarios.Scenario) error {
	for _, sc := range scs {
		if sc.Certs == nil && sc.Pool.Count >= certgen.DiskCacheMin {
			if _, err := certgen.CachedPool(sc.Pool); err != nil {
				return fmt.Errorf("scenario %s: %w", sc.Name, err)
			}
		}
	}
	return nil
}

// SimulateConfig returns the configuration lines of a simulated run's
// results, key and value: the instrument and the simulator, with whether
// its start-up seed and random stream were fixed.
func SimulateConfig() []string {
	sim := "callgrind"
	if v := os.Getenv(callgrind.VersionEnv); v != "" {
		sim = v + " callgrind"
	}
	if os.Getenv(callgrind.SeedEnv) == "fixed" {
		sim += ", fixed start-up seed"
		if simrand.Fixed() {
			sim += ", random stream fixed"
		}
	}
	return []string{results.InstrumentKey, Simulate, results.SimulatorKey, sim}
}

// simulator runs the timed ops of samples in callgrind windows, each on a
// heap made alike (debug.FreeOSMemory: no sweeping or scavenging left)
// with the collector off (so no cycle's work lands in one sample only; B/op
// shows what is left to collect) and the heap profiler off (it samples at
// random). GOMAXPROCS=1 and callgrind.GODEBUG make the scheduler
// deterministic, and memory the runtime reuses always cleared. Each sample
// runs on one thread whose random stream is reset (simrand.Reset) before
// the store is made and before the window, so that the store's maps draw
// the same seeds in every sample, on a goroutine whose stack is grown
// before (no stack copy in a window). Each (scenario, store) gets a
// warm-up sample under a window's conditions, uncounted: a process's first
// sample grows the heap and counts differently. What a window leaves out
// of the count: callgrind.Profile.Counted.
type simulator struct {
	session *callgrind.Session
	// keep, when set, is the directory that keeps every window's profile.
	keep string
	// warm makes measure run the ops without a window (the warm-up).
	warm bool
	// label names the next window, sample numbers it (from 1).
	label  string
	sample int
	// need is the most a warm-up allocated; zeroed the most for which
	// the heap's never-used memory was pushed away (see window).
	need, zeroed uint64
}

// session is the process's callgrind session: callgrind numbers its dumps
// per process, so every Run of a process shares one.
var (
	sessionMu  sync.Mutex
	session    *callgrind.Session
	sessionErr error
)

// newSimulator opens (once per process) the callgrind session of the
// process; keep is Options.Profiles.
func newSimulator(keep string) (*simulator, error) {
	sessionMu.Lock()
	defer sessionMu.Unlock()
	if session == nil && sessionErr == nil {
		session, sessionErr = callgrind.Open()
	}
	if sessionErr != nil {
		return nil, fmt.Errorf("bench: the %s instrument needs the process to run under callgrind (certbench run --simulate starts it so): %w", Simulate, sessionErr)
	}
	return &simulator{session: session, keep: keep}, nil
}

// window runs f as a window does (see simulator), in a callgrind window
// unless sim.warm, and returns what callgrind counted (nil for a warm-up)
// and the allocation counters over f; with keep, it saves the window's
// profile there (cost.SimFileName).
func (sim *simulator) window(scenario, store string, f func()) (c *callgrind.Cost, bytes, allocs uint64, err error) {
	var m0, m1 runtime.MemStats
	var w *callgrind.Window
	if !sim.warm {
		w = sim.session.NewWindow(sim.label)
	}
	if sim.need > sim.zeroed {
		// Memory the heap never used is known to be zero: an object
		// there is not cleared. So that no window gets any (it would
		// count fewer instructions than the others), a block larger than
		// the window will allocate is taken from the top of the heap,
		// untouched, and freed: the memory below it counts as used.
		sink = make([]byte, 2*sim.need+8<<20)
		sink, sim.zeroed = nil, sim.need
	}
	debug.FreeOSMemory()
	old := debug.SetGCPercent(-1)
	// A store that panics in f leaves the collector as it was (the
	// window itself closes; see callgrind.Window.Run).
	defer debug.SetGCPercent(old)
	runtime.ReadMemStats(&m0)
	// The collection made the scavenger (and what else waits for it)
	// runnable: it runs now rather than at the window's first preemption.
	time.Sleep(time.Millisecond)
	sim.reset()
	if w == nil {
		f()
		runtime.ReadMemStats(&m1)
		sim.need = max(sim.need, m1.TotalAlloc-m0.TotalAlloc)
		return nil, 0, 0, nil
	}
	w.Run(f)
	runtime.ReadMemStats(&m1)
	debug.SetGCPercent(old)
	if c, err = sim.session.Read(sim.label, w.File); err != nil {
		return nil, 0, 0, err
	}
	if sim.keep != "" {
		if err := cost.Save(c.Profile, filepath.Join(sim.keep, cost.SimFileName(scenario, store, sim.sample))); err != nil {
			return nil, 0, 0, fmt.Errorf("bench: keeping the window's profile: %w", err)
		}
	}
	return c, m1.TotalAlloc - m0.TotalAlloc, m1.Mallocs - m0.Mallocs, nil
}

// sink keeps the block that window takes from being optimized away.
var sink []byte

// errNoInstructions is returned when a window has no instruction counts.
var errNoInstructions = errors.New("the callgrind window has no instruction counts (Ir)")

// simulatedValues returns instructions/op, and est-cycles/op when the
// window has the cache simulation's events, of what the window counted
// (callgrind.Cost.Counted).
func simulatedValues(c *callgrind.Cost, ops int) ([]benchfmt.Value, error) {
	var vals []benchfmt.Value
	for i, st := range c.Profile.SampleType {
		for _, u := range []string{results.UnitInstructions, results.UnitEstCycles} {
			if st.Type == cost.SampleTypeOf(u) && i < len(c.Counted) {
				vals = append(vals, benchfmt.Value{Value: float64(c.Counted[i]) / float64(ops), Unit: u})
			}
		}
	}
	if len(vals) == 0 || vals[0].Unit != results.UnitInstructions {
		return nil, errNoInstructions
	}
	return vals, nil
}

// reset resets the calling thread's random stream (see simulator); a nil
// simulator does nothing.
func (sim *simulator) reset() {
	if sim != nil {
		simrand.Reset()
	}
}

// stackDepth is how deep growStack goes: 16 frames of 64 KiB.
const stackDepth = 16

// growStack grows the goroutine's stack to hold depth frames of 64 KiB
// (the runtime does not shrink it under callgrind.GODEBUG).
//
//go:noinline
func growStack(depth int) byte {
	var frame [64 << 10]byte
	frame[depth] = byte(depth)
	if depth > 0 {
		return growStack(depth-1) + frame[depth]
	}
	return frame[0]
}

// reseedMaps remakes the maps of w's configurations, each right after
// simrand.Reset, so that their hash seeds agree between processes
// (Build makes them while timing moves the random stream).
func reseedMaps(w *scenarios.Workload) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, cfg := range append(w.Configs[:len(w.Configs):len(w.Configs)], w.Next) {
		if cfg == nil || cfg.Stores == nil {
			continue
		}
		simrand.Reset()
		m := make(map[string]certstore.StoreConfig, len(cfg.Stores))
		for _, name := range slices.Sorted(maps.Keys(cfg.Stores)) {
			m[name] = cfg.Stores[name]
		}
		cfg.Stores = m
	}
}

package bench

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"github.com/google/pprof/profile"
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
	// The process must run under callgrind as certbench run --instrument
	// simulate starts it (internal/callgrind.Command); Run fails
	// otherwise. No clock figure is written: the simulation slows
	// everything down.
	Simulate = results.InstrumentSimulate
)

// SimulateOps returns the ops per sample of sc under the Simulate
// instrument when no op count is given: the scenario's SimulateOps if
// set, else for startup scenarios one (a fresh store loading thousands
// of certificates is a long window under callgrind), else its Ops.
func SimulateOps(sc scenarios.Scenario) int {
	switch {
	case sc.SimulateOps > 0:
		return sc.SimulateOps
	case sc.Kind == scenarios.Startup:
		return 1
	}
	return sc.Ops
}

// simulator runs the timed ops of samples in callgrind windows, each on a
// heap made alike (debug.FreeOSMemory: no sweeping or scavenging left)
// with the collector off (so no cycle's work lands in one sample only; B/op
// shows what is left to collect) and the heap profiler off (it samples at
// random). GOMAXPROCS=1 and callgrind.GODEBUG make the scheduler
// deterministic. Each (scenario, store) gets a warm-up sample outside any
// window: a process's first sample grows the heap and counts differently.
type simulator struct {
	session *callgrind.Session
	// keep, when set, is the directory that keeps every window's profile.
	keep string
	// warm makes measure run the ops without a window (the warm-up).
	warm bool
	// label names the next window, sample numbers it (from 1).
	label  string
	sample int
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
		return nil, fmt.Errorf("bench: the %s instrument needs the process to run under callgrind (certbench run --instrument simulate starts it so): %w", Simulate, sessionErr)
	}
	// The heap profiler samples an allocation at random intervals and
	// unwinds its stack: thousands of instructions, in some windows and
	// not others. Nothing reads the profile of a simulated run.
	runtime.MemProfileRate = 0
	return &simulator{session: session, keep: keep}, nil
}

// window runs f in a callgrind window (see simulator) and returns what
// callgrind counted, and the allocation counters over the window; with
// keep, it saves the window's profile there (cost.SimFileName).
func (sim *simulator) window(scenario, store string, f func()) (p *profile.Profile, bytes, allocs uint64, err error) {
	var m0, m1 runtime.MemStats
	w := sim.session.NewWindow(sim.label)
	file := w.File
	debug.FreeOSMemory()
	old := debug.SetGCPercent(-1)
	// A store that panics in f leaves the collector as it was (the
	// window itself closes; see callgrind.Window.Run).
	defer debug.SetGCPercent(old)
	runtime.ReadMemStats(&m0)
	w.Run(f)
	runtime.ReadMemStats(&m1)
	debug.SetGCPercent(old)
	if p, err = sim.session.Read(sim.label, file); err != nil {
		return nil, 0, 0, err
	}
	if sim.keep != "" {
		if err := cost.Save(p, filepath.Join(sim.keep, cost.SimFileName(scenario, store, sim.sample))); err != nil {
			return nil, 0, 0, fmt.Errorf("bench: keeping the window's profile: %w", err)
		}
	}
	return p, m1.TotalAlloc - m0.TotalAlloc, m1.Mallocs - m0.Mallocs, nil
}

// errNoInstructions is returned when a window has no instruction counts.
var errNoInstructions = errors.New("the callgrind window has no instruction counts (Ir)")

// simulatedValues returns instructions/op, and est-cycles/op when the
// window has the cache simulation's events.
func simulatedValues(p *profile.Profile, ops int) ([]benchfmt.Value, error) {
	var vals []benchfmt.Value
	for _, u := range []string{results.UnitInstructions, results.UnitEstCycles} {
		if total, ok := cost.Total(p, cost.SampleTypeOf(u)); ok {
			vals = append(vals, benchfmt.Value{Value: float64(total) / float64(ops), Unit: u})
		}
	}
	if len(vals) == 0 || vals[0].Unit != results.UnitInstructions {
		return nil, errNoInstructions
	}
	return vals, nil
}

// reseedMaps remakes the maps of w's configurations, each right after
// simrand.Realign, so that their hash seeds agree between processes
// (Build makes them while timing moves the random stream).
func reseedMaps(w *scenarios.Workload) {
	for _, cfg := range append(w.Configs[:len(w.Configs):len(w.Configs)], w.Next) {
		if cfg == nil || cfg.Stores == nil {
			continue
		}
		callgrind.Realign()
		m := make(map[string]certstore.StoreConfig, len(cfg.Stores))
		for _, name := range slices.Sorted(maps.Keys(cfg.Stores)) {
			m[name] = cfg.Stores[name]
		}
		cfg.Stores = m
	}
}

package bench

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/scenarios"
	"github.com/google/pprof/profile"
)

// captureMu serializes captures: runtime.MemProfileRate is process-wide.
var captureMu sync.Mutex

// captureHung is set once a capture's store did not return: later ones are refused.
var captureHung atomic.Bool

// HeapProfile runs ops ops of sc (0: the scenario's Ops) on a new store the
// way one sample does, with every allocation recorded, and returns a heap
// profile: alloc_* is what the ops allocated (setup, the profiler and the
// runtime's threads excluded), inuse_* what the store retains after them
// (retained-B). Stacks start at the store; what the harness allocates
// itself keeps its innermost harness frame, so alloc_* adds up to B/op.
// cost.SetInfo records the scenario, store, ops and MemStats deltas.
//
// It sets runtime.MemProfileRate to 1 while it runs, so nothing may be
// timed meanwhile; calls are serialized. A store that panics or does not
// return within DefaultSampleTimeout ends it with a *StoreFault; after a
// hang, later calls in the process fail.
func HeapProfile(newStore certstore.Factory, storeName string, sc scenarios.Scenario, ops int) (*profile.Profile, error) {
	if newStore == nil {
		return nil, errors.New("bench: heap profile: nil store factory")
	}
	if ops <= 0 {
		ops = sc.Ops
	}
	if ops <= 0 {
		return nil, fmt.Errorf("bench: heap profile: scenario %s: no ops to profile", sc.Name)
	}
	w, err := sc.Build(ops)
	if err != nil {
		return nil, fmt.Errorf("bench: heap profile: scenario %s: %w", sc.Name, err)
	}
	applies := sc.Kind == scenarios.Rotate || sc.Kind == scenarios.Renew || sc.Kind == scenarios.Held || sc.Kind == scenarios.Noop || sc.Kind == scenarios.Startup
	if applies && len(w.Configs) <= ops {
		return nil, fmt.Errorf("bench: heap profile: scenario %s: workload has %d configurations for %d ops", sc.Name, len(w.Configs), ops)
	}
	info := cost.Info{Scenario: sc.Name, Store: storeName, Ops: ops}

	raw, err := guardedCapture(newStore, w, ops, DefaultSampleTimeout)
	if f := (*StoreFault)(nil); errors.As(err, &f) {
		f.Store, f.Scenario = storeName, sc.Name
		return nil, f
	}
	info.MemBytes, info.MemObjects = raw.memBytes, raw.memObjects
	if err != nil {
		return nil, fmt.Errorf("bench: heap profile: store %s, scenario %s: %w", storeName, sc.Name, err)
	}
	p, err := combineHeap(raw)
	if err != nil {
		return nil, fmt.Errorf("bench: heap profile: store %s, scenario %s: %w", storeName, sc.Name, err)
	}
	cost.SetInfo(p, info)
	p.Comments = append(p.Comments,
		"alloc_* = allocations of the measured ops (divide by ops for per-op figures)",
		"inuse_* = heap the store retains after the ops (compare bench's retained-B)")
	return p, nil
}

// guardedCapture runs captureHeap on its own goroutine: a panic, or no
// return within timeout (the goroutine is then abandoned), is a *StoreFault.
func guardedCapture(newStore certstore.Factory, w *scenarios.Workload, ops int, timeout time.Duration) (heapSnapshots, error) {
	type result struct {
		raw heapSnapshots
		err error
	}
	if captureHung.Load() {
		// The abandoned capture holds captureMu and the profiling rate.
		return heapSnapshots{}, errors.New("an earlier heap profile's store did not return: profile in a new process")
	}
	done := make(chan result, 1)
	go func() {
		captureMu.Lock()
		defer captureMu.Unlock()
		var r result
		defer func() {
			if v := recover(); v != nil {
				r.err = &StoreFault{Call: "a store call", Detail: "heap profile", Panic: v, Stack: debug.Stack()}
			}
			done <- r
		}()
		r.raw, r.err = captureHeap(newStore, w, ops)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.raw, r.err
	case <-timer.C:
		captureHung.Store(true)
		return heapSnapshots{}, &StoreFault{Call: "a store call", Detail: "heap profile", Timeout: timeout, Stack: allStacks()}
	}
}

// heapSnapshots are the raw heap profiles taken around a sample: before
// the store exists, after its initial configuration, after the ops.
type heapSnapshots struct {
	empty, initial, after []byte
	// memBytes and memObjects are the MemStats deltas over the ops.
	memBytes, memObjects uint64
}

// captureHeap runs one sample with every allocation recorded and takes the
// heap snapshots before the store exists, after Configs[0], and after the
// ops. It allocates nothing between the last two other than through apply.
func captureHeap(newStore certstore.Factory, w *scenarios.Workload, ops int) (heapSnapshots, error) {
	var raw heapSnapshots
	m0, m1 := new(runtime.MemStats), new(runtime.MemStats)
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = rate }()

	var err error
	if raw.empty, err = heapSnapshot(); err != nil {
		return raw, err
	}
	var store certstore.Store
	if !w.FreshStore {
		store, err = heapSetup(newStore, w.Configs[0])
		if err != nil {
			closeStore(store, nil)
			return raw, fmt.Errorf("initial configuration: %w", err)
		}
	}
	// A held workload's connections, made before the snapshot, keep
	// their generations in the last one.
	ctl := &sampleCtl{}
	if w.Scenario.Kind == scenarios.Held {
		ctl.held = newHolders(w)
	}
	if raw.initial, err = heapSnapshot(); err != nil {
		closeStore(store, nil)
		return raw, err
	}
	runtime.ReadMemStats(m0)
	held, applyErr := apply(store, newStore, w, ops, ctl)
	runtime.ReadMemStats(m1)
	raw.memBytes, raw.memObjects = m1.TotalAlloc-m0.TotalAlloc, m1.Mallocs-m0.Mallocs
	raw.after, err = heapSnapshot()
	// The workload (its configurations) was live in the first snapshot:
	// keep it live through the last, or its freeing shows as negative
	// retained heap. The store that holds the last configuration is what
	// the store retains; a replaced one (fresh-store workloads) was
	// closed by Apply and is garbage.
	runtime.KeepAlive(w)
	runtime.KeepAlive(held)
	runtime.KeepAlive(ctl.held)
	closeStore(held, nil)
	if applyErr != nil {
		return raw, applyErr
	}
	return raw, err
}

// heapSetup makes the store and applies the initial configuration.
//
//go:noinline
func heapSetup(newStore certstore.Factory, cfg *certstore.Config) (certstore.Store, error) {
	store := newStore()
	if store == nil {
		return nil, errors.New("store factory returned nil")
	}
	return store, store.Update(cfg)
}

// heapSnapshot returns the heap profile after two GC cycles: the runtime
// publishes it at a cycle's end, and two make sure every earlier
// allocation and free is in it even when a cycle was already running.
//
//go:noinline
func heapSnapshot() ([]byte, error) {
	runtime.GC()
	runtime.GC()
	var buf bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&buf, 0); err != nil {
		return nil, fmt.Errorf("writing heap profile: %w", err)
	}
	return buf.Bytes(), nil
}

// Symbol names of the capture's own frames; runtime.allocm (a new OS
// thread) is never the store's.
var (
	snapshotName = funcName(heapSnapshot)
	captureName  = funcName(captureHeap)
	allocmName   = "runtime.allocm"
)

// combineHeap makes the profile: alloc_* = after - initial, inuse_* =
// after - empty, the profiler's and thread samples dropped, harness cut.
func combineHeap(raw heapSnapshots) (*profile.Profile, error) {
	var ps [3]*profile.Profile
	for i, b := range [][]byte{raw.empty, raw.initial, raw.after} {
		p, err := profile.ParseData(b)
		if err != nil {
			return nil, fmt.Errorf("reading heap snapshot %d: %w", i, err)
		}
		if err := cost.CheckHeap(p); err != nil {
			return nil, fmt.Errorf("heap snapshot %d: %w", i, err)
		}
		// The "bytes" label is the average object size of a stack, which
		// changes between snapshots; it would keep samples from cancelling.
		p.RemoveNumLabel("bytes")
		ps[i] = p
	}
	allocs, err := subtractProfile(ps[2], ps[1])
	if err != nil {
		return nil, err
	}
	inuse, err := subtractProfile(ps[2].Copy(), ps[0])
	if err != nil {
		return nil, err
	}
	for _, s := range allocs.Sample {
		s.Value[2], s.Value[3] = 0, 0
	}
	for _, s := range inuse.Sample {
		s.Value[0], s.Value[1] = 0, 0
	}
	p, err := profile.Merge([]*profile.Profile{allocs, inuse})
	if err != nil {
		return nil, err
	}
	dropSamples(p, func(name string) bool { return name == snapshotName || name == allocmName })
	cost.CutHarness(p)
	// What still has the capture frame never reached the store: runtime
	// work the capture set off (reading memory statistics).
	dropSamples(p, func(name string) bool { return name == captureName })
	if p, err = profile.Merge([]*profile.Profile{p}); err != nil {
		return nil, err
	}
	p.DefaultSampleType = cost.AllocSpace
	return p, nil
}

// subtractProfile returns a minus b (scaling b in place), cancelled samples dropped.
func subtractProfile(a, b *profile.Profile) (*profile.Profile, error) {
	b.Scale(-1)
	return profile.Merge([]*profile.Profile{a, b})
}

// dropSamples removes the samples with a frame whose function drop matches.
func dropSamples(p *profile.Profile, drop func(name string) bool) {
	kept := p.Sample[:0]
	for _, s := range p.Sample {
		if !hasFrame(s, drop) {
			kept = append(kept, s)
		}
	}
	p.Sample = kept
}

func hasFrame(s *profile.Sample, match func(name string) bool) bool {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function != nil && match(line.Function.Name) {
				return true
			}
		}
	}
	return false
}

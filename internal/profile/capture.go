package profile

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/scenarios"
	pprofile "github.com/google/pprof/profile"
)

// The sample types of a captured profile, in this order, as in a Go heap
// profile: the alloc_* values are what the measured ops allocated, the
// inuse_* values what the store holds once they are done.
const (
	AllocObjects = "alloc_objects" // objects allocated (unit "count")
	AllocSpace   = "alloc_space"   // bytes allocated (unit "bytes")
	InuseObjects = "inuse_objects" // objects live afterwards (unit "count")
	InuseSpace   = "inuse_space"   // bytes live afterwards (unit "bytes")
)

// Info is what a captured profile was taken of. It is recorded in the
// profile as a comment (see [InfoOf]), so that figures read back from a file
// can be divided per op.
type Info struct {
	// Scenario and Store name what was profiled.
	Scenario string `json:"scenario,omitempty"`
	Store    string `json:"store,omitempty"`
	// Ops is the number of measured ops the alloc_* values add up over;
	// 0 when unknown (a profile certbench did not write).
	Ops int `json:"ops"`
	// MemBytes and MemObjects are what the runtime's own counters
	// (MemStats TotalAlloc and Mallocs, which bench's B/op and allocs/op
	// come from) say the same ops allocated in the same pass, in total: a
	// cross-check of the alloc_* values. 0 when unknown.
	MemBytes   uint64 `json:"mem_bytes,omitempty"`
	MemObjects uint64 `json:"mem_objects,omitempty"`
}

// Result is one captured profile.
type Result struct {
	Info
	// Profile has the four sample types AllocObjects, AllocSpace,
	// InuseObjects and InuseSpace. Its alloc_* values are the allocations of
	// the Ops measured ops only; its inuse_* values are the heap the store
	// retains after them (the same figure as bench's retained-B). Stacks
	// start below the harness: at the store's factory, Update or
	// Certificate, or at a goroutine the store started.
	Profile *pprofile.Profile
}

// FileName returns the conventional file name of a captured profile,
// "<scenario>.<store>.pb.gz".
func FileName(scenario, store string) string {
	return scenario + "." + store + ".pb.gz"
}

// infoComment is the prefix of the comment that records Info.
const infoComment = "certbench:"

// comment returns the comment line recording info.
func (info Info) comment() string {
	var b strings.Builder
	b.WriteString(infoComment)
	if info.Scenario != "" {
		fmt.Fprintf(&b, " scenario=%s", info.Scenario)
	}
	if info.Store != "" {
		fmt.Fprintf(&b, " store=%s", info.Store)
	}
	fmt.Fprintf(&b, " ops=%d", info.Ops)
	if info.MemBytes > 0 || info.MemObjects > 0 {
		fmt.Fprintf(&b, " mem_bytes=%d mem_objects=%d", info.MemBytes, info.MemObjects)
	}
	return b.String()
}

// InfoOf reads back the Info that Capture (or Diff) recorded in p. For a
// profile certbench did not write it returns the zero Info (Ops 0).
func InfoOf(p *pprofile.Profile) Info {
	var info Info
	if p == nil {
		return info
	}
	for _, c := range p.Comments {
		rest, ok := strings.CutPrefix(c, infoComment)
		if !ok {
			continue
		}
		for _, f := range strings.Fields(rest) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "scenario":
				info.Scenario = v
			case "store":
				info.Store = v
			case "ops":
				if n, err := strconv.Atoi(v); err == nil && n > 0 {
					info.Ops = n
				}
			case "mem_bytes":
				info.MemBytes, _ = strconv.ParseUint(v, 10, 64)
			case "mem_objects":
				info.MemObjects, _ = strconv.ParseUint(v, 10, 64)
			}
		}
		return info
	}
	return info
}

// setInfo replaces the Info comment of p.
func setInfo(p *pprofile.Profile, info Info) {
	comments := []string{info.comment()}
	for _, c := range p.Comments {
		if !strings.HasPrefix(c, infoComment) {
			comments = append(comments, c)
		}
	}
	p.Comments = comments
}

// captureMu serializes captures: runtime.MemProfileRate is process-wide.
var captureMu sync.Mutex

// Capture profiles ops ops of scenario sc (0 means the scenario's own Ops,
// as bench uses) on a new store from newStore. Per-op figures compare with
// bench's only for equal ops: lookups fill caches on their first cycle
// over the hellos, and the first refreshes of a store may differ from the
// later ones. Recording every allocation costs a few microseconds each, so
// a store allocating millions per sample takes minutes.
//
// It runs the ops the way bench measures one sample: the
// workload is built and Configs[0] applied first (except for fresh-store
// workloads, which start from none), then bench.Apply runs the ops. Fixture building, the initial configuration and the profiler's own
// work are excluded from the alloc_* values; see [Result].
//
// Capture sets runtime.MemProfileRate to 1 (every allocation recorded) for
// its duration and restores it before returning; it must not run while
// anything is being timed. Concurrent calls are serialized.
func Capture(newStore certstore.Factory, storeName string, sc scenarios.Scenario, ops int) (*Result, error) {
	if newStore == nil {
		return nil, errors.New("profile: nil store factory")
	}
	if ops <= 0 {
		ops = sc.Ops
	}
	if ops <= 0 {
		return nil, fmt.Errorf("profile: scenario %s: no ops to profile", sc.Name)
	}
	w, err := sc.Build(ops)
	if err != nil {
		return nil, fmt.Errorf("profile: scenario %s: %w", sc.Name, err)
	}
	applies := sc.Kind == scenarios.Rotate || sc.Kind == scenarios.Renew || sc.Kind == scenarios.Noop || sc.Kind == scenarios.Startup
	if applies && len(w.Configs) <= ops {
		return nil, fmt.Errorf("profile: scenario %s: workload has %d configurations for %d ops", sc.Name, len(w.Configs), ops)
	}
	info := Info{Scenario: sc.Name, Store: storeName, Ops: ops}

	captureMu.Lock()
	defer captureMu.Unlock()
	raw, err := capture(newStore, w, ops)
	info.MemBytes, info.MemObjects = raw.memBytes, raw.memObjects
	if err != nil {
		return nil, fmt.Errorf("profile: store %s, scenario %s: %w", storeName, sc.Name, err)
	}
	p, err := combine(raw)
	if err != nil {
		return nil, fmt.Errorf("profile: store %s, scenario %s: %w", storeName, sc.Name, err)
	}
	setInfo(p, info)
	p.Comments = append(p.Comments,
		"alloc_* = allocations of the measured ops (divide by ops for per-op figures)",
		"inuse_* = heap the store retains after the ops (compare bench's retained-B)")
	return &Result{Info: info, Profile: p}, nil
}

// snapshots are the raw heap profiles taken around a sample: before the
// store exists, after its initial configuration, after the ops.
type snapshots struct {
	empty, initial, after []byte
	// memBytes and memObjects are the MemStats deltas over the ops.
	memBytes, memObjects uint64
}

// capture runs one sample with every allocation recorded and takes the
// three heap snapshots. It allocates nothing itself between the initial and
// the final snapshot other than through bench.Apply.
func capture(newStore certstore.Factory, w *scenarios.Workload, ops int) (snapshots, error) {
	var raw snapshots
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
		// Fresh-store workloads load a new store on every op; like
		// bench, give them none to start from.
		store, err = setup(newStore, w.Configs[0])
		if err != nil {
			closeStore(store)
			return raw, fmt.Errorf("initial configuration: %w", err)
		}
	}
	if raw.initial, err = heapSnapshot(); err != nil {
		closeStore(store)
		return raw, err
	}
	runtime.ReadMemStats(m0)
	held, applyErr := bench.Apply(store, newStore, w, ops)
	runtime.ReadMemStats(m1)
	raw.memBytes, raw.memObjects = m1.TotalAlloc-m0.TotalAlloc, m1.Mallocs-m0.Mallocs
	raw.after, err = heapSnapshot()
	// The workload (its configurations) was live in the first snapshot:
	// keep it live through the last, or its freeing shows as negative
	// retained heap. The store that holds the last configuration is what
	// the store retains; a replaced one (fresh-store workloads) was
	// closed by bench.Apply and is garbage.
	runtime.KeepAlive(w)
	runtime.KeepAlive(held)
	closeStore(held)
	if applyErr != nil {
		return raw, applyErr
	}
	return raw, err
}

// setup makes the store and applies the initial configuration. It is a
// harness frame: stacks are cut below it.
//
//go:noinline
func setup(newStore certstore.Factory, cfg *certstore.Config) (certstore.Store, error) {
	store := newStore()
	if store == nil {
		return nil, errors.New("store factory returned nil")
	}
	return store, store.Update(cfg)
}

// heapSnapshot collects garbage and returns the heap profile as of that
// collection. The runtime publishes a heap profile at the end of a GC
// cycle; two cycles make sure every allocation made before the call and
// every free they allow are in it, even when a cycle was already running.
// Its own allocations are recognized by its frame and dropped.
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

func closeStore(s certstore.Store) {
	if c, ok := s.(certstore.Closer); ok && s != nil {
		c.Close()
	}
}

// funcName returns the symbol name of the function f.
func funcName(f any) string {
	if fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer()); fn != nil {
		return fn.Name()
	}
	return ""
}

// Symbol names the harness is recognized by.
var (
	// benchPkg is the bench package's symbol prefix ("…/bench.").
	benchPkg = pkgPrefix(funcName(bench.Apply))
	// setupName and snapshotName are this package's harness frames.
	setupName    = funcName(setup)
	snapshotName = funcName(heapSnapshot)
	// captureName is the frame that calls setup and bench.Apply.
	captureName = funcName(capture)
	// allocmName is where the runtime allocates a new OS thread (M), when
	// its scheduler or the GC wants one: never the store's doing.
	allocmName = "runtime.allocm"
	// modulePrefix is certbench's module path with a trailing slash,
	// trimmed from function names by ShortName.
	modulePrefix = strings.TrimSuffix(pkgPrefix(funcName(FileName)), "internal/profile.")
)

// pkgPrefix returns the package part of a symbol name with its trailing
// dot: "a/b/c.F" gives "a/b/c.".
func pkgPrefix(sym string) string {
	slash := strings.LastIndexByte(sym, '/')
	dot := strings.IndexByte(sym[slash+1:], '.')
	if dot < 0 {
		return sym
	}
	return sym[:slash+1+dot+1]
}

// isHarness reports whether the function is the harness that calls the
// store: the bench package or setup.
func isHarness(name string) bool {
	return name == setupName || (benchPkg != "" && strings.HasPrefix(name, benchPkg))
}

// combine turns the three snapshots into the captured profile: alloc_*
// from after minus initial, inuse_* from after minus empty, the profiler's
// samples and the runtime's thread creation dropped, harness frames cut
// off.
func combine(raw snapshots) (*pprofile.Profile, error) {
	var ps [3]*pprofile.Profile
	for i, b := range [][]byte{raw.empty, raw.initial, raw.after} {
		p, err := pprofile.ParseData(b)
		if err != nil {
			return nil, fmt.Errorf("reading heap snapshot %d: %w", i, err)
		}
		if err := checkHeap(p); err != nil {
			return nil, err
		}
		// The "bytes" label is the average object size of a stack, which
		// changes between snapshots; it would keep samples from cancelling.
		p.RemoveNumLabel("bytes")
		ps[i] = p
	}
	allocs, err := subtract(ps[2], ps[1])
	if err != nil {
		return nil, err
	}
	inuse, err := subtract(ps[2].Copy(), ps[0])
	if err != nil {
		return nil, err
	}
	for _, s := range allocs.Sample {
		s.Value[2], s.Value[3] = 0, 0
	}
	for _, s := range inuse.Sample {
		s.Value[0], s.Value[1] = 0, 0
	}
	p, err := pprofile.Merge([]*pprofile.Profile{allocs, inuse})
	if err != nil {
		return nil, err
	}
	dropSamples(p, func(name string) bool { return name == snapshotName || name == allocmName })
	cutHarness(p)
	// What still has the capture frame never reached the store (through
	// setup or bench): runtime work the capture itself set off, such as a
	// rare allocation while reading memory statistics. It is not the
	// store's.
	dropSamples(p, func(name string) bool { return name == captureName })
	if p, err = pprofile.Merge([]*pprofile.Profile{p}); err != nil {
		return nil, err
	}
	p.DefaultSampleType = AllocSpace
	return p, nil
}

// checkHeap checks that p has the sample types of a Go heap profile.
func checkHeap(p *pprofile.Profile) error {
	want := []string{AllocObjects, AllocSpace, InuseObjects, InuseSpace}
	if len(p.SampleType) != len(want) {
		return fmt.Errorf("heap snapshot has %d sample types, want %d", len(p.SampleType), len(want))
	}
	for i, st := range p.SampleType {
		if st.Type != want[i] {
			return fmt.Errorf("heap snapshot sample type %d is %s, want %s", i, st.Type, want[i])
		}
	}
	return nil
}

// subtract returns a minus b, dropping samples that cancel out. It scales b
// in place.
func subtract(a, b *pprofile.Profile) (*pprofile.Profile, error) {
	b.Scale(-1)
	return pprofile.Merge([]*pprofile.Profile{a, b})
}

// dropSamples removes the samples with a frame whose function drop
// matches.
func dropSamples(p *pprofile.Profile, drop func(name string) bool) {
	kept := p.Sample[:0]
	for _, s := range p.Sample {
		if !hasFrame(s, drop) {
			kept = append(kept, s)
		}
	}
	p.Sample = kept
}

func hasFrame(s *pprofile.Sample, match func(name string) bool) bool {
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function != nil && match(line.Function.Name) {
				return true
			}
		}
	}
	return false
}

// cutHarness removes, from every sample that went through the harness,
// the innermost harness frame and every frame above it (toward the root),
// so that stacks start at the store. A sample left with no frame keeps the
// harness frame.
func cutHarness(p *pprofile.Profile) {
	var maxID uint64
	for _, loc := range p.Location {
		maxID = max(maxID, loc.ID)
	}
	for _, s := range p.Sample {
	stack:
		for i, loc := range s.Location { // leaf first
			for j, line := range loc.Line { // innermost inlined call first
				if line.Function == nil || !isHarness(line.Function.Name) {
					continue
				}
				switch {
				case j > 0:
					// Store code inlined into the harness frame: keep
					// those lines in a location of their own.
					maxID++
					cut := *loc
					cut.ID = maxID
					cut.Line = loc.Line[:j:j]
					p.Location = append(p.Location, &cut)
					s.Location = append(s.Location[:i:i], &cut)
				case i > 0:
					s.Location = s.Location[:i]
				default:
					s.Location = s.Location[:1]
				}
				break stack
			}
		}
	}
}

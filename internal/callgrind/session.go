package callgrind

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/cost"
	"github.com/google/pprof/profile"
)

// A Session is the measured program's side of a run made by Command: it
// switches callgrind on around the code to measure (Window) and reads
// back what callgrind dumped. It is not safe for concurrent use.
type Session struct {
	Dir     string // where callgrind writes
	Version string // valgrind's ("valgrind-3.19.0"), or ""

	made int // windows made so far: callgrind numbers its dumps from 1
}

// ErrNotUnderCallgrind is returned (wrapped) by Open when the process
// was not started by Command.
var ErrNotUnderCallgrind = errors.New("not running under callgrind")

// Open returns the Session of a program started by Command: it reads the
// output directory from DirEnv and checks that the process runs under
// valgrind.
func Open() (*Session, error) {
	dir := os.Getenv(DirEnv)
	if dir == "" {
		return nil, fmt.Errorf("%w: %s is not set", ErrNotUnderCallgrind, DirEnv)
	}
	if !Running() {
		return nil, fmt.Errorf("%w: %s is set but valgrind does not answer (architecture %s?)", ErrNotUnderCallgrind, DirEnv, archName)
	}
	return &Session{Dir: dir, Version: os.Getenv(VersionEnv)}, nil
}

// A Window is one stretch of code to measure, made by NewWindow before
// it runs so that running it allocates nothing but what the measured code
// does.
type Window struct {
	s *Session
	// Label names the window's dump; File is the file callgrind writes it
	// to.
	Label, File string
	b           []byte
}

// NewWindow prepares the next window: its label, and the name of the
// file its dump will have. Windows must run in the order they are made.
func (s *Session) NewWindow(label string) *Window {
	s.made++
	return &Window{s: s, Label: label, File: filepath.Join(s.Dir, OutFile+"."+strconv.Itoa(s.made)), b: cLabel(label)}
}

// Run runs f with instrumentation on, then dumps what every thread cost
// meanwhile (f on whichever threads the scheduler runs it and the
// goroutines it starts; see the package comment) to File's threads'
// files, allocating nothing itself. If f panics, the window is closed and its dump removed
// before the panic goes on.
func (w *Window) Run(f func()) {
	closed := false
	defer func() {
		if !closed { // f panicked
			monitor(w.b)
			StopInstrumentation()
			removeThreads(w.File)
		}
	}()
	StartInstrumentation()
	ZeroStats()
	f()
	closed = true
	monitor(w.b)
	StopInstrumentation()
}

// Read reads the dump of the window labelled label, one file per thread
// (file-01, file-02, ...), checks that it is that window's (any, for the
// label "", any label), and returns
// it: its threads' costs as one profile (cost.ReadCallgrind), the
// runtime's sysmon thread left out (it wakes up with the clock, not with
// the measured code), stacks cut at the harness (cost.CutHarness), and
// what certbench counts of it (Counted). It removes the threads' files.
func (s *Session) Read(label, file string) (*Cost, error) {
	defer removeThreads(file)
	names, _ := filepath.Glob(file + "-*")
	d := &Cost{}
	var threads []*profile.Profile
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, fmt.Errorf("callgrind: reading the dump of %q: %w", label, err)
		}
		ps, err := cost.ReadCallgrind(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("callgrind: reading the dump of %q: %s: %w", label, name, err)
		}
		if len(ps) != 1 {
			return nil, fmt.Errorf("callgrind: %s: %d parts, want 1", name, len(ps))
		}
		part := ps[0]
		if exe, _ := os.Executable(); strings.HasPrefix(part.Cmd, exe+" ") || part.Cmd == exe {
			nameFuncs(part)
		}
		if got, _ := part.Label(); label != "" && got != sanitize(label) {
			return nil, fmt.Errorf("callgrind: %s holds the dump of %q, want %q (did something else dump?)", name, got, label)
		}
		if slices.ContainsFunc(part.Profile.Function, func(f *profile.Function) bool { return f.Name == "runtime.sysmon" }) {
			continue
		}
		threads = append(threads, part.Profile)
		d.Label, _ = part.Label()
		c := counted(part)
		if d.Counted == nil {
			d.Counted = make([]int64, len(c))
		}
		for i := range min(len(c), len(d.Counted)) {
			d.Counted[i] += c[i]
		}
	}
	if len(threads) == 0 {
		return nil, fmt.Errorf("callgrind: no dump of %q (%s-*)", label, file)
	}
	p, err := profile.Merge(threads)
	if err != nil {
		return nil, fmt.Errorf("callgrind: merging the threads of %q: %w", label, err)
	}
	cost.CutHarness(p)
	d.Profile = p
	return d, nil
}

// Cost is what a window's dump says.
type Cost struct {
	Label string // the dump's
	// Profile is the costs of the window's threads (with stacks when
	// callgrind ran with Options.Stacks).
	Profile *profile.Profile
	// Counted is, per sample type of Profile, its totals less what the
	// runtime did that depends on the clock or on chance (see counted).
	Counted []int64
}

// nameFuncs names the code callgrind knows by address only (a binary
// linked without its symbol table: go run, go test), by the function of
// the running program's own table (which every Go binary keeps) the
// address is in: counted, and Read's sysmon check, go by name. Read calls
// it on the dumps of the program that reads them only.
func nameFuncs(p *cost.Part) {
	name := func(s string) string {
		pc, err := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
		if fn := runtime.FuncForPC(uintptr(pc)); err == nil && strings.HasPrefix(s, "0x") && fn != nil {
			return fn.Name()
		}
		return s
	}
	for _, f := range p.Profile.Function {
		f.Name, f.SystemName = name(f.Name), name(f.SystemName)
	}
	calls := map[[2]string][]int64{}
	for k, v := range p.Calls {
		calls[[2]string{name(k[0]), name(k[1])}] = v
	}
	p.Calls = calls
}

// removeThreads removes the threads' files of the dump file.
func removeThreads(file string) {
	names, _ := filepath.Glob(file + "-*")
	for _, n := range names {
		os.Remove(n)
	}
}

// counted returns, per sample type, a part's totals less what the Go runtime spent
// on work whose cost depends on the clock or on chance, not on the
// measured code:
//   - The scheduler: what runs when a goroutine stops running until the
//     next one runs. The runtime's monitor thread (sysmon) preempts a
//     goroutine that ran 10 ms of wall time, so how often the scheduler
//     runs depends on the machine's load (about a thousand instructions
//     each time). The stack is grown before a window, so newstack runs
//     there only to preempt (or to grow a goroutine the code started).
//   - The misses of the caches of type assertions and type switches: a
//     miss adds its type to the cache about once in 1,024 (less as the
//     cache grows), so a process's caches fill at random, over many
//     windows. Left out, a count takes them as full: the steady state.
//   - The refills of a P's page cache: 64 pages at a time, so in some
//     windows and not in others, depending on what the last one left.
//
// What those functions cost is their own instructions and their calls of
// the runtime's helpers they use (locks, timers, handing the thread on,
// itab lookups, page bitmaps). Their other calls are not theirs: the
// scheduler switches stacks to run a goroutine, callgrind cannot see the
// switch return, and charges what runs after it to a call of whatever it
// resumes.
func counted(p *cost.Part) []int64 {
	out := make([]int64, len(p.Profile.SampleType))
	base := func(name string) string { // an assembly function without its ABI
		return strings.TrimSuffix(name, ".abi0")
	}
	for _, s := range p.Profile.Sample {
		left := len(s.Location) > 0 && len(s.Location[0].Line) > 0 && leftOut[base(s.Location[0].Line[0].Function.Name)]
		for i, v := range s.Value {
			if !left {
				out[i] += v
			}
		}
	}
	for k, v := range p.Calls {
		if leftOut[base(k[0])] && helpers[base(k[1])] {
			for i := range min(len(v), len(out)) {
				out[i] -= min(out[i], v[i])
			}
		}
	}
	return out
}

// What counted leaves out, by function (see there): those whose own
// instructions it leaves out, and the helpers whose calls from them it
// does.
var (
	leftOut = set("runtime.newstack", "runtime.morestack", "runtime.morestack_noctxt",
		"runtime.gopreempt_m", "runtime.goschedImpl", "runtime.mcall", "runtime.park_m", "runtime.schedule",
		"runtime.findRunnable", "runtime.execute", "runtime.gogo", "gogo",
		"runtime.typeAssert", "runtime.interfaceSwitch", "runtime.(*pageAlloc).allocToCache")
	helpers = set("runtime.lock2", "runtime.unlock2", "runtime.unlock2Wake", "runtime.casgstatus", "runtime.nanotime1",
		"runtime.(*timers).check", "runtime.checkTimersNoP", "runtime.checkRunqsNoP", "runtime.checkIdleGCNoP",
		"runtime.globrunqgetbatch", "runtime.runqputbatch", "runtime.injectglist", "runtime.(*lfstack).pop",
		"runtime.(*m).clearAllpSnapshot", "runtime.(*m).snapshotAllp", "runtime.pidleget", "runtime.pidleput",
		"runtime.releasep", "runtime.stealWork", "runtime.stopm", "runtime.wakep", "runtime.resetspinning",
		"runtime.startlockedm", "runtime.stoplockedm", "runtime.netpoll", "runtime.gcWriteBarrier2",
		"runtime.(*gcControllerState).findRunnableGCWorker", "runtime.(*gcControllerState).addIdleMarkWorker",
		"runtime.(*gcControllerState).releaseNextGCMarkWorker", "runtime.gcShouldScheduleWorker",
		"runtime.parkunlock_c", "runtime.chanparkcommit", "runtime.shrinkstack",
		"runtime.getitab", "runtime.buildTypeAssertCache", "runtime.buildInterfaceSwitchCache",
		"runtime.(*pageAlloc).find", "runtime.(*pageAlloc).update", "runtime.(*pallocBits).find", "runtime.(*scavengeIndex).alloc")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

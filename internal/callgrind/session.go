package callgrind

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// A Session is the measured program's side of a run made by Command: it
// switches callgrind on around the code to measure (Window) and reads
// back what callgrind dumped. It is not safe for concurrent use.
type Session struct {
	Dir     string // where callgrind writes
	Keep    bool   // keep each window's file (else removed once read)
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
// label "": a program counted Whole ends in OutFile-01, ...), and merges
// the threads' costs into one Profile, the runtime's sysmon thread left
// out: it wakes up with the clock, not with the measured code. With Keep
// it writes the merged threads' files to file (one part per thread,
// which Parse merges again); either way it removes the threads' files.
func (s *Session) Read(label, file string) (*Profile, error) {
	defer removeThreads(file)
	names, _ := filepath.Glob(file + "-*")
	var kept []byte
	var parts []*Profile
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("callgrind: reading the dump of %q: %w", label, err)
		}
		ps, err := Parse(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("callgrind: reading the dump of %q: %s: %w", label, name, err)
		}
		if len(ps) != 1 {
			return nil, fmt.Errorf("callgrind: %s: %d parts, want 1", name, len(ps))
		}
		if exe, _ := os.Executable(); strings.HasPrefix(ps[0].Cmd, exe+" ") || ps[0].Cmd == exe {
			nameFuncs(ps[0])
		}
		if got, _ := ps[0].Label(); label != "" && got != sanitize(label) {
			return nil, fmt.Errorf("callgrind: %s holds the dump of %q, want %q (did something else dump?)", name, got, label)
		}
		if slices.ContainsFunc(ps[0].Functions, func(f *Function) bool { return f.Name == "runtime.sysmon" }) {
			continue
		}
		parts = append(parts, ps[0])
		kept = append(kept, b...)
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("callgrind: no dump of %q (%s-*)", label, file)
	}
	if s.Keep {
		if err := os.WriteFile(file, kept, 0o644); err != nil {
			return nil, fmt.Errorf("callgrind: keeping the dump of %q: %w", label, err)
		}
	}
	return mergeThreads(parts)[0], nil
}

// nameFuncs names the code callgrind knows by address only (a binary
// linked without its symbol table: go run, go test), by the function of
// the running program's own table (which every Go binary keeps) the
// address is in: Counted, and Read's sysmon check, go by name. Read calls
// it on the dumps of the program that reads them only.
func nameFuncs(p *Profile) {
	for _, f := range p.Functions {
		pc, err := strconv.ParseUint(strings.TrimPrefix(f.Name, "0x"), 16, 64)
		if fn := runtime.FuncForPC(uintptr(pc)); err == nil && strings.HasPrefix(f.Name, "0x") && fn != nil {
			f.Name = fn.Name()
		}
	}
}

// removeThreads removes the threads' files of the dump file.
func removeThreads(file string) {
	names, _ := filepath.Glob(file + "-*")
	for _, n := range names {
		os.Remove(n)
	}
}

// Counted returns, per event, p's totals less what the Go runtime spent
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
func (p *Profile) Counted() []uint64 {
	left := make([]uint64, len(p.Events))
	add := func(v []uint64) {
		for i := range min(len(v), len(left)) {
			left[i] += v[i]
		}
	}
	base := func(name string) string { // a context's function, an assembly one without its ABI
		name, _, _ = strings.Cut(name, "'")
		return strings.TrimSuffix(name, ".abi0")
	}
	for _, f := range p.Functions {
		if !leftOut[base(f.Name)] {
			continue
		}
		add(f.Self)
		for _, c := range f.Calls {
			if helpers[base(c.Callee.Name)] {
				add(c.Inclusive)
			}
		}
	}
	counted := slices.Clone(p.Totals)
	for i := range counted {
		counted[i] -= min(counted[i], left[i])
	}
	return counted
}

// What Counted leaves out, by function (see there): those whose own
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

package callgrind

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

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
// (file-01, file-02, ...), checks that it is that window's, and returns
// the threads' costs as one profile (cost.ReadCallgrind), the runtime's
// sysmon thread left out (it wakes up with the clock, not with the
// measured code) and stacks cut at the harness (cost.CutHarness). It
// removes the threads' files.
func (s *Session) Read(label, file string) (*profile.Profile, error) {
	defer removeThreads(file)
	names, _ := filepath.Glob(file + "-*")
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
		if got, _ := ps[0].Label(); got != sanitize(label) {
			return nil, fmt.Errorf("callgrind: %s holds the dump of %q, want %q (did something else dump?)", name, got, label)
		}
		if !slices.ContainsFunc(ps[0].Profile.Function, func(f *profile.Function) bool { return f.Name == "runtime.sysmon" }) {
			threads = append(threads, ps[0].Profile)
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
	return p, nil
}

// removeThreads removes the threads' files of the dump file.
func removeThreads(file string) {
	names, _ := filepath.Glob(file + "-*")
	for _, n := range names {
		os.Remove(n)
	}
}

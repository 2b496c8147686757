package callgrind

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// A Session is the measured program's side of a run made by Command: it
// switches callgrind's instrumentation and collection on around the code
// to measure and reads back what callgrind dumped. A Session is not safe
// for concurrent use.
type Session struct {
	// Dir is where callgrind writes its files.
	Dir string
	// Keep keeps each window's file; by default Collect removes it once
	// read.
	Keep bool
	// Version is valgrind's version as Command found it
	// ("valgrind-3.19.0"), or "" if unknown.
	Version string

	dumps int // dumps made so far: callgrind numbers them from 1
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

// Collect runs f in a window (see Window) and reads the window's dump
// back (see Read).
func (s *Session) Collect(label string, f func()) (*Profile, string, error) {
	file := s.Window(label, f)
	p, err := s.Read(label, file)
	return p, file, err
}

// Window runs f with callgrind's instrumentation and collection switched
// on, then has callgrind dump what f cost under label, and returns the
// name of the dump's file. Costs of other threads that run meanwhile are
// in the dump too: callgrind counts every thread while collection is on.
//
// Switching instrumentation on discards valgrind's translations of the
// program's code, which costs time but no counted instructions; the few
// instructions between the requests and f are counted, the same in every
// window.
func (s *Session) Window(label string, f func()) string {
	StartInstrumentation()
	ZeroStats()
	ToggleCollect()
	f()
	ToggleCollect()
	Dump(label)
	StopInstrumentation()
	s.dumps++
	return filepath.Join(s.Dir, OutFile+"."+strconv.Itoa(s.dumps))
}

// Read reads the dump file of the window labelled label, checks that it
// is that window's, and removes it unless Keep.
func (s *Session) Read(label, file string) (*Profile, error) {
	ps, err := ParseFile(file)
	if err != nil {
		return nil, fmt.Errorf("callgrind: reading the dump of %q: %w", label, err)
	}
	if len(ps) != 1 {
		return nil, fmt.Errorf("callgrind: %s: %d parts, want 1", file, len(ps))
	}
	if got, _ := ps[0].Label(); got != sanitize(label) {
		return nil, fmt.Errorf("callgrind: %s holds the dump of %q, want %q (did something else dump?)", file, got, label)
	}
	if !s.Keep {
		os.Remove(file)
	}
	return ps[0], nil
}

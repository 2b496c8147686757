package callgrind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// ErrNotInstalled is returned (wrapped) when valgrind cannot be found.
// Its message names the package to install.
var ErrNotInstalled = errors.New("valgrind is not installed: install it (Debian, Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind)")

// ErrUnsupported is returned (wrapped) on architectures whose client
// requests this package does not implement.
var ErrUnsupported = fmt.Errorf("simulated CPU needs linux/amd64 (callgrind client requests are implemented for amd64 only); this is %s/%s", runtime.GOOS, runtime.GOARCH)

// GODEBUG is what a Go program needs to run under callgrind
// deterministically: valgrind cannot decode RDTSCP (SIGILL), preemption
// signals trip callgrind, a stack shrunk before a window would be grown
// again inside it in some samples only, memory returned to the system
// with MADV_DONTNEED is known to be zero (the runtime does not clear an
// object there, so whether a window clears its objects would depend on
// what was returned before; with MADV_FREE it clears them all), and the
// heap profiler samples allocations at random and unwinds their stacks.
const GODEBUG = "cpu.rdtscp=off,asyncpreemptoff=1,gcshrinkstackoff=1,madvdontneed=0,memprofilerate=0"

// Files in Options.Dir, and what Command tells the program it runs.
const (
	OutFile    = "callgrind.out"               // dump N is OutFile.N
	LogFile    = "valgrind.log"                // valgrind's own messages
	DirEnv     = "CERTBENCH_CALLGRIND_DIR"     // where callgrind writes (see Open)
	VersionEnv = "CERTBENCH_CALLGRIND_VERSION" // "valgrind-3.19.0"
)

// StackDepth is how many callers of each function callgrind tells apart
// (--separate-callers): the depth of a window's stacks.
const StackDepth = 50

// Cache geometry of the cache simulation, fixed so that results do not
// depend on the machine (32 KiB 8-way L1s, 8 MiB 16-way LL, 64-byte lines).
const (
	CacheI1 = "32768,8,64"
	CacheD1 = "32768,8,64"
	CacheLL = "8388608,16,64"
)

// Options say how Command runs callgrind.
type Options struct {
	Dir      string // where callgrind writes; it must exist
	CacheSim bool   // the cache simulation (I1mr, D1mr, ... beside Ir), slower
	// Stacks tells StackDepth callers apart (--separate-callers), so that
	// a window's profile has stacks; about 40% slower, and the counts are
	// the same without.
	Stacks   bool
	Valgrind string // the executable; "" looks it up in PATH
}

// Find returns the path of the valgrind executable (Options.Valgrind, or
// "valgrind" in PATH) and its version ("valgrind-3.19.0"), or an error
// wrapping ErrNotInstalled.
func Find(valgrind string) (path, version string, err error) {
	if valgrind == "" {
		valgrind = "valgrind"
	}
	path, err = exec.LookPath(valgrind)
	if err != nil {
		return "", "", fmt.Errorf("%w (%v)", ErrNotInstalled, err)
	}
	out, err := exec.Command(path, "--version").Output()
	if err != nil {
		return "", "", fmt.Errorf("%w: %s --version: %v", ErrNotInstalled, path, err)
	}
	return path, strings.TrimSpace(string(bytes.SplitN(out, []byte("\n"), 2)[0])), nil
}

// Args returns valgrind's arguments to run a program under callgrind as
// certbench does: collection on in every thread but instrumentation off
// at the start (the program switches it on around what it measures, see
// Session, or a test binary's patched testing: TestingOverlay), one file
// per thread (Session.Read leaves
// sysmon's out), recursions not separated (Go's goroutine stack switches
// would otherwise split functions into name'2, name'3...), output files
// and valgrind's own messages (LogFile) in o.Dir, and stacks and the
// cache simulation if asked.
func (o Options) Args() []string {
	args := []string{
		"--tool=callgrind",
		"--collect-atstart=yes",
		"--instr-atstart=no",
		"--separate-recs=1",
		"--separate-threads=yes",
		"--callgrind-out-file=" + filepath.Join(o.Dir, OutFile),
		"--log-file=" + filepath.Join(o.Dir, LogFile),
	}
	if o.Stacks {
		args = append(args, "--separate-callers="+strconv.Itoa(StackDepth))
	}
	if o.CacheSim {
		args = append(args, "--cache-sim=yes", "--I1="+CacheI1, "--D1="+CacheD1, "--LL="+CacheLL)
	}
	return args
}

// Command returns the command that runs name with args under callgrind
// (see Options.Args), with the environment Env makes from os.Environ().
// It fails, wrapping ErrNotInstalled, when valgrind cannot be found, and
// wrapping ErrUnsupported on an architecture other than amd64.
func Command(ctx context.Context, o Options, name string, args ...string) (*exec.Cmd, error) {
	if !Supported() || runtime.GOOS != "linux" {
		return nil, ErrUnsupported
	}
	if o.Dir == "" {
		return nil, errors.New("callgrind: no output directory")
	}
	path, version, err := Find(o.Valgrind)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, path, append(append(o.Args(), "--", name), args...)...)
	cmd.Env = append(Env(os.Environ(), o.Dir), VersionEnv+"="+version)
	return cmd, nil
}

// Env returns environ with what a Go program needs under callgrind:
// GODEBUG's settings appended to any the environment has (the last
// setting wins), GOMAXPROCS=1 (one P: the goroutines a store starts run
// in a deterministic order, no idle P spins looking for work), and DirEnv
// naming dir.
func Env(environ []string, dir string) []string {
	out := make([]string, 0, len(environ)+3)
	godebug := GODEBUG
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "GODEBUG":
			if v != "" {
				godebug = v + "," + GODEBUG
			}
			continue
		case "GOMAXPROCS", DirEnv, VersionEnv, SeedEnv:
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GODEBUG="+godebug, "GOMAXPROCS=1", DirEnv+"="+dir)
}

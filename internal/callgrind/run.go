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
	"strings"
)

// ErrNotInstalled is returned (wrapped) when valgrind cannot be found.
// Its message names the package to install.
var ErrNotInstalled = errors.New("valgrind is not installed: install it (Debian, Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind)")

// ErrUnsupported is returned (wrapped) on architectures whose client
// requests this package does not implement.
var ErrUnsupported = fmt.Errorf("simulated CPU needs linux/amd64 (callgrind client requests are implemented for amd64 only); this is %s/%s", runtime.GOOS, runtime.GOARCH)

// GODEBUG is what a Go program needs in GODEBUG to run under callgrind
// deterministically:
//
//   - cpu.rdtscp=off: the runtime reads the clock with RDTSCP, which
//     valgrind 3.19 cannot decode (the process dies with SIGILL);
//   - asyncpreemptoff=1: the signals of asynchronous preemption trip
//     callgrind's signal bookkeeping;
//   - gcshrinkstackoff=1: a collection before a window would shrink the
//     measuring goroutine's stack, to be grown again (copied) inside the
//     window in some samples and not in others.
const GODEBUG = "cpu.rdtscp=off,asyncpreemptoff=1,gcshrinkstackoff=1"

// OutFile is the base name of callgrind's output files in Options.Dir:
// the dump with number N is written to OutFile.N (see Session).
const OutFile = "callgrind.out"

// LogFile is the file in Options.Dir that valgrind writes its own
// messages to (its banner, warnings, and why it stopped the program).
const LogFile = "valgrind.log"

// DirEnv is the environment variable through which Command tells the
// program it runs where callgrind writes (see Open).
const DirEnv = "CERTBENCH_CALLGRIND_DIR"

// VersionEnv is the environment variable through which Command tells the
// program it runs valgrind's version ("valgrind-3.19.0"; see
// Session.Version).
const VersionEnv = "CERTBENCH_CALLGRIND_VERSION"

// Cache geometry of the cache simulation, fixed so that results do not
// depend on the caches of the machine that ran them (valgrind would
// otherwise read the host's, and a VM may report anything): a 32 KiB
// 8-way L1 for instructions and for data and an 8 MiB 16-way last-level
// cache, 64-byte lines, as on common x86-64 server cores.
const (
	CacheI1 = "32768,8,64"
	CacheD1 = "32768,8,64"
	CacheLL = "8388608,16,64"
)

// Options say how Command runs callgrind.
type Options struct {
	// Dir is the directory callgrind writes its files to; it must exist.
	Dir string
	// CacheSim turns on the cache simulation (events I1mr, D1mr, D1mw,
	// ILmr, DLmr, DLmw beside Ir), with the geometry of CacheI1, CacheD1
	// and CacheLL. It slows the run down.
	CacheSim bool
	// Valgrind is the valgrind executable; "" looks "valgrind" up in
	// PATH.
	Valgrind string
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
// certbench does: collection and instrumentation off at the start (the
// program switches them on around what it measures, see Session),
// recursions not separated (Go's goroutine stack switches would otherwise
// split functions into name'2, name'3...), output files and valgrind's
// own messages (LogFile) in o.Dir, and the cache simulation if asked.
func (o Options) Args() []string {
	args := []string{
		"--tool=callgrind",
		"--collect-atstart=no",
		"--instr-atstart=no",
		"--separate-recs=1",
		"--callgrind-out-file=" + filepath.Join(o.Dir, OutFile),
		"--log-file=" + filepath.Join(o.Dir, LogFile),
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

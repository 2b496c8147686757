package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/simrand"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// SimulateFlags choose the instrument of the commands that measure or
// profile under the simulated CPU (run, profile).
type simulateFlags struct {
	Instrument string // --instrument: wall (the default) or simulate
	CacheSim   bool   // --cache-sim: est-cycles/op too
}

func (f *simulateFlags) bind(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.Instrument, "instrument", bench.Wall,
		"how the timed ops are measured: `wall` (the clock) or simulate (instructions under valgrind's callgrind; certbench starts it)")
	cmd.Flags().BoolVar(&f.CacheSim, "cache-sim", false, "with --instrument simulate: simulate the caches too and record est-cycles/op (slower)")
}

// simulate reports whether the flags ask for the simulate instrument,
// checking them.
func (f *simulateFlags) simulate() (bool, error) {
	switch f.Instrument {
	case "", bench.Wall:
		if f.CacheSim {
			return false, usagef("--cache-sim needs --instrument simulate")
		}
		return false, nil
	case bench.Simulate:
		return true, nil
	}
	return false, usagef("--instrument %q: want %s or %s", f.Instrument, bench.Wall, bench.Simulate)
}

// underCallgrind reports whether this process is the one certbench
// started under callgrind (it then measures; its parent only waits).
func underCallgrind() bool { return os.Getenv(callgrind.DirEnv) != "" }

// simulateConfig returns the file configuration lines of a simulated
// run: the instrument and the simulator's version.
func simulateConfig() []string {
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
	return []string{results.InstrumentKey, bench.Simulate, results.SimulatorKey, sim}
}

// checkSimulated refuses scenarios the simulate instrument cannot
// measure, as bad usage.
func checkSimulated(scs []scenarios.Scenario) error {
	for _, sc := range scs {
		if err := sc.CheckSimulate(); err != nil {
			return usageError(err)
		}
	}
	return nil
}

// argsKey is the context key of the arguments Main was given.
type argsKey struct{}

// commandArgs returns the arguments certbench was started with: those
// given to Main, else the process's.
func commandArgs(ctx context.Context) []string {
	if a, ok := ctx.Value(argsKey{}).([]string); ok {
		return a
	}
	return os.Args[1:]
}

// reexecUnderCallgrind runs this command again under callgrind and waits
// for it, forwarding a SIGINT or SIGTERM and exiting as it does. It first
// checks valgrind and fills the pool cache natively for large pools, so
// that the child does not generate certificates under the simulation.
func reexecUnderCallgrind(ctx context.Context, out ioStreams, scs []scenarios.Scenario, o callgrind.Options) error {
	if !callgrind.Supported() {
		return usageError(callgrind.ErrUnsupported)
	}
	if _, _, err := callgrind.Find(""); err != nil {
		return usageError(err)
	}
	for _, sc := range scs {
		if sc.Certs == nil && sc.Pool.Count >= certgen.DiskCacheMin {
			if _, err := certgen.CachedPool(sc.Pool); err != nil {
				return fmt.Errorf("scenario %s: %w", sc.Name, err)
			}
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the certbench executable to run under callgrind: %w", err)
	}
	dir, err := os.MkdirTemp("", "certbench-callgrind-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	o.Dir = dir
	child := callgrindChild{opts: o, exe: exe, args: commandArgs(ctx), out: out}
	cmd, stderr, err := child.start(true)
	if errors.Is(err, callgrind.ErrNoFixedSeed) {
		fmt.Fprintf(out.ErrOut, "certbench: warning: %v; instruction counts of code that hashes with a per-process seed will differ between processes\n", err)
		cmd, stderr, err = child.start(false)
	}
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return fmt.Errorf("starting valgrind: %w", err)
	}
	return waitChild(ctx, cmd, stderr, out.ErrOut, filepath.Join(dir, callgrind.LogFile))
}

// callgrindChild is the certbench process reexecUnderCallgrind starts.
type callgrindChild struct {
	opts callgrind.Options
	exe  string
	args []string
	out  ioStreams
}

// start starts the child, its start-up seed fixed if fixed, and returns
// its stderr.
func (c callgrindChild) start(fixed bool) (*exec.Cmd, io.Reader, error) {
	cmd, err := callgrind.Command(context.Background(), c.opts, c.exe, c.args...)
	if errors.Is(err, callgrind.ErrNotInstalled) || errors.Is(err, callgrind.ErrUnsupported) {
		return nil, nil, usageError(err)
	}
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdout = c.out.Out
	// In a process group of its own: a Ctrl-C reaches only this process,
	// which passes it on once (a second would stop the child at once).
	ownProcessGroup(cmd)
	if isTerminal(c.out.ErrOut) {
		cmd.Env = append(cmd.Env, terminalEnv+"=1")
	}
	if fixed {
		cmd.Env = append(cmd.Env, callgrind.SeedEnv+"=fixed")
	}
	// The child's stderr is filtered of rdtscpWarning.
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	if fixed {
		err = callgrind.StartFixedSeed(cmd, callgrind.Seed)
	} else {
		err = cmd.Start()
	}
	return cmd, stderr, err
}

// waitChild copies the started child's stderr to errOut (rdtscpWarning
// left out), passes ctx's signal on to it, and waits for it; its log is
// valgrind's, quoted when valgrind itself failed.
func waitChild(ctx context.Context, cmd *exec.Cmd, stderr io.Reader, errOut io.Writer, log string) error {
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		copyWithout(errOut, stderr, rdtscpWarning)
	}()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			sig := os.Signal(syscall.SIGINT)
			var sc *signalCause
			if errors.As(context.Cause(ctx), &sc) {
				sig = sc.sig
			}
			cmd.Process.Signal(sig)
		case <-done:
		}
	}()
	<-copied // all of stderr read before Wait closes the pipe
	err := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		// The child reported its own error (or interruption).
		return &exitError{code: exit.ExitCode(), err: errSilent}
	case errors.As(err, &exit):
		return fmt.Errorf("certbench under callgrind: %v%s", err, logTail(log))
	}
	return fmt.Errorf("certbench under callgrind: %w", err)
}

// terminalEnv tells the child certbench that its stderr, a pipe through
// the parent's filter, ends at a terminal: it shows progress.
const terminalEnv = "CERTBENCH_STDERR_TERMINAL"

// rdtscpWarning begins the lines golang.org/x/sys/cpu prints for the
// runtime's cpu.rdtscp option (see internal/callgrind.GODEBUG).
const rdtscpWarning = `GODEBUG sys/cpu: unknown cpu feature "rdtscp"`

// copyWithout copies r to w, leaving out the lines at its start that begin
// with prefix; the rest is copied as it comes (progress ends in \r).
func copyWithout(w io.Writer, r io.Reader, prefix string) {
	br := bufio.NewReader(r)
	for {
		peek, err := br.Peek(len(prefix))
		if err != nil || string(peek) != prefix {
			break
		}
		if _, err := br.ReadString('\n'); err != nil {
			return
		}
	}
	io.Copy(w, br)
}

// logTail returns the last lines of valgrind's log, for an error message.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return "; valgrind's log ends:\n" + string(bytes.Join(lines, []byte("\n")))
}

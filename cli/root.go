package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/certbench/certbench/results"
	"github.com/spf13/cobra"
)

// Exit codes of the certbench command.
const (
	ExitOK         = 0 // success
	ExitRegression = 1 // certbench gate found a regression
	ExitUsage      = 2 // bad usage or bad input
	// ExitStoreFailed: a store under test panicked or hung (run,
	// compare, sweep); the other stores' results are written.
	ExitStoreFailed = 1
	// ExitInterrupted and ExitTerminated follow SIGINT and SIGTERM (128
	// plus the signal, as shells say); what was complete is kept.
	ExitInterrupted = 130
	ExitTerminated  = 143
)

// signalCause is the cancellation cause of Main's context when a signal
// arrived.
type signalCause struct{ sig os.Signal }

func (c *signalCause) Error() string { return "interrupted by " + c.sig.String() }

// Signal is the signal, which callgrind.Supervise passes on to its child.
func (c *signalCause) Signal() os.Signal { return c.sig }

// exitCode is ExitTerminated after SIGTERM, else ExitInterrupted.
func (c *signalCause) exitCode() int {
	if s, ok := c.sig.(syscall.Signal); ok && s == syscall.SIGTERM {
		return ExitTerminated
	}
	return ExitInterrupted
}

// interruptedError is returned by a command that stopped early on an
// interrupt after keeping kept samples.
type interruptedError struct {
	kept int
	err  error
}

func (e *interruptedError) Error() string {
	return "interrupted: " + plural(e.kept, "sample") + " kept"
}
func (e *interruptedError) Unwrap() error { return e.err }

// ExitDeadline is how long the process may take to end after the first
// SIGINT or SIGTERM, whatever it waits for (a stuck store, a full pipe).
const ExitDeadline = 15 * time.Second

// notifyContext returns a context cancelled, with a *signalCause, by the
// first SIGINT or SIGTERM; a second kills the process at once, and it
// exits ExitDeadline after the first unless stop was called.
func notifyContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	var (
		mu      sync.Mutex
		stopped bool
		force   *time.Timer
	)
	go func() {
		select {
		case sig := <-sigs:
			signal.Stop(sigs)
			sc := &signalCause{sig}
			cancel(sc)
			mu.Lock()
			defer mu.Unlock()
			if !stopped {
				force = time.AfterFunc(ExitDeadline, func() {
					fmt.Fprintf(stderr, "certbench: still running %s after %v: exiting\n", ExitDeadline, sig)
					os.Exit(sc.exitCode())
				})
			}
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
		mu.Lock()
		defer mu.Unlock()
		stopped = true
		if force != nil {
			force.Stop()
		}
	}
}

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as bad usage or bad input (exit 2).
func usageError(err error) error { return &exitError{code: ExitUsage, err: err} }

// usagef is usageError with a formatted message.
func usagef(format string, args ...any) error { return usageError(fmt.Errorf(format, args...)) }

// Main runs the certbench command with args and returns its exit code:
// the entry point of a binary that imports its store packages.
func Main(args []string, stdout, stderr io.Writer) int {
	root := NewRoot(stdout, stderr)
	root.SetArgs(longForms(root, args))
	ctx, stop := notifyContext(stderr)
	defer stop()
	ctx = context.WithValue(ctx, argsKey{}, args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	var sc *signalCause
	if errors.As(context.Cause(ctx), &sc) {
		if errors.As(err, &ee) && ee.err == errSilent {
			return ee.code // a child process reported it (run --simulate)
		}
		var ie *interruptedError
		if errors.As(err, &ie) {
			fmt.Fprintln(stderr, "certbench:", ie)
		} else {
			fmt.Fprintln(stderr, "certbench: interrupted:", err)
		}
		return sc.exitCode()
	}
	if errors.As(err, &ee) {
		if ee.err != errSilent {
			fmt.Fprintln(stderr, "certbench:", ee.err)
		}
		return ee.code
	}
	// Errors cobra itself reports (unknown command or flag) are usage errors.
	fmt.Fprintln(stderr, "certbench:", err)
	return ExitUsage
}

// errSilent is an error whose message the command already printed.
var errSilent = errors.New("")

// NewRoot returns the root command with every subcommand, writing to
// stdout and stderr.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "certbench",
		Short: "Benchmark and allocation-profiling harness for TLS certificate stores",
		Long: `certbench runs identical certificate churn scenarios against pluggable TLS
certificate stores, records sec/op, B/op, allocs/op and retained heap, and
compares stores or runs with benchstat's statistics.

Exit codes: 0 success, 1 regression found (gate) or a store under test
failed (run, compare, sweep: it panicked or hung; conformance: it broke a
rule), 2 bad usage or input, 130 interrupted by SIGINT (Ctrl-C), 143 by
SIGTERM: the command stopped early, and run, compare and sweep keep the
complete samples and print how many (a second Ctrl-C kills at once; the
process exits 15 s after the first signal whatever it waits for).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       results.VersionLine(),
	}
	root.SetVersionTemplate("certbench {{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError(flagError(c, err)) })
	root.AddCommand(newListCmd(nil), newRunCmd(nil), newMergeCmd(nil), newCompareCmd(nil), newProfileCmd(nil), newGateCmd(nil), newSweepCmd(nil), newReportCmd(nil))
	root.AddCommand(newConformanceCmd(nil), newPeerCmd(), newABCmd(), newHistoryCmd(nil))
	// pflag's notes go to stderr, not into the results on stdout.
	var quiet func(*cobra.Command)
	quiet = func(c *cobra.Command) {
		c.Flags().SetOutput(stderr)
		for _, sub := range c.Commands() {
			quiet(sub)
		}
	}
	quiet(root)
	return root
}

// isTerminal reports whether w is a terminal, for progress output; under
// callgrind the parent says so (terminalEnv).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	if f == os.Stderr && os.Getenv(terminalEnv) == "1" {
		return true
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

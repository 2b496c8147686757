package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
)

// Exit codes of the certbench command.
const (
	ExitOK         = 0 // success
	ExitRegression = 1 // certbench gate found a regression
	ExitUsage      = 2 // bad usage or bad input
)

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

// Main runs the certbench command with args and returns its exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	root := NewRoot(stdout, stderr)
	root.SetArgs(args)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
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

Exit codes: 0 success, 1 regression found (gate), 2 bad usage or input.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError(err) })
	root.AddCommand(newListCmd(), newRunCmd(), newCompareCmd(), newProfileCmd(), newGateCmd(), newSweepCmd(), newReportCmd())
	return root
}

// isTerminal reports whether w is a terminal, for progress output.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// writeFile writes data to path.
func writeFile(path string, data []byte) error {
	return os.WriteFile(path, data, 0o644)
}

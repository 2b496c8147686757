package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
)

// SimulateFlags choose the instrument of the commands that measure or
// profile under the simulated CPU (run, profile).
type simulateFlags struct {
	Simulate bool // --simulate: instructions/op instead of the clock
	CacheSim bool // run's --cache-sim: est-cycles/op too
}

func (f *simulateFlags) bind(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.Simulate, "simulate", false, "count instructions/op on the simulated CPU (valgrind's callgrind; certbench starts it) instead of the clock")
}

// simulate reports whether the flags ask for the simulated CPU, checking
// them.
func (f *simulateFlags) simulate() (bool, error) {
	if f.CacheSim && !f.Simulate {
		return false, usagef("--cache-sim needs --simulate")
	}
	return f.Simulate, nil
}

// underCallgrind reports whether this process is the one certbench
// started under callgrind (it then measures; its parent only waits).
func underCallgrind() bool { return os.Getenv(callgrind.DirEnv) != "" }

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
// for it (callgrind.Supervise), exiting as it does. Valgrind found, it
// first prepares the scenarios natively (bench.PrepareSimulate).
func reexecUnderCallgrind(ctx context.Context, out ioStreams, scs []scenarios.Scenario, o callgrind.Options) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding the certbench executable to run under callgrind: %w", err)
	}
	if o.Dir, err = os.MkdirTemp("", "certbench-callgrind-"); err != nil {
		return err
	}
	defer os.RemoveAll(o.Dir)
	cmd, err := callgrind.Command(context.Background(), o, exe, commandArgs(ctx)...)
	if err != nil {
		return usageError(err)
	}
	if err := bench.PrepareSimulate(scs); err != nil {
		return err
	}
	cmd.Stdout = out.Out
	if isTerminal(out.ErrOut) {
		cmd.Env = append(cmd.Env, terminalEnv+"=1")
	}
	err = callgrind.Supervise(ctx, cmd, o, out.ErrOut)
	var exit *callgrind.ExitError
	if errors.As(err, &exit) {
		return &exitError{code: exit.Code, err: errSilent}
	}
	return err
}

// terminalEnv tells the child certbench that its stderr, a pipe through
// the parent's filter, ends at a terminal: it shows progress.
const terminalEnv = "CERTBENCH_STDERR_TERMINAL"

package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/certbench/certbench/conformance"
	"github.com/certbench/certbench/internal/table"
	"github.com/spf13/cobra"
)

// conformanceFormats are the output formats of conformance.
var conformanceFormats = []string{"text", "markdown", "json"}

// ConformanceOptions are the options of certbench conformance.
type conformanceOptions struct {
	ioStreams ioStreams
	Stores    []string // none: every registered store; with Against, the base
	// Against, when set, compares Stores[0] (the base) with this store.
	Against string
	// Seed and Iterations set the differential pass or the
	// comparison (0: package conformance's defaults).
	Seed       uint64
	Iterations int
	Format     string // text, markdown or json
	Output     string // -o; "" or "-" is IO.Out
	Verbose    bool   // say which store runs, and each change found
	// ChildTimeout bounds each store's child process; 0 is 30 minutes.
	ChildTimeout time.Duration
}

func newConformanceCmd(runF func(context.Context, *conformanceOptions) error) *cobra.Command {
	opts := &conformanceOptions{}
	cmd := &cobra.Command{
		Use:   "conformance [--stores a,b] [--seed N] [--duration D] | --stores BASE --against HEAD",
		Short: "Check stores against the contract's rules (exit 1 if one fails), or diff two stores' behaviour",
		Long: `conformance checks each store (default: every registered one) against every
rule of the certstore contract and runs the differential pass (the store's
answers against certstore.Match on random configurations), and prints a row per
rule, a column per store, then the failures' messages; a differential failure
comes with a shrunk Go test case and its seed. Deviations a store declares
(conformance.Declare) are counted under their names, not failed.

With --against HEAD (and --stores BASE) it runs the same generated cases on two
stores, several times each, and reports each kind of difference once, shrunk,
as "base served X, head serves Y" ("X or Y" for an answer that varies).

Each store runs in a child process, so a store that crashes or hangs fails the
rule that was running. Exit codes: 0 every rule passed (no difference), 1 a
rule failed (the stores differ), 2 bad usage.`,
		Example: `  certbench conformance --stores optimized --duration 5m --seed 7
  certbench conformance --stores traefik@base --against traefik@head`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.ioStreams = ioOf(cmd)
			if served, err := conformance.ServeChild(opts.ioStreams.Out); served {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConformance(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	storesFlag(cmd, &opts.Stores, nil, "stores to check, comma-separated `names` (default: every registered store); with --against, the base store")
	f.StringVar(&opts.Against, "against", "", "compare the behaviour of the --stores store with this `store`'s instead of checking rules")
	completeNames(cmd, "against", storeNames)
	f.Uint64Var(&opts.Seed, "seed", 0, "`seed` of the differential pass or the comparison (0: conformance.DefaultDiffSeed)")
	f.IntVar(&opts.Iterations, "iterations", 0, "bound the differential pass or the comparison to `n` iterations (0: the default)")
	f.StringVar(&opts.Format, "format", "text", formatUsage("output format", conformanceFormats))
	f.StringVarP(&opts.Output, "output", "o", "", "write the output to this `file` instead of stdout")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "say which store is running on stderr, and each change as it is found")
	return cmd
}

// runConformance checks each store (or compares two) in a child process
// (conformance.Isolated).
func runConformance(ctx context.Context, opts *conformanceOptions) error {
	if err := checkFormat(opts.Format, conformanceFormats); err != nil {
		return err
	}
	if opts.Iterations < 0 {
		return usagef("--iterations must not be negative")
	}
	stores := opts.Stores
	if len(stores) == 0 && opts.Against == "" {
		if stores = storeNames(); len(stores) == 0 {
			return usagef("no store is registered in this binary")
		}
	}
	if opts.Against != "" && len(stores) != 1 {
		return usagef("--against compares two stores: name the base with --stores BASE (one store), the head with --against HEAD")
	}
	if _, err := lookupStores("--stores", stores); err != nil {
		return err
	}
	iso := conformance.Isolated{Command: conformanceCommand, Args: []string{"conformance"}, Seed: opts.Seed, Iterations: opts.Iterations,
		Timeout: opts.ChildTimeout}
	var out table.Document
	failed := false
	if opts.Against != "" {
		if _, err := lookupStores("--against", []string{opts.Against}); err != nil {
			return err
		}
		if stores[0] == opts.Against {
			return usagef("--against %s: a store compared with itself", opts.Against)
		}
		if opts.Verbose {
			fmt.Fprintf(opts.ioStreams.ErrOut, "conformance: comparing %s with %s\n", stores[0], opts.Against)
			iso.Found = func(ch *conformance.Change) { fmt.Fprintf(opts.ioStreams.ErrOut, "conformance: change: %s\n", ch.Kind) }
		}
		c, err := iso.Compare(ctx, stores[0], opts.Against)
		if errors.Is(err, conformance.ErrChild) {
			return &exitError{code: ExitRegression, err: err}
		} else if err != nil {
			return err
		}
		out, failed = c, c.Differs()
	} else {
		tab := &conformance.Outcomes{Stores: stores, Seed: opts.Seed}
		for _, name := range stores {
			if opts.Verbose {
				fmt.Fprintf(opts.ioStreams.ErrOut, "conformance: running the suite against %s\n", name)
			}
			r, err := iso.Check(ctx, name)
			if err != nil {
				return err
			}
			tab.Add(name, r)
		}
		out, failed = tab, !tab.Passed
	}
	if err := writeOutput(opts, out); err != nil {
		return err
	}
	if failed {
		return &exitError{code: ExitRegression, err: errSilent}
	}
	return nil
}

// writeOutput renders r to -o or IO.Out.
func writeOutput(opts *conformanceOptions, r table.Document) error {
	if opts.Output == "" || opts.Output == "-" {
		return table.WriteDocument(opts.ioStreams.Out, opts.Format, r)
	}
	var buf bytes.Buffer
	if err := table.WriteDocument(&buf, opts.Format, r); err != nil {
		return err
	}
	if err := os.WriteFile(opts.Output, buf.Bytes(), 0o644); err != nil {
		return usagef("-o: %v", err)
	}
	return nil
}

// conformanceCommand makes a child's command (nil: this binary, running
// conformance); tests replace it.
var conformanceCommand func(ctx context.Context) *exec.Cmd

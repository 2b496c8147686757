package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/certbench/certbench/internal/ci/ab"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/peer/peerbuild"
	"github.com/certbench/certbench/internal/peer/peercheck"
	"github.com/spf13/cobra"
)

// PeerBuildOptions are the options of certbench peer build.
type peerBuildOpts struct {
	ioStreams ioStreams
	// Base, Head: a tree of the proxy's module or KIND@VERSION; Certbench:
	// the checkout with the adapters ("": the working directory's);
	// Output: the binary.
	Base, Head, Certbench, Output string
}

func newPeerCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "peer",
		Short: "Measure a proxy's own trees (Traefik, certmagic): build with both sides, check a pull request",
		Long: `peer runs certbench's peer adapters (peers/traefik, peers/certmagic) over trees of
the proxy at any commit, or released versions: build writes one binary with a
store per side; check checks head against base and writes one Markdown
comment. Both need the adapters' source: run them inside a certbench checkout,
or give it with --certbench.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usagef("peer needs a subcommand: build or check (see certbench peer --help)")
		},
	}
	cmd.AddCommand(newPeerBuildCmd(nil), newPeerCheckCmd(nil))
	return cmd
}

func newPeerBuildCmd(runF func(context.Context, *peerBuildOpts) error) *cobra.Command {
	opts := &peerBuildOpts{}
	cmd := &cobra.Command{
		Use:   "build --base TREE|KIND@VERSION --head TREE|KIND@VERSION -o BINARY",
		Short: "Build a certbench binary with the proxy at base and at head as two stores",
		Long: `build writes a certbench binary (-o) whose stores KIND@base and KIND@head run
the peer adapter over two versions of the proxy: two local trees (each the
directory of the proxy's go.mod) or released versions (traefik@v3.6.12,
certmagic@v0.25.6); the kind is read from the trees' go.mod. Both sides are
copied into a temporary build directory under module paths of their own, so
that Go links both; nothing is written into the trees. When a tree's Go API
differs from the adapter's, the error names the adapter function and line.
Exit codes: 0 built, 2 bad input (not Traefik or certmagic, a tree that does
not compile, base and head the same, an adapter that does not build).`,
		Example: `  certbench peer build --base ../traefik-main --head ../traefik-pr -o certbench-traefik
  certbench peer build --base traefik@v3.6.12 --head traefik@v3.7.13 -o certbench-traefik
  certbench peer build --base certmagic@v0.24.0 --head ~/src/certmagic -o certbench-certmagic`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.ioStreams = ioOf(cmd)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPeerBuild(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Base, "base", "", "the base side: a `TREE` (directory of the proxy's go.mod) or KIND@VERSION")
	f.StringVar(&opts.Head, "head", "", "the head side: a `TREE` or KIND@VERSION")
	f.StringVar(&opts.Certbench, "certbench", "", "the certbench checkout with the adapters (`dir`; default: the one the working directory is in)")
	f.StringVarP(&opts.Output, "output", "o", "", "the binary to write (`file`)")
	return cmd
}

func runPeerBuild(ctx context.Context, opts *peerBuildOpts) error {
	if opts.Output == "" {
		return usagef("-o: the binary to write is required")
	}
	bopts, err := peerBuildOptions(opts.Base, opts.Head, opts.Certbench)
	if err != nil {
		return err
	}
	bopts.Output = opts.Output
	res, err := buildPeer(ctx, bopts, opts.ioStreams)
	if err != nil {
		return err
	}
	fmt.Fprintf(opts.ioStreams.Out, "%s: stores %s\n", opts.Output, strings.Join(res.Stores, ", "))
	return nil
}

// peerBuildOptions checks the sides and finds the certbench checkout.
func peerBuildOptions(base, head, certbench string) (peerbuild.Options, error) {
	var opts peerbuild.Options
	if base == "" || head == "" {
		return opts, usagef("--base and --head are both required")
	}
	for _, s := range [][2]string{{"base", base}, {"head", head}} {
		side, err := peerbuild.ParseSide(s[0], s[1])
		if err != nil {
			return opts, usageError(err)
		}
		opts.Sides = append(opts.Sides, side)
	}
	if certbench == "" {
		wd, err := os.Getwd()
		if err != nil {
			return opts, err
		}
		if certbench, err = peerbuild.FindCertbench(wd); err != nil {
			return opts, usagef("%v: run certbench peer inside a certbench checkout, or give one with --certbench (it holds the adapters' source)", err)
		}
	}
	opts.Certbench = certbench
	return opts, nil
}

// buildPeer runs peerbuild.Build, bad input and adapter errors as usage
// errors (exit 2).
func buildPeer(ctx context.Context, opts peerbuild.Options, io ioStreams) (*peerbuild.Result, error) {
	var names []string
	for _, s := range opts.Sides {
		names = append(names, s.String())
	}
	fmt.Fprintf(io.ErrOut, "peer: building %s\n", strings.Join(names, " and "))
	res, err := peerbuild.Build(ctx, opts)
	var ie *peerbuild.InputError
	var ae *peerbuild.AdapterError
	switch {
	case errors.As(err, &ie), errors.As(err, &ae):
		return nil, usageError(err)
	case err != nil:
		return nil, usageError(fmt.Errorf("peer build: %w", err))
	}
	for _, n := range res.Notes {
		fmt.Fprintf(io.ErrOut, "peer: note: %s\n", n)
	}
	return res, nil
}

// PeerCheckOptions are the options of certbench peer check.
type peerCheckOptions struct {
	ioStreams ioStreams
	// Base, Head and Certbench as for peer build; a Base that is neither
	// a directory nor KIND@VERSION is a git ref: the base is then the
	// merge base of it and Head's HEAD.
	Base, Head, Certbench string
	Out, Comment          string // --out; -o (default OUT/comment.md)
	// Simulate, if SimulateGiven, chooses the CPU half's instrument
	// (else the simulated CPU where valgrind is installed).
	Simulate, SimulateGiven bool
	Check                   peercheck.Options
	Skip                    []string
	// Config and Max are the gate's policy flags.
	Config string
	Max    gate.Thresholds
}

func newPeerCheckCmd(runF func(context.Context, *peerCheckOptions) error) *cobra.Command {
	opts := &peerCheckOptions{}
	cmd := &cobra.Command{
		Use:   "check --base TREE|KIND@VERSION --head TREE|KIND@VERSION [--out DIR] [-o COMMENT.md]",
		Short: "Check a proxy's pull request: conformance, behaviour diff, gate on scenarios and the proxy's own benchmarks; one Markdown comment",
		Long: `check compares a pull request's head of Traefik or certmagic with its base (two
trees, each the directory of the proxy's go.mod, or KIND@VERSION). It builds one
binary with both as stores KIND@base and KIND@head, then runs: conformance (a
rule the base keeps in 4 runs and the head breaks fails), the behaviour diff (any
difference fails), certbench ab's A/B protocol on certbench's scenarios (on the
simulated CPU where valgrind is installed) and on the proxy's go test benchmarks.
One Markdown comment (-o, default DIR/comment.md); each step's files in --out
(docs/peer-check.md). Exit codes: 0 pass, 1 a rule newly broken, a behaviour
change or a regression, 2 bad input or too few samples to decide.`,
		Example: `  certbench peer check --base ../traefik-main --head ../traefik-pr
  certbench peer check --base certmagic@v0.24.0 --head ~/src/certmagic --skip gobench`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.ioStreams = ioOf(cmd)
			opts.SimulateGiven = cmd.Flags().Changed("simulate")
			c := &opts.Check
			// Without --config the built-in policy, not a certbench.yaml
			// of the working directory (certbench's own checkout).
			c.Policy = gate.PolicyFlags{Config: opts.Config, NoConfig: opts.Config == "", Max: opts.Max}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPeerCheck(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	c := &opts.Check
	f.StringVar(&opts.Base, "base", "", "the base side: a `TREE` (directory of the proxy's go.mod), KIND@VERSION, or a git ref (its merge base with --head's HEAD)")
	f.StringVar(&opts.Head, "head", "", "the head side: a `TREE` or KIND@VERSION")
	f.StringVar(&opts.Certbench, "certbench", "", "the certbench checkout with the adapters (`dir`; default: the one the working directory is in)")
	f.StringVar(&opts.Out, "out", "certbench-peer-out", "write every step's files into this `dir`")
	f.StringVarP(&opts.Comment, "output", "o", "", "write the comment to this `file` (default OUT/comment.md)")
	f.StringSliceVar(&c.Scenarios, "scenarios", nil, "certbench scenarios to gate, comma-separated `names` (default "+strings.Join(peercheck.DefaultScenarios, ",")+")")
	f.IntVar(&c.Count, "count", 10, "interleaved rounds (`n` samples per side) of the clock's pass and the proxy's benchmarks; the gate needs 6 with several benchmarks")
	f.IntVar(&c.SimCount, "sim-count", peercheck.DefaultSimCount, "`n` samples per side of the simulated CPU's pass")
	f.IntVar(&c.Ops, "ops", 0, "`n` ops per scenario sample (0: each scenario's)")
	f.BoolVar(&opts.Simulate, "simulate", true, "the CPU half in instructions/op on the simulated CPU (valgrind); false: the clock (default where valgrind is installed)")
	f.StringVar(&opts.Config, "config", "", "gate policy `file` (\"gate\" section; default: the built-in policy)")
	f.Var(&opts.Max, "max", "a gate threshold, `UNIT=THRESHOLD` (see certbench gate --help); repeatable")
	f.StringSliceVar(&c.BenchPackages, "bench-packages", nil, "the proxy's packages whose go test benchmarks are gated, comma-separated `patterns` relative to a tree (default ./pkg/tls/... for traefik, . for certmagic)")
	f.StringVar(&c.Bench, "bench", "", "select the proxy's benchmarks (-test.bench `regexp`; default .)")
	f.StringSliceVar(&opts.Skip, "skip", nil, "steps to skip, comma-separated: `conformance,diff,gate,gobench`")
	return cmd
}

func runPeerCheck(ctx context.Context, opts *peerCheckOptions) error {
	if opts.Out == "" {
		return usagef("--out: empty folder name")
	}
	if opts.Check.Count < 1 || opts.Check.SimCount < 1 {
		return usagef("--count %d, --sim-count %d: want at least 1", opts.Check.Count, opts.Check.SimCount)
	}
	for _, step := range opts.Skip {
		skip := map[string]*bool{"conformance": &opts.Check.NoConformance, "diff": &opts.Check.NoDiff, "gate": &opts.Check.NoGate, "gobench": &opts.Check.NoGoBench}[step]
		if skip == nil {
			return usagef("--skip %s: want conformance, diff, gate or gobench", step)
		}
		*skip = true
	}
	if opts.Check.Ops < 0 {
		return usagef("--ops %d: must not be negative", opts.Check.Ops)
	}
	if ref := opts.Base; isGitRef(ref) && opts.Head != "" {
		tree, commit, remove, err := ab.Checkout(ctx, opts.Head, ref)
		if err != nil {
			return usageError(err)
		}
		defer remove()
		opts.Base = tree
		opts.Check.Labels[0] = ref + "@" + commit[:7]
	}
	bopts, err := peerBuildOptions(opts.Base, opts.Head, opts.Certbench)
	if err != nil {
		return err
	}
	c := opts.Check
	c.Build = bopts
	c.Out = opts.Out
	if opts.SimulateGiven {
		c.Instrument = map[bool]string{true: peercheck.InstrumentSimulate, false: peercheck.InstrumentWall}[opts.Simulate]
	}
	c.Log = opts.ioStreams.ErrOut
	rep, err := peercheck.Run(ctx, c)
	var ie *peerbuild.InputError
	var ae *peerbuild.AdapterError
	var ge *ab.InputError
	switch {
	case errors.As(err, &ie), errors.As(err, &ae), errors.As(err, &ge):
		return usageError(err)
	case err != nil:
		return err
	}
	comment := opts.Comment
	if comment == "" {
		comment = filepath.Join(opts.Out, "comment.md")
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		return err
	}
	if err := os.WriteFile(comment, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the comment: %w", err)
	}
	opts.ioStreams.Out.Write(b.Bytes())
	fmt.Fprintf(opts.ioStreams.ErrOut, "peer: comment in %s (%s)\n", comment, rep.Elapsed.Round(time.Second))
	if !rep.Passed() {
		return &exitError{code: ExitRegression, err: errSilent}
	}
	if u := rep.Undecided(); u != "" {
		return usagef("the costs are not decided: %s (raise --count or --sim-count)", u)
	}
	return nil
}

// isGitRef reports whether a peer check --base names a git ref: a side
// that peerbuild.ParseSide reads as a tree, but no such path exists.
func isGitRef(base string) bool {
	side, err := peerbuild.ParseSide("--base", base)
	if err != nil || side.Tree == "" {
		return false
	}
	_, err = os.Stat(base)
	return err != nil
}

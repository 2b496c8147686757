package cli

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/ci/history"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// gateFormats are the output formats of gate.
var gateFormats = []string{"text", "markdown", "json"}

// GateOptions are the options of certbench gate.
type gateOptions struct {
	ioStreams ioStreams
	Base      string
	Heads     []string
	// History, if set, is the store the base is made from (a directory
	// or git:REF), up to the commit HistoryAt ("": its newest).
	History, HistoryAt string
	// Policy are the policy flags over the policy file.
	Policy gate.PolicyFlags
	Format string
	// Output is the report's file (-o); "" or "-" is IO.Out.
	Output string
	// Summary, if set, also gets the Markdown report.
	Summary string
	// BaseProfiles and HeadProfiles are folders of heap profiles and
	// callgrind files that name what grew; both or neither.
	BaseProfiles, HeadProfiles string
}

func newGateCmd(runF func(context.Context, *gateOptions) error) *cobra.Command {
	g := &gateCmd{opts: &gateOptions{}}
	cmd := &cobra.Command{
		Use:     "gate BASE.txt HEAD.txt | gate --baseline BASE.txt HEAD.txt | gate --history LOC HEAD.txt...",
		Short:   "Fail (exit 1) when HEAD's results regress on BASE's beyond the policy's thresholds",
		Long:    gateLong,
		Example: gateExample,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := g.complete(cmd, args); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), g.opts)
			}
			return runGate(cmd.Context(), g.opts)
		},
	}
	g.addFlags(cmd.Flags())
	return cmd
}

// gateCmd holds the options of gate while its flags are parsed, with the
// flags that only shape them.
type gateCmd struct {
	opts     *gateOptions
	baseline string // --baseline: the base file, with HEAD the only argument
}

// addFlags defines gate's flags on f: the base, the policy (a file and
// --max over it; every other setting is a policy file key), the report's
// outputs and the profiles.
func (g *gateCmd) addFlags(f *pflag.FlagSet) {
	f.StringVar(&g.baseline, "baseline", "", "base result `file` (then the only argument is HEAD)")
	f.StringVar(&g.opts.History, "history", "", "the base is main's history, a `dir` or git:REF (certbench history)")
	f.StringVar(&g.opts.HistoryAt, "history-at", "", "with --history, its last commits up to this `commit` (the merge base)")
	f.Var(&g.opts.Policy.Max, "max", "a threshold, `UNIT=THRESHOLD` (+N%, +2ms, +1KiB, +1allocs, off; docs/gate.md), once per unit")
	f.StringVar(&g.opts.Policy.Config, "config", "", "policy `file` (\"gate\" section; default ./certbench.yaml if there is one; '' for the built-in defaults)")
	f.StringVar(&g.opts.Format, "format", "text", formatUsage("report format", gateFormats))
	f.StringVarP(&g.opts.Output, "output", "o", "", "write the report to this `file` instead of stdout")
	f.StringVar(&g.opts.Summary, "summary", "", "also write the Markdown report to this `file` (e.g. $GITHUB_STEP_SUMMARY)")
	f.StringVar(&g.opts.BaseProfiles, "base-profiles", "", "heap profiles and callgrind files of BASE (certbench profile --all: a `dir`)")
	f.StringVar(&g.opts.HeadProfiles, "head-profiles", "", "heap profiles and callgrind files of HEAD (`dir`)")
}

// complete checks the flags and arguments and fills opts from them.
func (g *gateCmd) complete(cmd *cobra.Command, args []string) error {
	fs := cmd.Flags()
	for _, name := range []string{"baseline", "history", "summary", "output", "base-profiles", "head-profiles"} {
		if fs.Changed(name) && fs.Lookup(name).Value.String() == "" {
			return usagef("--%s: empty file name", name)
		}
	}
	if err := g.files(args); err != nil {
		return err
	}
	g.opts.Policy.NoConfig = fs.Changed("config") && g.opts.Policy.Config == "" // --config '' is the defaults
	g.opts.ioStreams = ioOf(cmd)
	return nil
}

// files sets Base and Head from the arguments and --baseline.
func (g *gateCmd) files(args []string) error {
	opts := g.opts
	switch {
	case opts.HistoryAt != "" && opts.History == "":
		return usagef("--history-at: only with --history")
	case opts.History != "" && (g.baseline != "" || opts.BaseProfiles != ""):
		return usagef("--history: the base is the history, not --baseline or --base-profiles")
	case opts.History != "" && len(args) > 0:
		opts.Heads = args
	case opts.History != "":
		return usagef("with --history, give HEAD's result files")
	case g.baseline != "" && len(args) == 1:
		opts.Base, opts.Heads = g.baseline, args
	case g.baseline != "":
		return usagef("with --baseline, give exactly one HEAD file (got %d arguments)", len(args))
	case len(args) == 2:
		opts.Base, opts.Heads = args[0], args[1:]
	default:
		return usagef("gate needs BASE.txt and HEAD.txt (or --baseline BASE.txt HEAD.txt); got %d arguments", len(args))
	}
	return nil
}

// gateLong is gate's help text: the rules are in docs/gate.md.
const gateLong = `gate compares two result files (ideally interleaved rounds of a base and a head
binary on one machine), or HEAD's files with main's last commits in a history
(--history: no base run), and exits 1 if a metric of a benchmark regressed: a
change both significant and beyond its threshold. The rules, the defaults and the
policy file are in docs/gate.md. The policy is the "gate" section of --config FILE,
or of ./certbench.yaml if there is one (--config '': the defaults); --max overrides
its thresholds. --base-profiles and --head-profiles name the allocation sites or
functions that grew. Exit: 0 pass, 1 failed, 2 bad input.`

// gateExample is gate's usage examples.
const gateExample = `  certbench gate base.txt head.txt
  certbench gate --baseline results/reference.txt head.txt --max sec/op=+15%
  certbench gate --history git:refs/notes/certbench --history-at $(git merge-base origin/main HEAD) head.txt`

// runGate is options -> policy and results -> gate.Evaluate -> report.
func runGate(ctx context.Context, opts *gateOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	policy, err := gate.ResolvePolicy(opts.Policy)
	if err != nil {
		return usageError(err)
	}
	defer forAnalysis()()
	head, err := results.Load(opts.Heads...)
	if err != nil {
		return usageError(err)
	}
	base, used, err := loadGateBase(ctx, opts, head, policy.HistoryCommits)
	if err != nil {
		return err
	}
	for _, rs := range []*results.Set{base, head} {
		if err := rs.Cut(); err != nil {
			return usagef("%v: the gate does not decide on part of a file (run it again; or, to gate what it holds, certbench merge -o FILE.txt it first)", err)
		}
	}
	printWarnings(opts.ioStreams.ErrOut, base)
	printWarnings(opts.ioStreams.ErrOut, head)
	v, err := gate.Evaluate(base, head, policy)
	if err != nil {
		return usageError(err)
	}
	for _, c := range used {
		v.History = append(v.History, gate.HistoryCommit{Commit: c.Hash, Time: c.Time})
	}
	if opts.BaseProfiles != "" {
		v.AddSites(cost.Folders{Base: opts.BaseProfiles, Head: opts.HeadProfiles}, gateSites)
	} else {
		hintSites(v)
	}
	if err := writeGateReports(v, opts); err != nil {
		return err
	}
	if !v.Passed() {
		return &exitError{code: ExitRegression, err: errSilent}
	}
	return nil
}

// check rejects options that would do nothing, or outputs that would
// overwrite an input or each other.
func (o *gateOptions) check() error {
	if err := checkFormat(o.Format, gateFormats); err != nil {
		return err
	}
	profiles := o.BaseProfiles != ""
	if profiles != (o.HeadProfiles != "") {
		return usagef("--base-profiles and --head-profiles go together")
	}
	same := func(a, b string) bool {
		x, errx := filepath.Abs(a)
		y, erry := filepath.Abs(b)
		return errx == nil && erry == nil && x == y
	}
	outs := [][2]string{{"--summary", o.Summary}}
	if o.Output != "-" {
		outs = append(outs, [2]string{"-o", o.Output})
	}
	for _, out := range outs {
		if out[1] == "" {
			continue
		}
		for _, in := range append([]string{o.Base}, o.Heads...) {
			if same(out[1], in) {
				return usagef("%s %s: would overwrite the input %s", out[0], out[1], in)
			}
		}
	}
	if o.Output != "" && o.Output != "-" && same(o.Output, o.Summary) {
		return usagef("-o and --summary name the same file %s: one report would overwrite the other", o.Output)
	}
	return nil
}

// loadGateBase reads BASE, or with --history makes the base of head's
// instrument from the last n commits of the history (history.Base) and
// returns them, and checks that the profile folders, if any, are folders.
func loadGateBase(ctx context.Context, opts *gateOptions, head *results.Set, n int) (base *results.Set, used []history.Commit, err error) {
	if opts.History == "" {
		base, err = results.Load(opts.Base)
	} else if st, serr := history.Open(opts.History, ""); serr != nil {
		err = serr
	} else {
		at := opts.HistoryAt
		if full, err := history.Resolve(ctx, "", at); err == nil {
			at = full // a branch or tag of the repository here
		}
		instrument := cmp.Or(append(gate.InstrumentsOf(head), results.InstrumentWall)...)
		if base, used, err = history.Base(ctx, st, at, n, instrument); err != nil && strings.HasPrefix(err.Error(), st.String()) {
			err = fmt.Errorf("--history %w", err) // it names a stored file, or the ref
		} else if err != nil {
			err = fmt.Errorf("--history %s: %w", opts.History, err)
		}
	}
	if err != nil {
		return nil, nil, usageError(err)
	}
	if opts.BaseProfiles != "" {
		for _, d := range []string{opts.BaseProfiles, opts.HeadProfiles} {
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
				return nil, nil, usagef("profile directory %s: not a readable directory", d)
			}
		}
	}
	return base, used, nil
}

// writeGateReports writes the verdict to --summary (Markdown) and to -o
// or stdout.
func writeGateReports(v *gate.Verdict, opts *gateOptions) error {
	if opts.Summary != "" {
		if err := writeFileBy(opts.Summary, "--summary", func(w io.Writer) error { return table.WriteMarkdown(w, v.Page()) }); err != nil {
			return err
		}
	}
	write := func(w io.Writer) error { return table.Write(w, opts.Format, v.Page(), v.JSON()) }
	if opts.Output == "" || opts.Output == "-" {
		return write(opts.ioStreams.Out)
	}
	return writeFileBy(opts.Output, "-o", write)
}

// writeFileBy creates path (its error names flag) and writes it by write.
func writeFileBy(path, flag string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return usagef("%s: %v", flag, err)
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// gateSites is how many allocation sites (or functions) gate names per
// regression.
const gateSites = 5

// hintSites says, when a regression could be traced to store lines but no
// profiles were given, the command that would name them.
func hintSites(v *gate.Verdict) {
	var stores, scs []string
	sim := ""
	for _, f := range v.Findings {
		if f.Status == gate.Regressed && gate.HasSites(f.Unit) && f.Store != "" {
			stores, scs = append(stores, f.Store), append(scs, f.Scenario)
			if results.IsSimulated(f.Unit) {
				sim = " --simulate"
			}
		}
	}
	if len(stores) > 0 {
		sel := "--stores " + strings.Join(slices.Compact(slices.Sorted(slices.Values(stores))), ",") +
			" --scenarios " + strings.Join(slices.Compact(slices.Sorted(slices.Values(scs))), ",")
		v.Problems = append(v.Problems, gate.Problem{Kind: gate.NoSites, Message: "no profiles given, so no line is named: in the store's git repository, certbench ab BASE_REF" +
			sim + " " + sel + " measures both sides and names the lines that grew (or give --base-profiles and --head-profiles: certbench profile --all" +
			sim + " " + sel + " --out DIR with each side's binary)"})
	}
}

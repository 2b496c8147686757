package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/certbench/certbench/internal/blame"
	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// gateFormats are the output formats of gate.
var gateFormats = []string{"text", "markdown", "json"}

// GateOptions are the options of certbench gate.
type GateOptions struct {
	IO IO
	// Base and Head are the result files gated.
	Base, Head string
	// Policy are the policy flags, applied over the policy file (see
	// gate.ResolvePolicy).
	Policy gate.PolicyFlags
	// Format is the report's format: text, markdown or json.
	Format string
	// Output is the file the report goes to (-o); "" or "-" is IO.Out.
	Output string
	// Summary, when set, is a file that also gets the Markdown report.
	Summary string
	// BaseProfiles and HeadProfiles are folders of heap profiles (from
	// certbench profile --all) to name grown allocation sites from, and of
	// callgrind files (certbench run --instrument simulate --callgrind-dir,
	// or profile --instrument simulate) to name the functions whose
	// instructions grew; both or neither.
	BaseProfiles, HeadProfiles string
	// Sites is the number of sites to name per regression; SitesGiven
	// reports --sites given (an error without profiles).
	Sites      int
	SitesGiven bool
	// AllowDifferentCerts gates files measured on different certificates
	// with a warning instead of refusing them, whatever the policy says
	// (the flag --allow-different-certs sets the policy's setting).
	AllowDifferentCerts bool
	// AllowDifferentScenarios gates a scenario defined differently in
	// base and head with a warning instead of refusing the files,
	// whatever the policy says (--allow-different-scenarios sets the
	// policy's setting).
	AllowDifferentScenarios bool
}

func newGateCmd(runF func(context.Context, *GateOptions) error) *cobra.Command {
	g := &gateCmd{opts: &GateOptions{}}
	cmd := &cobra.Command{
		Use:     "gate BASE.txt HEAD.txt | gate --baseline BASE.txt HEAD.txt",
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
	opts     *GateOptions
	baseline string // --baseline: the base file, with HEAD the only argument
	config   string // --config: the policy file
}

// addFlags defines gate's flags on f.
func (g *gateCmd) addFlags(f *pflag.FlagSet) {
	f.StringVar(&g.baseline, "baseline", "", "base result `file` (then the only argument is HEAD)")
	g.addPolicyFlags(f)
	g.addOutputFlags(f)
}

// addPolicyFlags defines the policy's settings: each flag is named after
// its policy file key (gate.FlagName) and set into opts.Policy.Set, which
// starts from the defaults with no thresholds.
func (g *gateCmd) addPolicyFlags(f *pflag.FlagSet) {
	set := &g.opts.Policy.Set
	*set = gate.DefaultPolicy()
	set.Max = nil
	f.Var(&set.Max, "max", "a threshold, `UNIT=THRESHOLD` with THRESHOLD +N% | +N<amount> (+2ms, +1KiB, +1allocs, +1goroutines) | off; once per unit (e.g. --max allocs/op=+0% --max sec/op=+10%)")
	f.Float64Var(&set.Alpha, "alpha", set.Alpha, "significance `level` per metric, in (0, 1)")
	f.IntVar(&set.MinSamples, "min-samples", set.MinSamples, "fewest samples per side (`n`) for a statistical comparison (at least 4 at alpha 0.05)")
	f.StringVar((*string)(&set.Correction), "correction", string(set.Correction), "multiple-comparison correction within a metric: `holm|none`")
	f.StringVar((*string)(&set.Test), "test", string(set.Test), "test of samples that vary: `auto|paired|unpaired` (paired: signed-rank test of the rounds of certbench run --round)")
	f.BoolVar(&set.AllowMissing, "allow-missing", false, "benchmarks or metrics missing in HEAD only warn")
	f.BoolVar(&set.Strict, "strict", false, "a machine or Go version mismatch between the files fails")
	f.StringVar(&g.config, "config", "", "policy `file` (\"gate\" section; default ./certbench.yaml if there is one; '' for the built-in defaults)")
	f.BoolVar(&g.opts.Policy.NoConfig, "no-config", false, "use the built-in policy even if ./certbench.yaml exists")
	f.BoolVar(&set.AllowDifferentScenarios, "allow-different-scenarios", false, "gate a scenario defined differently in base and head (its scenario-hash lines differ: a scenario file or the catalogue changed) with a warning instead of refusing the files")
	f.BoolVar(&set.AllowDifferentCerts, "allow-different-certs", false, "gate files measured on different certificates (certs-count or certs-fingerprint differ, see run --certs) with a warning instead of refusing them")
}

// addOutputFlags defines the report's format and destinations and the
// profiles that name grown sites.
func (g *gateCmd) addOutputFlags(f *pflag.FlagSet) {
	f.StringVar(&g.opts.Format, "format", "text", formatUsage("report format", gateFormats))
	f.StringVarP(&g.opts.Output, "output", "o", "", "write the report to this `file` instead of stdout")
	f.StringVar(&g.opts.Summary, "summary", "", "also write the Markdown report to this `file` (e.g. $GITHUB_STEP_SUMMARY)")
	f.StringVar(&g.opts.BaseProfiles, "base-profiles", "", "heap profiles and callgrind files of BASE (certbench profile --all output, run --instrument simulate --callgrind-dir: a `dir`)")
	f.StringVar(&g.opts.HeadProfiles, "head-profiles", "", "heap profiles and callgrind files of HEAD (`dir`)")
	f.IntVar(&g.opts.Sites, "sites", 5, "`n` allocation sites (or functions, for instructions) to name per regression (with --base-profiles and --head-profiles)")
}

// complete checks the flags and arguments and fills opts from them.
func (g *gateCmd) complete(cmd *cobra.Command, args []string) error {
	fs := cmd.Flags()
	for _, name := range []string{"baseline", "summary", "output", "base-profiles", "head-profiles"} {
		if fs.Changed(name) && fs.Lookup(name).Value.String() == "" {
			return usagef("--%s: empty file name", name)
		}
	}
	if err := g.files(args); err != nil {
		return err
	}
	g.policyGiven(fs)
	g.opts.SitesGiven = fs.Changed("sites")
	g.opts.IO = ioOf(cmd)
	return nil
}

// files sets Base and Head from the arguments and --baseline.
func (g *gateCmd) files(args []string) error {
	opts := g.opts
	switch {
	case g.baseline != "" && len(args) == 1:
		opts.Base, opts.Head = g.baseline, args[0]
	case g.baseline != "":
		return usagef("with --baseline, give exactly one HEAD file (got %d arguments)", len(args))
	case len(args) == 2:
		opts.Base, opts.Head = args[0], args[1]
	default:
		return usagef("gate needs BASE.txt and HEAD.txt (or --baseline BASE.txt HEAD.txt); got %d arguments", len(args))
	}
	return nil
}

// policyGiven tells opts.Policy which policy file to read and which of
// its settings the flags gave, so that those override the file.
func (g *gateCmd) policyGiven(fs *pflag.FlagSet) {
	p := &g.opts.Policy
	p.Config, p.Given = g.config, nil
	if fs.Changed("config") && g.config == "" {
		p.NoConfig = true
	}
	fs.Visit(func(f *pflag.Flag) {
		if key := strings.ReplaceAll(f.Name, "-", "_"); gate.IsSetting(key) {
			p.Given = append(p.Given, key)
		}
	})
}

// gateLong is gate's help text.
const gateLong = `gate compares two result files (from certbench run, one or more samples per
benchmark, ideally interleaved runs of a base and a head binary on one machine)
and exits 1 if any metric of any benchmark regressed: a change that is both
statistically significant and beyond its threshold.

Policy: --config FILE reads the thresholds (and per-scenario overrides) from
FILE's "gate" section; without --config, ./certbench.yaml is read if it exists;
--no-config (or --config '') uses the built-in defaults. The report's policy
line says which was used. Flags override the file's top-level values.

Thresholds (--max UNIT=THRESHOLD, repeatable, once per unit): +N% relative to
the base, an absolute amount with its unit (+2ms, +500us, +1KiB, +1allocs,
+1goroutines, +1000instructions, +500cycles), +0, or off. A bare number such
as sec/op=10 is an error: it would be ten seconds, not ten percent. Built-in
defaults:
  allocs/op +0%, B/op +2%, sec/op +10%, retained-B +2% (retained-B/cert follows
  it unless set), goroutines +0, instructions/op +0.25%, est-cycles/op +1%;
  cpu-sec/op (process CPU time per op) only when the policy sets it.

Decisions, per benchmark (scenario × store) and metric:
  - B/op, allocs/op and goroutines whose samples are all identical on each side
    (fixed op counts make them deterministic) are compared exactly: any change
    beyond the threshold is a regression, no test needed (>= 2 samples a side).
  - Otherwise a test decides, chosen by --test (or the policy's "test"):
    paired: samples of BASE and HEAD with the same "# round: N" comment line
    (certbench run --round N, as scripts/certbench-ci.sh writes) are
    paired, and a Wilcoxon signed-rank test of the per-round log ratios
    head/base gives the p-value (exact up to 50 pairs; zero differences
    dropped, ties midranked); the change is the Hodges-Lehmann estimate of
    the ratio, with a 95% confidence interval. Machine drift between rounds
    cancels within a pair. Benchmarks whose rounds do not pair one-to-one
    fall back to the U test, with a warning. unpaired: the medians are
    compared with a Mann-Whitney U test. auto (default): paired when the
    rounds pair and enough pairs differ to reach significance, else
    unpaired. p-values are Holm-corrected within each metric (--correction
    none to test each at --alpha). A regression is p < alpha and beyond the
    threshold. The report names the test of each finding. Fewer than
    --min-samples (4) samples on a side fails, and so do sample sizes at which
    the corrected test could never reach significance (4 a side with two or
    more benchmarks; use 6): the gate never passes for lack of data.
  - instructions/op and est-cycles/op (certbench run --instrument simulate:
    counted on a simulated CPU, they repeat to within a few hundredths of a
    percent) are near-exact: identical samples are compared exactly; else the
    medians against the threshold, with a U test at --alpha, not corrected,
    asking only that the two sides separate (at least --min-samples a side).
  - Files measured by different instruments (wall clock, simulated CPU: the
    "instrument" configuration line) are refused (exit 2).
  - A benchmark or metric of BASE missing in HEAD fails unless --allow-missing;
    one only in HEAD is listed, not gated.
  - Different goos, goarch, cpu, go or gomaxprocs between the files is a
    warning (a failure with --strict).

With --base-profiles and --head-profiles (directories written by
"certbench profile --all" with each binary), the allocation sites that grew are
named for each allocs/op or B/op regression; for each instructions/op
regression, the store's functions whose instructions grew (each with the
library code it calls), from the callgrind files in the same directories
("certbench run --instrument simulate --callgrind-dir", or "certbench profile
--instrument simulate").

Output: the report goes to stdout, or to the file -o names; --format text
(logs), markdown (PR comment, $GITHUB_STEP_SUMMARY) or json; --summary FILE
also writes the markdown to FILE.

Exit codes: 0 pass (warnings allowed), 1 the gate failed (regression or a
failed check), 2 bad usage or input (unreadable or malformed file, bad policy
file or flag value, unknown unit, files with no benchmark in common).`

// gateExample is gate's usage examples.
const gateExample = `  certbench gate base.txt head.txt
  certbench gate --no-config base.txt head.txt
  certbench gate --baseline results/reference.txt head.txt --max sec/op=+15% --max B/op=+1KiB
  certbench gate --config certbench.yaml --format markdown base.txt head.txt
  certbench gate --test unpaired base.txt head.txt
  certbench gate --base-profiles base-profiles --head-profiles head-profiles base.txt head.txt`

// runGate is options -> policy and results -> gate.Evaluate -> report.
func runGate(_ context.Context, opts *GateOptions) error {
	if err := opts.check(); err != nil {
		return err
	}
	policy, err := gate.ResolvePolicy(opts.Policy)
	if err != nil {
		return usageError(err)
	}
	policy.AllowDifferentCerts = policy.AllowDifferentCerts || opts.AllowDifferentCerts
	policy.AllowDifferentScenarios = policy.AllowDifferentScenarios || opts.AllowDifferentScenarios
	defer forAnalysis()()
	base, head, err := loadGateFiles(opts)
	if err != nil {
		return err
	}
	v, err := gate.Evaluate(base, head, policy)
	if err != nil {
		return usageError(err)
	}
	if opts.BaseProfiles != "" {
		v.AddSites(blame.Folders{Base: opts.BaseProfiles, Head: opts.HeadProfiles}, opts.Sites)
	}
	if err := writeGateReports(v, opts); err != nil {
		return err
	}
	if !v.Passed() {
		return &exitError{code: ExitRegression, err: errSilent}
	}
	return nil
}

// check rejects option values that would do nothing or undo the run: a
// bad format, half the profiles, --sites without profiles or below 1,
// and outputs that would overwrite an input or each other.
func (o *GateOptions) check() error {
	if err := checkFormat(o.Format, gateFormats); err != nil {
		return err
	}
	profiles := o.BaseProfiles != ""
	if profiles != (o.HeadProfiles != "") {
		return usagef("--base-profiles and --head-profiles go together")
	}
	if o.SitesGiven {
		switch {
		case o.Sites < 1:
			return usagef("--sites %d: want at least 1", o.Sites)
		case !profiles:
			return usagef("--sites: names allocation sites only with --base-profiles and --head-profiles")
		}
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
		for _, in := range []string{o.Base, o.Head} {
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

// loadGateFiles reads BASE and HEAD, printing their warnings, and checks
// that the profile folders, if any, are folders.
func loadGateFiles(opts *GateOptions) (base, head *results.Set, err error) {
	base, err = results.Load(opts.Base)
	if err != nil {
		return nil, nil, usageError(err)
	}
	head, err = results.Load(opts.Head)
	if err != nil {
		return nil, nil, usageError(err)
	}
	printWarnings(opts.IO.ErrOut, base)
	printWarnings(opts.IO.ErrOut, head)
	if opts.BaseProfiles != "" {
		for _, d := range []string{opts.BaseProfiles, opts.HeadProfiles} {
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
				return nil, nil, usagef("profile directory %s: not a readable directory", d)
			}
		}
	}
	return base, head, nil
}

// writeGateReports writes the verdict to --summary (markdown) and to -o
// or stdout in the chosen format.
func writeGateReports(v *gate.Verdict, opts *GateOptions) error {
	if opts.Summary != "" {
		f, err := os.Create(opts.Summary)
		if err != nil {
			return usagef("--summary: %v", err)
		}
		err = table.WriteMarkdown(f, v.Page())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", opts.Summary, err)
		}
	}
	if opts.Output == "" || opts.Output == "-" {
		return writeAs(opts.Format, opts.IO.Out, v.Page(), v.JSON())
	}
	file, err := os.Create(opts.Output)
	if err != nil {
		return usagef("-o: %v", err)
	}
	if err := writeAs(opts.Format, file, v.Page(), v.JSON()); err != nil {
		file.Close()
		return err
	}
	if err := file.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", opts.Output, err)
	}
	return nil
}

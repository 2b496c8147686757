package cli

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/certbench/certbench/compare"
	"github.com/certbench/certbench/gate"
	"github.com/certbench/certbench/profile"
	"github.com/spf13/cobra"
)

// gateFormats are the output formats of gate.
var gateFormats = []string{"text", "markdown", "json"}

func newGateCmd() *cobra.Command {
	var (
		baseline, config, format, output, summary string
		noConfig                                  bool
		baseProfiles, headProfiles                string
		max                                       []string
		alpha                                     float64
		minSamples, sites                         int
		correction                                string
		allowMissing, strict                      bool
	)
	cmd := &cobra.Command{
		Use:   "gate BASE.txt HEAD.txt | gate --baseline BASE.txt HEAD.txt",
		Short: "Fail (exit 1) when HEAD's results regress on BASE's beyond the policy's thresholds",
		Long: `gate compares two result files (from certbench run, one or more samples per
benchmark, ideally interleaved runs of a base and a head binary on one machine)
and exits 1 if any metric of any benchmark regressed: a change that is both
statistically significant and beyond its threshold.

Policy: --config FILE reads the thresholds (and per-scenario overrides) from
FILE's "gate" section; without --config, ./certbench.yaml is read if it exists;
--no-config (or --config '') uses the built-in defaults. The report's policy
line says which was used. Flags override the file's top-level values.

Thresholds (--max UNIT=THRESHOLD, repeatable, once per unit): +N% relative to
the base, an absolute amount with its unit (+2ms, +500us, +1KiB, +1allocs,
+1goroutines), +0, or off. A bare number such as sec/op=10 is an error: it
would be ten seconds, not ten percent. Built-in defaults:
  allocs/op +0%, B/op +2%, sec/op +10%, retained-B +2% (retained-B/cert follows
  it unless set), goroutines +0.

Decisions, per benchmark (scenario × store) and metric:
  - B/op, allocs/op and goroutines whose samples are all identical on each side
    (fixed op counts make them deterministic) are compared exactly: any change
    beyond the threshold is a regression, no test needed (>= 2 samples a side).
  - Otherwise the medians are compared with a Mann-Whitney U test; p-values are
    Holm-corrected within each metric (--correction none to test each at
    --alpha). A regression is p < alpha and beyond the threshold. Fewer than
    --min-samples (4) samples on a side fails, and so do sample sizes at which
    the corrected test could never reach significance (4 a side with two or
    more benchmarks; use 6): the gate never passes for lack of data.
  - A benchmark or metric of BASE missing in HEAD fails unless --allow-missing;
    one only in HEAD is listed, not gated.
  - Different goos, goarch, cpu, go or gomaxprocs between the files is a
    warning (a failure with --strict).

With --base-profiles and --head-profiles (directories written by
"certbench profile --all" with each binary), the allocation sites that grew are
named for each allocs/op or B/op regression.

Output: --format text (logs), markdown (PR comment, $GITHUB_STEP_SUMMARY) or
json; --summary FILE also writes the markdown to FILE.

Exit codes: 0 pass (warnings allowed), 1 the gate failed (regression or a
failed check), 2 bad usage or input (unreadable or malformed file, bad policy
file or flag value, unknown unit, files with no benchmark in common).`,
		Example: `  certbench gate base.txt head.txt
  certbench gate --no-config base.txt head.txt
  certbench gate --baseline results/reference.txt head.txt --max sec/op=+15% --max B/op=+1KiB
  certbench gate --config certbench.yaml --format markdown base.txt head.txt
  certbench gate --base-profiles base-profiles --head-profiles head-profiles base.txt head.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkEmptyNames(cmd); err != nil {
				return err
			}
			var basePath, headPath string
			switch {
			case baseline != "" && len(args) == 1:
				basePath, headPath = baseline, args[0]
			case baseline != "":
				return usagef("with --baseline, give exactly one HEAD file (got %d arguments)", len(args))
			case len(args) == 2:
				basePath, headPath = args[0], args[1]
			default:
				return usagef("gate needs BASE.txt and HEAD.txt (or --baseline BASE.txt HEAD.txt); got %d arguments", len(args))
			}
			if err := checkFormat(format, gateFormats); err != nil {
				return err
			}
			if (baseProfiles == "") != (headProfiles == "") {
				return usagef("--base-profiles and --head-profiles go together")
			}

			fs := cmd.Flags()
			if err := checkGateFlags(cmd, basePath, headPath, output, summary, sites, baseProfiles != ""); err != nil {
				return err
			}
			policy, err := gatePolicy(cmd, config, noConfig)
			if err != nil {
				return err
			}
			seen := map[string]string{}
			for _, m := range max {
				unit, th, err := gate.ParseMax(m)
				if err != nil {
					return usageError(err)
				}
				if first, ok := seen[unit]; ok {
					return usagef("--max %q: %s is already set by --max %q", m, unit, first)
				}
				seen[unit] = m
				if err := policy.SetMax(unit, th); err != nil {
					return usagef("--max %q: %v", m, err)
				}
			}
			if fs.Changed("alpha") {
				if !(alpha > 0 && alpha < 1) {
					return usagef("--alpha %v: want a significance level between 0 and 1 (exclusive), such as %v", alpha, gate.DefaultAlpha)
				}
				policy.Alpha = alpha
			}
			if fs.Changed("min-samples") {
				if least := gate.MinSamplesFor(policy.Alpha); minSamples < least {
					return usagef("--min-samples %d: the U test cannot reach p < %g with fewer than %d samples a side; want at least %d", minSamples, policy.Alpha, least, least)
				}
				policy.MinSamples = minSamples
			}
			if fs.Changed("correction") {
				c := gate.Correction(correction)
				if c != gate.Holm && c != gate.NoCorrection {
					return usagef("--correction %q: want %s or %s", correction, gate.Holm, gate.NoCorrection)
				}
				policy.Correction = c
			}
			if fs.Changed("allow-missing") {
				policy.AllowMissing = allowMissing
			}
			if fs.Changed("strict") {
				policy.Strict = strict
			}
			if !gatesAnything(policy) {
				return usagef("%s: every metric is off: the gate would pass anything (set a threshold with --max UNIT=+N%%)", policy.Source)
			}
			var changed []string
			for _, name := range []string{"max", "alpha", "min-samples", "correction", "allow-missing", "strict"} {
				if fs.Changed(name) {
					changed = append(changed, "--"+name)
				}
			}
			if len(changed) > 0 {
				policy.Source += " with " + strings.Join(changed, ", ")
			}

			base, err := compare.Load(basePath)
			if err != nil {
				return usageError(err)
			}
			head, err := compare.Load(headPath)
			if err != nil {
				return usageError(err)
			}
			printWarnings(cmd.ErrOrStderr(), base)
			printWarnings(cmd.ErrOrStderr(), head)
			v, err := gate.Evaluate(base, head, policy)
			if err != nil {
				return usageError(err)
			}
			if baseProfiles != "" {
				for _, d := range []string{baseProfiles, headProfiles} {
					if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
						return usagef("profile directory %s: not a readable directory", d)
					}
				}
				v.AddSites(profileSites{profile.Dirs{Base: baseProfiles, Head: headProfiles}}, sites)
			}

			if summary != "" {
				f, err := os.Create(summary)
				if err != nil {
					return usagef("--summary: %v", err)
				}
				err = v.WriteMarkdown(f)
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return fmt.Errorf("writing %s: %w", summary, err)
				}
			}
			out := cmd.OutOrStdout()
			var file *os.File
			if output != "" && output != "-" {
				file, err = os.Create(output)
				if err != nil {
					return usagef("-o: %v", err)
				}
				out = file
			}
			if err := render(v, format, out); err != nil {
				return err
			}
			if file != nil {
				if err := file.Close(); err != nil {
					return fmt.Errorf("writing %s: %w", output, err)
				}
			}
			if !v.Passed() {
				return &exitError{code: ExitRegression, err: errSilent}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&baseline, "baseline", "", "base result file (then the only argument is HEAD)")
	f.StringArrayVar(&max, "max", nil, "threshold UNIT=+N% | UNIT=+N<amount> (+2ms, +1KiB, +1allocs, +1goroutines) | UNIT=off, once per unit (e.g. --max allocs/op=+0% --max sec/op=+10%)")
	f.Float64Var(&alpha, "alpha", gate.DefaultAlpha, "significance level per metric, in (0, 1)")
	f.IntVar(&minSamples, "min-samples", gate.DefaultMinSamples, "fewest samples per side for a statistical comparison (at least 4 at alpha 0.05)")
	f.StringVar(&correction, "correction", string(gate.Holm), "multiple-comparison correction within a metric: holm or none")
	f.StringVar(&config, "config", "", "policy file (\"gate\" section; default ./certbench.yaml if there is one; '' for the built-in defaults)")
	f.BoolVar(&noConfig, "no-config", false, "use the built-in policy even if ./certbench.yaml exists")
	f.BoolVar(&allowMissing, "allow-missing", false, "benchmarks or metrics missing in HEAD only warn")
	f.BoolVar(&strict, "strict", false, "a machine or Go version mismatch between the files fails")
	f.StringVar(&format, "format", "text", "output format: "+strings.Join(gateFormats, ", "))
	f.StringVarP(&output, "output", "o", "", "write the report to this file instead of stdout")
	f.StringVar(&summary, "summary", "", "also write the Markdown report to this file (e.g. $GITHUB_STEP_SUMMARY)")
	f.StringVar(&baseProfiles, "base-profiles", "", "heap profiles of BASE (certbench profile --all output directory)")
	f.StringVar(&headProfiles, "head-profiles", "", "heap profiles of HEAD")
	f.IntVar(&sites, "sites", 5, "allocation sites to name per regression (with --base-profiles and --head-profiles)")
	return cmd
}

// defaultConfig is the policy file gate reads from the working directory
// when neither --config nor --no-config is given.
const defaultConfig = "certbench.yaml"

// gatePolicy returns the policy gate starts from, before flags: the file
// of --config, else ./certbench.yaml if it exists, else the built-in
// defaults (also with --no-config or --config ”). Its Source says which.
func gatePolicy(cmd *cobra.Command, config string, noConfig bool) (gate.Policy, error) {
	fs := cmd.Flags()
	defaults := gate.DefaultPolicy()
	defaults.Source = "built-in defaults"
	switch {
	case noConfig && fs.Changed("config"):
		return gate.Policy{}, usagef("--config and --no-config: give one or the other")
	case noConfig:
		defaults.Source += " (--no-config)"
		return defaults, nil
	case fs.Changed("config") && config == "":
		defaults.Source += " (--config '')"
		return defaults, nil
	case fs.Changed("config"):
		p, err := gate.LoadConfig(config)
		if err != nil {
			return gate.Policy{}, usagef("--config: %v", err)
		}
		p.Source = config + " (--config)"
		return p, nil
	}
	if _, err := os.Stat(defaultConfig); errors.Is(err, iofs.ErrNotExist) {
		return defaults, nil
	}
	p, err := gate.LoadConfig(defaultConfig)
	if err != nil {
		return gate.Policy{}, usagef("%v (%s found in the working directory; --no-config to use the built-in defaults)", err, defaultConfig)
	}
	p.Source = defaultConfig + " (found in the working directory)"
	return p, nil
}

// checkEmptyNames rejects file flags given an empty name, which would
// otherwise mean the flag was not given.
func checkEmptyNames(cmd *cobra.Command) error {
	fs := cmd.Flags()
	for _, name := range []string{"baseline", "summary", "output", "base-profiles", "head-profiles"} {
		if fs.Changed(name) && fs.Lookup(name).Value.String() == "" {
			return usagef("--%s: empty file name", name)
		}
	}
	return nil
}

// checkGateFlags rejects flag values that would do nothing or undo the
// run: --sites without profiles or below 1, and outputs that would
// overwrite an input or each other.
func checkGateFlags(cmd *cobra.Command, base, head, output, summary string, sites int, profiles bool) error {
	fs := cmd.Flags()
	if fs.Changed("sites") {
		switch {
		case sites < 1:
			return usagef("--sites %d: want at least 1", sites)
		case !profiles:
			return usagef("--sites: names allocation sites only with --base-profiles and --head-profiles")
		}
	}
	same := func(a, b string) bool {
		x, errx := filepath.Abs(a)
		y, erry := filepath.Abs(b)
		return errx == nil && erry == nil && x == y
	}
	outs := [][2]string{{"--summary", summary}}
	if output != "-" {
		outs = append(outs, [2]string{"-o", output})
	}
	for _, o := range outs {
		if o[1] == "" {
			continue
		}
		for _, in := range []string{base, head} {
			if same(o[1], in) {
				return usagef("%s %s: would overwrite the input %s", o[0], o[1], in)
			}
		}
	}
	if output != "" && output != "-" && same(output, summary) {
		return usagef("-o and --summary name the same file %s: one report would overwrite the other", output)
	}
	return nil
}

// gatesAnything reports whether p has a threshold that is not off.
func gatesAnything(p gate.Policy) bool {
	for _, th := range p.Max {
		if !th.Off {
			return true
		}
	}
	for _, o := range p.Overrides {
		for _, th := range o.Max {
			if !th.Off {
				return true
			}
		}
	}
	return false
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/scenarios"
	"github.com/google/pprof/profile"
	"github.com/spf13/cobra"
)

// ProfileOutput are the output options every profile command shares.
type profileOutput struct {
	Top    int    // sites per table (at least 1)
	Format string // text, markdown or json
}

func (o *profileOutput) bind(cmd *cobra.Command) {
	cmd.Flags().IntVar(&o.Top, "top", 10, "`n` sites per table")
	cmd.Flags().StringVar(&o.Format, "format", "text", "output format: `text|markdown|json`")
}

func (o *profileOutput) check() (string, error) {
	if o.Top < 1 {
		return "", usagef("--top %d: want at least 1", o.Top)
	}
	return strings.ToLower(o.Format), checkFormat(strings.ToLower(o.Format), gateFormats)
}

// ProfileOptions are the options of certbench profile.
type profileOptions struct {
	ioStreams ioStreams
	// Stores and Scenarios name what to profile, every combination (with
	// All, they narrow every registered store and default scenario).
	Stores, Scenarios []string
	All               bool   // and write an index into Out
	Out               string // --out
	Ops               int    // overrides each scenario's op count when positive
	Quiet             bool   // no progress lines (All)
	certsFlags
	scenarioFileFlags
	profileOutput
	simulateFlags // --simulate profiles instructions
}

func newProfileCmd(runF func(context.Context, *profileOptions) error) *cobra.Command {
	opts := &profileOptions{}
	cmd := &cobra.Command{
		Use:   "profile --stores S --scenarios X [--out DIR] | profile --all [--out DIR]",
		Short: "Capture heap profiles of a store running a scenario and print the top allocation sites",
		Long: `profile runs each scenario on each store once more with every allocation
recorded (timed runs never are) and writes the heap profile
DIR/<scenario>.<store>.pb.gz for go tool pprof: alloc_* for what the measured
ops allocated, inuse_* for what the store retains, stacks from the store, the
op count as a comment. It prints the top sites per op, flat and cumulative.
--all profiles every registered store on every default scenario and writes
DIR/index.md and DIR/index.json. --simulate profiles the simulated CPU
instead: DIR/<scenario>.<store>.sim.pb.gz, instructions per op with stacks.`,
		Example: `  certbench profile --stores naive --scenarios rotate-10-of-100 --top 5
  certbench profile --all --out profiles
  certbench profile diff profiles/rotate-10-of-100.naive.pb.gz profiles/rotate-10-of-100.optimized.pb.gz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.ioStreams = ioOf(cmd)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProfile(cmd.Context(), opts)
		},
	}
	opts.profileOutput.bind(cmd)
	fs := cmd.Flags()
	storesFlag(cmd, &opts.Stores, nil, "stores to profile, comma-separated `names` (see certbench list); with --all, only these")
	fs.StringSliceVar(&opts.Scenarios, "scenarios", nil, "scenarios to run, comma-separated `names` or scenario files (.yaml) (see certbench list); with --all, only these")
	completeNames(cmd, "scenarios", func() []string { return scenarios.Names(false) })
	fs.BoolVar(&opts.All, "all", false, "profile every registered store on every default scenario, and write an index")
	fs.StringVar(&opts.Out, "out", "profiles", "write the profiles (and the index of --all) into this `dir`")
	fs.IntVar(&opts.Ops, "ops", 0, "`n` ops to profile, overriding the scenario's fixed count (0: the scenario's)")
	fs.BoolVarP(&opts.Quiet, "quiet", "q", false, "no progress on stderr (--all)")
	opts.certsFlags.bind(cmd)
	opts.simulateFlags.bind(cmd)
	cmd.AddCommand(newProfileDiffCmd(nil), newProfileTopCmd(nil))
	return cmd
}

// profileJob is one capture: a store running a scenario.
type profileJob struct {
	store    certstore.Info
	scenario scenarios.Scenario
}

func (j profileJob) fileName() string { return cost.FileName(j.scenario.Name, j.store.Name) }

// profileJobs returns one job per scenario and store, scenario by scenario.
func profileJobs(stores []certstore.Info, scs []scenarios.Scenario) []profileJob {
	jobs := make([]profileJob, 0, len(stores)*len(scs))
	for _, sc := range scs {
		for _, info := range stores {
			jobs = append(jobs, profileJob{store: info, scenario: sc})
		}
	}
	return jobs
}

// jobs returns the captures the options name: every registered store on
// every default scenario, narrowed by --stores and --scenarios.
func (o *profileOptions) jobs() ([]profileJob, error) {
	stores, scs := trimAll(o.Stores), o.splitFiles(trimAll(o.Scenarios))
	if !o.All && (len(stores) == 0 || (len(scs) == 0 && len(o.scenarioFileFlags.Files) == 0)) {
		return nil, usagef("name stores and scenarios (--stores S --scenarios X), or use --all (stores: %s; scenarios: %s)",
			strings.Join(storeNames(), ", "), strings.Join(scenarios.Names(false), ", "))
	}
	infos := certstore.Registered()
	if len(stores) > 0 {
		var err error
		if infos, err = lookupStores("--stores", stores); err != nil {
			return nil, err
		}
	}
	if len(infos) == 0 {
		return nil, usagef("no store is registered")
	}
	scs2 := scenarios.Defaults()
	var err error
	if o.certsFlags.Path != "" {
		var progress io.Writer
		if !o.Quiet {
			progress = o.ioStreams.ErrOut
		}
		if scs2, err = o.certsFlags.scenarios(scs, progress); err != nil {
			return nil, err
		}
	} else if len(scs) > 0 || len(o.scenarioFileFlags.Files) > 0 {
		scs2 = nil
		if len(scs) > 0 {
			if scs2, err = scenarios.ByName(scs...); err != nil {
				return nil, usagef("--scenarios: %v%s", err, sweepHint(scs))
			}
		}
	}
	all, err := o.scenarioFileFlags.withFiles(scs2, &o.certsFlags)
	if err != nil {
		return nil, err
	}
	return profileJobs(infos, all), nil
}

// captureOptions say where captureProfiles saves profiles and what it
// summarizes.
type captureOptions struct {
	dir      string    // created if missing
	ops      int       // overrides each scenario's op count when positive
	top      int       // sites per table of each summary
	progress io.Writer // a line per job, when set
	errOut   io.Writer // a line per store fault
}

// captureProfiles captures and saves each job's heap profile in turn and
// returns their summaries. A store fault is reported as run reports it
// and the other jobs go on, unless the store hangs; the error then has
// ExitStoreFailed. Any other error, or ctx, stops it.
func captureProfiles(ctx context.Context, jobs []profileJob, opts captureOptions) ([]*cost.Summary, error) {
	if err := os.MkdirAll(opts.dir, 0o755); err != nil {
		return nil, err
	}
	var sums []*cost.Summary
	faults := &storeFaults{errOut: opts.errOut, base: filepath.Join(opts.dir, "profile")}
	for _, j := range jobs {
		if err := ctx.Err(); err != nil {
			return sums, err
		}
		if opts.progress != nil {
			fmt.Fprintf(opts.progress, "profiling %s on %s\n", j.scenario.Name, j.store.Name)
		}
		p, err := bench.HeapProfile(j.store.New, j.store.Name, j.scenario, opts.ops)
		var f *bench.StoreFault
		if errors.As(err, &f) {
			if ferr := faults.profileFault(f); ferr != nil {
				return sums, ferr
			}
			if f.Stops() {
				break
			}
			continue
		}
		if err != nil {
			return sums, err
		}
		path := filepath.Join(opts.dir, j.fileName())
		if err := cost.Save(p, path); err != nil {
			return sums, err
		}
		sum, err := cost.Summarize(p, opts.top)
		if err != nil {
			return sums, err
		}
		sum.File = path
		sums = append(sums, sum)
	}
	return sums, faults.err(plural(len(sums), "profile"))
}

// runProfile captures the profiles and prints their summaries (with
// All, the index).
func runProfile(ctx context.Context, opts *profileOptions) error {
	format, err := opts.check()
	if err != nil {
		return err
	}
	if opts.Ops < 0 {
		return usagef("--ops %d: must not be negative", opts.Ops)
	}
	simulate, err := opts.simulateFlags.simulate()
	if err != nil {
		return err
	}
	jobs, err := opts.jobs()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return usagef("--out: %v", err)
	}
	var sums []*cost.Summary
	if simulate {
		if sums, err = profileSimulated(ctx, opts, jobs); err != nil || sums == nil {
			return err // nil: the child under callgrind wrote the output
		}
	} else {
		copts := captureOptions{dir: opts.Out, ops: opts.Ops, top: opts.Top, errOut: opts.ioStreams.ErrOut}
		if opts.All && !opts.Quiet {
			copts.progress = opts.ioStreams.ErrOut
		}
		sums, err = captureProfiles(ctx, jobs, copts)
		if err != nil && (!storeFailed(err) || len(sums) == 0) {
			return err
		}
	}
	if werr := writeProfiles(opts, format, sums); werr != nil {
		return werr
	}
	return err
}

// writeProfiles prints the summaries (with All, writes and prints the index).
func writeProfiles(opts *profileOptions, format string, sums []*cost.Summary) error {
	if !opts.All {
		return cost.WriteSummaries(opts.ioStreams.Out, format, sums)
	}
	if err := cost.WriteIndexFiles(opts.Out, sums); err != nil {
		return err
	}
	return cost.WriteIndex(opts.ioStreams.Out, format, sums)
}

// loadProfile reads a profile file; a bad one is bad input.
func loadProfile(path string) (*profile.Profile, error) {
	p, err := cost.Load(path)
	if err != nil {
		return nil, usageError(err)
	}
	return p, nil
}

// ProfileDiffOptions are the options of certbench profile diff.
type profileDiffOptions struct {
	ioStreams  ioStreams
	Base, Head string
	// Types are the sample types to compare (none: alloc_space and
	// alloc_objects, or every sample type for other profiles).
	Types  []string
	Output string // a file for the difference as a profile, when set
	Flame  string // a file for the differential flame graphs (.svg, .html), when set
	profileOutput
}

func newProfileDiffCmd(runF func(context.Context, *profileDiffOptions) error) *cobra.Command {
	opts := &profileDiffOptions{}
	cmd := &cobra.Command{
		Use:   "diff BASE.pb.gz HEAD.pb.gz",
		Short: "Show which functions grew and shrank between two profiles, per op",
		Long: `diff compares two profiles (heap profiles, or profiles of the simulated CPU
from certbench profile --simulate or callgrind files) function by
function, each divided by its own op count, and lists the sites that grew and
shrank most by flat value, with the cumulative change. -o FILE also writes head
minus base as a profile, as pprof -diff_base builds it; --flame FILE.svg (or
.html) draws where the cost moved as differential flame graphs.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ioStreams, opts.Base, opts.Head = ioOf(cmd), args[0], args[1]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProfileDiff(cmd.Context(), opts)
		},
	}
	opts.profileOutput.bind(cmd)
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "also write the difference as a profile to this `file` (.pb.gz)")
	cmd.Flags().StringVar(&opts.Flame, "flame", "", "also write differential flame graphs of the compared sample types to this `file` (.svg or .html)")
	cmd.Flags().StringSliceVar(&opts.Types, "type", nil, "sample `types` to compare, comma-separated (default alloc_space,alloc_objects)")
	return cmd
}

// runProfileDiff compares the two profiles.
func runProfileDiff(_ context.Context, opts *profileDiffOptions) error {
	format, err := opts.check()
	if err != nil {
		return err
	}
	flameFormat := strings.TrimPrefix(filepath.Ext(opts.Flame), ".")
	if opts.Flame != "" && flameFormat != "svg" && flameFormat != "html" {
		return usagef("--flame %s: want a .svg or .html file", opts.Flame)
	}
	basePath, headPath := opts.Base, opts.Head
	var ps [2]*profile.Profile
	for i, path := range []string{basePath, headPath} {
		if ps[i], err = loadProfile(path); err != nil {
			return err
		}
	}
	base, head := ps[0], ps[1]
	if err := cost.CheckComparable(base, head); err != nil {
		var ste *cost.SampleTypeError
		if errors.As(err, &ste) {
			return usagef("cannot compare %s with %s: %s has sample types %s but %s has %s",
				headPath, basePath, headPath, strings.Join(ste.Head, ", "), basePath, strings.Join(ste.Base, ", "))
		}
		return usagef("%s, %s: %v", basePath, headPath, err)
	}
	sampleTypes := opts.Types
	if len(sampleTypes) == 0 {
		for _, want := range []string{cost.AllocSpace, cost.AllocObjects} {
			for _, st := range head.SampleType {
				if st.Type == want {
					sampleTypes = append(sampleTypes, want)
				}
			}
		}
		if len(sampleTypes) == 0 {
			for _, st := range head.SampleType {
				sampleTypes = append(sampleTypes, st.Type)
			}
		}
	}
	var cs []*cost.Comparison
	var flames []*cost.Flame
	for _, st := range sampleTypes {
		c, err := cost.Changes(base, head, strings.TrimSpace(st))
		if err != nil {
			return usagef("--type: %s: %v", headPath, err)
		}
		cs = append(cs, c)
		if opts.Flame != "" {
			f, err := cost.NewFlame(base, head, strings.TrimSpace(st))
			if err != nil {
				return err
			}
			flames = append(flames, f)
		}
	}
	if opts.Flame != "" {
		title := fmt.Sprintf("certbench: where the cost moved, %s (base) to %s (head)", filepath.Base(basePath), filepath.Base(headPath))
		if err := writeFileBy(opts.Flame, "--flame", func(w io.Writer) error { return cost.WriteFlames(w, flameFormat, title, flames) }); err != nil {
			return err
		}
	}
	if opts.Output != "" {
		d, err := cost.Diff(base, head)
		if err != nil {
			return err
		}
		if err := cost.Save(d, opts.Output); err != nil {
			return err
		}
	}
	return cost.WriteComparisons(opts.ioStreams.Out, format, cs, opts.Top)
}

// ProfileTopOptions are the options of certbench profile top.
type profileTopOptions struct {
	ioStreams ioStreams
	Files     []string
	profileOutput
}

func newProfileTopCmd(runF func(context.Context, *profileTopOptions) error) *cobra.Command {
	opts := &profileTopOptions{}
	cmd := &cobra.Command{
		Use:   "top FILE.pb.gz ...",
		Short: "Print the top allocation sites of profiles written by certbench profile",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ioStreams, opts.Files = ioOf(cmd), args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runProfileTop(cmd.Context(), opts)
		},
	}
	opts.profileOutput.bind(cmd)
	return cmd
}

// runProfileTop prints the top sites of each profile.
func runProfileTop(_ context.Context, opts *profileTopOptions) error {
	format, err := opts.check()
	if err != nil {
		return err
	}
	var sums []*cost.Summary
	for _, path := range opts.Files {
		p, err := loadProfile(path)
		if err != nil {
			return err
		}
		sum, err := cost.Summarize(p, opts.Top)
		if err != nil {
			return usagef("%s: %v", path, err)
		}
		sum.File = path
		sums = append(sums, sum)
	}
	return cost.WriteSummaries(opts.ioStreams.Out, format, sums)
}

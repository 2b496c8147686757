package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/profile"
	"github.com/certbench/certbench/scenarios"
	pprofile "github.com/google/pprof/profile"
	"github.com/spf13/cobra"
)

// profileOutputs are the flags every profile command shares.
type profileOutputs struct {
	top    int
	format string
}

func (o *profileOutputs) register(cmd *cobra.Command) {
	cmd.Flags().IntVar(&o.top, "top", 10, "number of sites per table")
	cmd.Flags().StringVar(&o.format, "format", "text", "output format: text, markdown or json")
}

func (o *profileOutputs) check() (profile.Format, error) {
	if o.top < 1 {
		return "", usagef("--top %d: want at least 1", o.top)
	}
	f, err := profile.ParseFormat(o.format)
	if err != nil {
		return "", usagef("--format: %v", err)
	}
	return f, nil
}

func newProfileCmd() *cobra.Command {
	var out profileOutputs
	var storeName, scenarioName, dir string
	var all, quiet bool
	var ops int
	cmd := &cobra.Command{
		Use:   "profile --store S --scenario X [-o DIR] | profile --all [-o DIR]",
		Short: "Capture heap profiles of a store running a scenario and print the top allocation sites",
		Long: `profile runs a scenario on a store once more, in a separate pass with every
allocation recorded (runtime.MemProfileRate = 1; timed runs never use it), and
writes DIR/<scenario>.<store>.pb.gz, a heap profile go tool pprof opens:

  alloc_objects, alloc_space   what the measured ops allocated (default view)
  inuse_objects, inuse_space   what the store retains after them

Fixture building, the store's initial configuration and the profiler's own work
are excluded; stacks start at the store. The op count is recorded as a profile
comment (go tool pprof -comments), so figures divide per op.

It prints the top sites per op: flat (allocated by the function itself) and
cumulative (anywhere on the stack), by bytes and by objects, and the largest
retained sites.

--all profiles every registered store on every default scenario into DIR and
writes DIR/index.md and DIR/index.json (files, totals, top sites), for a CI
artifact; --store or --scenario narrow it to one store or one scenario.

  certbench profile --store naive --scenario rotate-10-of-100 --top 5
  certbench profile diff profiles/rotate-10-of-100.naive.pb.gz profiles/rotate-10-of-100.optimized.pb.gz
  go tool pprof -top -sample_index=alloc_space profiles/rotate-10-of-100.naive.pb.gz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			format, err := out.check()
			if err != nil {
				return err
			}
			if ops < 0 {
				return usagef("--ops %d: must not be negative", ops)
			}
			type job struct {
				info certstore.Info
				sc   scenarios.Scenario
			}
			if !all && (storeName == "" || scenarioName == "") {
				return usagef("name a store and a scenario (--store S --scenario X), or use --all (stores: %s; scenarios: %s)",
					strings.Join(storeNames(), ", "), strings.Join(scenarios.Names(false), ", "))
			}
			infos := certstore.Registered()
			if storeName != "" {
				info, err := certstore.LookupFactory(storeName)
				if err != nil {
					return usagef("--store: %v", err)
				}
				infos = []certstore.Info{info}
			}
			if len(infos) == 0 {
				return usagef("no store is registered")
			}
			scs := scenarios.Defaults()
			if scenarioName != "" {
				sc, err := scenarios.ByName(scenarioName)
				if err != nil {
					return usagef("--scenario: %v", err)
				}
				scs = sc
			}
			var jobs []job
			for _, sc := range scs {
				for _, info := range infos {
					jobs = append(jobs, job{info, sc})
				}
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usagef("-o: %v", err)
			}

			var sums []*profile.Summary
			for _, j := range jobs {
				if err := cmd.Context().Err(); err != nil {
					return err
				}
				if all && !quiet {
					fmt.Fprintf(cmd.ErrOrStderr(), "profiling %s on %s\n", j.sc.Name, j.info.Name)
				}
				res, err := profile.Capture(j.info.New, j.info.Name, j.sc, ops)
				if err != nil {
					return err
				}
				path := filepath.Join(dir, profile.FileName(j.sc.Name, j.info.Name))
				if err := profile.Save(res.Profile, path); err != nil {
					return err
				}
				sum, err := profile.Summarize(res.Profile, out.top)
				if err != nil {
					return err
				}
				sum.File = path
				sums = append(sums, sum)
			}
			if !all {
				return profile.WriteSummaries(cmd.OutOrStdout(), format, sums)
			}
			for _, idx := range []struct {
				name   string
				format profile.Format
			}{{"index.md", profile.Markdown}, {"index.json", profile.JSON}} {
				var buf bytes.Buffer
				if err := profile.WriteIndex(&buf, idx.format, sums); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(dir, idx.name), buf.Bytes(), 0o644); err != nil {
					return err
				}
			}
			return profile.WriteIndex(cmd.OutOrStdout(), format, sums)
		},
	}
	out.register(cmd)
	fs := cmd.Flags()
	fs.StringVar(&storeName, "store", "", "store to profile (see certbench list); with --all, only this store")
	fs.StringVar(&scenarioName, "scenario", "", "scenario to run (see certbench list); with --all, only this scenario")
	fs.BoolVar(&all, "all", false, "profile every registered store on every default scenario, and write an index")
	fs.StringVarP(&dir, "output", "o", "profiles", "folder to write the profiles to")
	fs.IntVar(&ops, "ops", 0, "ops to profile, overriding the scenario's fixed count (0: the scenario's)")
	fs.BoolVarP(&quiet, "quiet", "q", false, "no progress on stderr (--all)")
	cmd.AddCommand(newProfileDiffCmd(), newProfileTopCmd())
	return cmd
}

// maxProfileSize is the --max-profile-size flag of the commands that read
// profiles.
type maxProfileSize struct {
	value string
}

func (m *maxProfileSize) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&m.value, "max-profile-size", profile.FormatSize(profile.DefaultMaxSize),
		"largest profile to read, decompressed (bytes, or with KiB, MiB, GiB)")
}

// bytes returns the flag's value in bytes.
func (m *maxProfileSize) bytes() (int64, error) {
	n, err := profile.ParseSize(m.value)
	if err != nil {
		return 0, usagef("--max-profile-size: %v", err)
	}
	return n, nil
}

// loadProfile reads a profile file of at most maxSize bytes decompressed;
// a missing, malformed or too large file is bad input.
func loadProfile(path string, maxSize int64) (*pprofile.Profile, error) {
	p, err := profile.LoadMax(path, maxSize)
	if err != nil {
		var se *profile.SizeError
		if errors.As(err, &se) {
			return nil, usagef("%v; raise the limit with --max-profile-size", err)
		}
		return nil, usageError(err)
	}
	return p, nil
}

func newProfileDiffCmd() *cobra.Command {
	var out profileOutputs
	var maxSize maxProfileSize
	var output string
	var types []string
	cmd := &cobra.Command{
		Use:   "diff BASE.pb.gz HEAD.pb.gz",
		Short: "Show which allocation sites grew and shrank between two profiles, per op",
		Long: `diff compares two profiles function by function, each divided by its own op
count (as recorded by certbench profile), and lists the sites that grew and
shrank most by flat value, with the cumulative change. By default it compares
alloc_space and alloc_objects (every sample type for other profiles).

-o writes the difference as a profile too, as pprof -diff_base builds it:
go tool pprof -top FILE then shows head minus base.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := out.check()
			if err != nil {
				return err
			}
			limit, err := maxSize.bytes()
			if err != nil {
				return err
			}
			basePath, headPath := args[0], args[1]
			base, err := loadProfile(basePath, limit)
			if err != nil {
				return err
			}
			head, err := loadProfile(headPath, limit)
			if err != nil {
				return err
			}
			if err := profile.CheckComparable(base, head); err != nil {
				var ste *profile.SampleTypeError
				if errors.As(err, &ste) {
					return usagef("cannot compare %s with %s: %s has sample types %s but %s has %s",
						headPath, basePath, headPath, strings.Join(ste.Head, ", "), basePath, strings.Join(ste.Base, ", "))
				}
				return usagef("%s, %s: %v", basePath, headPath, err)
			}
			sampleTypes := types
			if len(sampleTypes) == 0 {
				for _, want := range []string{profile.AllocSpace, profile.AllocObjects} {
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
			var cs []*profile.Comparison
			for _, st := range sampleTypes {
				c, err := profile.Compare(base, head, strings.TrimSpace(st))
				if err != nil {
					return usagef("--type: %s: %v", headPath, err)
				}
				cs = append(cs, c)
			}
			if output != "" {
				d, err := profile.Diff(base, head)
				if err != nil {
					return err
				}
				if err := profile.Save(d, output); err != nil {
					return err
				}
			}
			return profile.WriteComparisons(cmd.OutOrStdout(), format, cs, out.top)
		},
	}
	out.register(cmd)
	maxSize.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "", "also write the difference as a profile to this file (.pb.gz)")
	cmd.Flags().StringSliceVar(&types, "type", nil, "sample types to compare, comma-separated (default alloc_space,alloc_objects)")
	return cmd
}

func newProfileTopCmd() *cobra.Command {
	var out profileOutputs
	var maxSize maxProfileSize
	cmd := &cobra.Command{
		Use:   "top FILE.pb.gz ...",
		Short: "Print the top allocation sites of profiles written by certbench profile",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := out.check()
			if err != nil {
				return err
			}
			limit, err := maxSize.bytes()
			if err != nil {
				return err
			}
			var sums []*profile.Summary
			for _, path := range args {
				p, err := loadProfile(path, limit)
				if err != nil {
					return err
				}
				sum, err := profile.Summarize(p, out.top)
				if err != nil {
					return usagef("%s: %v", path, err)
				}
				sum.File = path
				sums = append(sums, sum)
			}
			return profile.WriteSummaries(cmd.OutOrStdout(), format, sums)
		},
	}
	out.register(cmd)
	maxSize.register(cmd)
	return cmd
}

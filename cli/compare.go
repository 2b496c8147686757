package cli

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
	"github.com/spf13/cobra"
	"golang.org/x/perf/benchproc"
)

// formats are the output formats of compare.
var formats = []string{"text", "markdown", "csv", "json"}

// checkFormat reports a format not in valid ("md" is markdown) as bad usage.
func checkFormat(format string, valid []string) error {
	if format == "md" || slices.Contains(valid, format) {
		return nil
	}
	return usagef("--format %q: want one of %s", format, strings.Join(valid, ", "))
}

// formatUsage is a --format flag's usage, naming the valid formats.
func formatUsage(what string, valid []string) string {
	return what + ": `" + strings.Join(valid, "|") + "`"
}

// CompareOptions are the options of certbench compare.
type compareOptions struct {
	ioStreams ioStreams
	// Files are the result files; none runs BenchFlags' benchmarks.
	Files []string
	benchFlags
	// StoresGiven and ScenariosGiven: with Files they select.
	StoresGiven, ScenariosGiven bool
	// RunOnlyGiven lists the run-only flags given ("--count"), an error
	// with Files.
	RunOnlyGiven []string
	Format       string
	// Output is a file for a run's raw results (-o).
	Output string
	// Quick, when compare runs the stores with neither --count nor --ops
	// given, measures them in bench.Quick's plan.
	Quick bool
	selection
}

func newCompareCmd(runF func(context.Context, *compareOptions) error) *cobra.Command {
	opts := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare [RESULTS.txt | OLD.txt NEW.txt ...]",
		Short: "Compare stores (running them) or result files, with benchstat's statistics",
		Long: `compare prints a table per unit, as benchstat does: median ± 95% confidence
interval per cell, the change against the first column with its U-test p-value
("~" when not significant), and a geomean row.

With no file, compare measures --stores on --scenarios; -o also writes the raw
results. The run flags (--count, --ops, -q, -o) apply only when compare runs the
benchmarks. With one result file it compares the stores in it; with several,
the files (the first is the base).
--row, --col and --filter group and select as benchstat's -row, -col, -filter.
--format json is package compare's Tables as encoding/json writes it.`,
		Example: `  certbench compare --scenarios rotate-10-of-100 --count 6
  certbench compare results.txt
  certbench compare --format markdown base.txt head.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ioStreams, opts.Files = ioOf(cmd), args
			opts.StoresGiven, opts.ScenariosGiven = changed(cmd, "stores"), changed(cmd, "scenarios")
			opts.Quick = !changed(cmd, "count") && !changed(cmd, "ops")
			opts.RunOnlyGiven = nil
			for _, fl := range []struct{ name, shown string }{
				{"count", "--count"}, {"ops", "--ops"}, {"quiet", "-q/--quiet"}, {"output", "-o/--output"},
				{"certs", "--certs"},
			} {
				if changed(cmd, fl.name) {
					opts.RunOnlyGiven = append(opts.RunOnlyGiven, fl.shown)
				}
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runCompare(cmd.Context(), opts)
		},
	}
	opts.benchFlags.bind(cmd)
	fs := cmd.Flags()
	fs.StringVar(&opts.Format, "format", "text", formatUsage("format of the table on stdout", formats))
	fs.StringVarP(&opts.Output, "output", "o", "", "when compare runs the benchmarks: also write the run's raw results (Go benchmark format) to this `file`")
	opts.selection.bind(cmd, "the table",
		"/scenario, or /scenario,/store with several files; .fullname for plain go test results",
		"/store with one file or a run, .file with several files or for plain go test results")
	return cmd
}

// runCompare loads the files, or runs the benchmarks, and prints the table.
func runCompare(ctx context.Context, opts *compareOptions) error {
	if err := checkFormat(opts.Format, formats); err != nil {
		return err
	}
	if err := opts.selection.check(); err != nil {
		return err
	}
	copts := compare.Options{Alpha: compare.DefaultAlpha, Row: opts.Row, Col: opts.Col}
	var set *results.Set
	var filters []string
	var runErr error // a store under test failed in the run
	var notes []string
	from := "the run"
	if len(opts.Files) > 0 {
		if len(opts.RunOnlyGiven) > 0 {
			return usagef("%s applies only when compare runs the benchmarks; it was given with result files", opts.RunOnlyGiven[0])
		}
		from = strings.Join(opts.Files, ", ")
		defer forAnalysis()()
		var err error
		if set, filters, err = opts.loadFiles(&copts, from); err != nil {
			return err
		}
	} else {
		raw, err := opts.runStores(ctx, &notes)
		if raw == nil {
			return err
		}
		runErr = err
		defer forAnalysis()()
		if set, err = results.Read(raw, "run"); err != nil {
			return cmp.Or(runErr, err) // with runErr, no sample kept
		}
		if opts.Col == "" && opts.Row == "" {
			// The stores with samples: one that failed at its first
			// sample of every scenario has none.
			have := set.NameValues(results.StoreKey)
			for _, name := range trimAll(opts.Stores) {
				if slices.Contains(have, name) {
					copts.Columns = append(copts.Columns, name)
				}
			}
		}
	}
	if opts.Filter != "" {
		filters = append(filters, "("+opts.Filter+")")
	}
	copts.Filter = strings.Join(filters, " ")
	report, err := compare.Build(set, copts)
	if err != nil {
		given, _ := opts.selected()
		return buildError(err, given, opts.selection, from)
	}
	page := report.Page()
	page.Notes = append(page.Notes, notes...)
	if err := table.Write(opts.ioStreams.Out, opts.Format, page, report); err != nil {
		return err
	}
	return runErr
}

// loadFiles reads the result files, warns about them, checks --stores and
// --scenarios against them and sets copts for them; filters select what
// --stores and --scenarios name.
func (opts *compareOptions) loadFiles(copts *compare.Options, from string) (set *results.Set, filters []string, err error) {
	if set, err = results.Load(opts.Files...); err != nil {
		return nil, nil, usageError(err)
	}
	printWarnings(opts.ioStreams.ErrOut, set)
	printFailures(opts.ioStreams.ErrOut, set)
	warnDifferentCerts(opts.ioStreams.ErrOut, set)
	warnDifferentScenarios(opts.ioStreams.ErrOut, set)
	if err := opts.checkSelection(set, from); err != nil {
		return nil, nil, err
	}
	switch {
	case len(opts.Files) > 1 && opts.Col == "":
		copts.Col = results.FileKey
	case len(opts.Files) == 1 && opts.StoresGiven && opts.Col == "" && opts.Row == "":
		copts.Columns = trimAll(opts.Stores) // the stores of one file
	}
	_, filters = opts.selected()
	return set, filters, nil
}

// runStores runs the benchmarks, -o getting each sample as it is
// measured, and returns the samples; raw is nil if there is nothing to
// table. An interrupted run, or one in which a store failed, keeps its
// samples and returns its error with them.
func (opts *compareOptions) runStores(ctx context.Context, notes *[]string) (raw *bytes.Buffer, err error) {
	if opts.Output == "-" {
		return nil, usagef("-o -: the table goes to stdout; -o names a file for the raw results of the run")
	}
	bopts, err := opts.options(opts.ioStreams.ErrOut)
	if err != nil {
		return nil, err
	}
	raw = new(bytes.Buffer)
	out := io.Writer(raw)
	var file *os.File
	if opts.Output != "" {
		if file, err = os.Create(opts.Output); err != nil {
			return nil, usagef("-o: %v", err)
		}
		defer file.Close()
		out = io.MultiWriter(file, raw)
	}
	var quick *[]string
	if opts.Quick {
		*notes = append(*notes, fmt.Sprintf("a quick run: %d samples a store and scenario, each about %s of ops at most (bench.Quick); --count %d measures every scenario's full plan, with 95%% intervals",
			bench.QuickCount, bench.QuickWindow, bench.DefaultCount))
		quick = notes
	}
	runErr := runPlan(ctx, bopts, quick, out, opts.ioStreams.ErrOut, stackBase(opts.Output))
	if file != nil {
		if err := file.Close(); err != nil {
			return nil, fmt.Errorf("writing %s: %w", opts.Output, err)
		}
	}
	var ie *interruptedError
	if runErr != nil && !storeFailed(runErr) && !errors.As(runErr, &ie) {
		return nil, runErr
	}
	return raw, runErr
}

// Selection are the benchstat-style flags of compare and report: --row
// and --col projections and a --filter ("" the defaults).
type selection struct {
	Row, Col, Filter string
}

func (s *selection) bind(cmd *cobra.Command, what, rowDefault, colDefault string) {
	fs := cmd.Flags()
	fs.StringVar(&s.Row, "row", "", "split "+what+" into rows by this benchproc `projection`, as benchstat -row (default: "+rowDefault+")")
	fs.StringVar(&s.Col, "col", "", "split "+what+" into columns by this benchproc `projection`, as benchstat -col (default: "+colDefault+")")
	fs.StringVar(&s.Filter, "filter", "", "use only the results matching this benchproc `filter`, as benchstat -filter, e.g. '/scenario:rotate-10-of-100'")
}

// check parses the projections and filter, so that a mistake is reported
// against the flag.
func (s *selection) check() error {
	filter, err := benchproc.NewFilter(cmp.Or(s.Filter, "*"))
	if err != nil {
		return usagef("--filter %q: %v", s.Filter, err)
	}
	var parser benchproc.ProjectionParser
	for _, p := range []struct{ flag, val string }{{"--row", s.Row}, {"--col", s.Col}} {
		if p.val == "" {
			continue
		}
		if _, err := parser.Parse(p.val, filter); err != nil {
			return usagef("%s %q: %v", p.flag, p.val, err)
		}
	}
	return nil
}

// checkSelection reports the stores and scenarios given that the results
// do not have.
func (o *compareOptions) checkSelection(rs *results.Set, from string) error {
	for _, sel := range []struct {
		flag, key, what string
		given           bool
		names           []string
	}{
		{"stores", results.StoreKey, "store", o.StoresGiven, o.Stores},
		{"scenarios", results.ScenarioKey, "scenario", o.ScenariosGiven, o.Scenarios},
	} {
		if !sel.given {
			continue
		}
		have := rs.NameValues(sel.key)
		if len(have) == 0 {
			return usagef("--%s: the results in %s name no %ss (no /%s= in any benchmark name); select plain go test benchmarks with --filter, e.g. --filter '.name:Lookup'",
				sel.flag, from, sel.what, sel.key)
		}
		var missing []string
		for _, name := range trimAll(sel.names) {
			if !slices.Contains(have, name) {
				missing = append(missing, fmt.Sprintf("%q", name))
			}
		}
		if len(missing) > 0 {
			return usagef("--%s: no results for %s %s in %s (%ss there: %s)",
				sel.flag, sel.what, strings.Join(missing, ", "), from, sel.what, strings.Join(have, ", "))
		}
	}
	return nil
}

// selected returns --stores and --scenarios, if given, as written (for
// errors) and as filter terms.
func (o *compareOptions) selected() (given, filters []string) {
	for _, sel := range []struct {
		flag, key string
		on        bool
		names     []string
	}{{"stores", results.StoreKey, o.StoresGiven, o.Stores}, {"scenarios", results.ScenarioKey, o.ScenariosGiven, o.Scenarios}} {
		if sel.on {
			given = append(given, "--"+sel.flag+" "+strings.Join(trimAll(sel.names), ","))
			filters = append(filters, orFilter("/"+sel.key, sel.names))
		}
	}
	return given, filters
}

// buildError says which flags selected nothing; given are the selecting
// flags other than sel's, as written.
func buildError(err error, given []string, sel selection, from string) error {
	switch {
	case errors.Is(err, compare.ErrNoResults):
		for _, p := range []struct{ flag, val string }{{"--filter", sel.Filter}, {"--row", sel.Row}, {"--col", sel.Col}} {
			if p.val != "" {
				given = append(given, fmt.Sprintf("%s '%s'", p.flag, p.val))
			}
		}
		switch len(given) {
		case 0:
			return usagef("no benchmark results in %s", from)
		case 1:
			return usagef("no results in %s match %s", from, given[0])
		}
		return usagef("no results in %s match %s together", from, strings.Join(given, " "))
	case errors.Is(err, compare.ErrNothingInCommon):
		return usageError(err)
	}
	return err
}

func orFilter(key string, values []string) string {
	var terms []string
	for _, v := range trimAll(values) {
		terms = append(terms, fmt.Sprintf("%s:%q", key, v))
	}
	return "(" + strings.Join(terms, " OR ") + ")"
}

package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/certbench/certbench/compare"
	"github.com/certbench/certbench/resultfmt"
	"github.com/spf13/cobra"
	"golang.org/x/perf/benchproc"
)

// formats are the output formats of compare.
var formats = []string{"text", "markdown", "csv", "json"}

// renderer is what compare reports and gate verdicts have in common: one
// writer per output format. WriteCSV is optional.
type renderer interface {
	WriteText(io.Writer) error
	WriteMarkdown(io.Writer) error
	WriteJSON(io.Writer) error
}

// checkFormat reports a format not in valid ("md" is markdown) as bad usage.
func checkFormat(format string, valid []string) error {
	if format == "md" || slices.Contains(valid, format) {
		return nil
	}
	return usagef("--format %q: want one of %s", format, strings.Join(valid, ", "))
}

// render writes r in the named format, already checked with checkFormat.
func render(r renderer, format string, w io.Writer) error {
	switch format {
	case "text":
		return r.WriteText(w)
	case "markdown", "md":
		return r.WriteMarkdown(w)
	case "json":
		return r.WriteJSON(w)
	case "csv":
		if c, ok := r.(interface{ WriteCSV(io.Writer) error }); ok {
			return c.WriteCSV(w)
		}
	}
	return usagef("--format %q: not available here", format)
}

func newCompareCmd() *cobra.Command {
	var f runFlags
	var format, output string
	var sel selectFlags
	var alpha float64
	cmd := &cobra.Command{
		Use:   "compare [RESULTS.txt | OLD.txt NEW.txt ...]",
		Short: "Compare stores (running them) or result files, with benchstat's statistics",
		Long: `compare prints a table per unit to stdout: median ± 95% confidence interval
per cell, and the change against the first column with its Mann-Whitney
p-value ("~" when not significant), plus a geomean row.

With no arguments, compare measures the named stores on the named scenarios
(default: naive vs optimized on the default set): one row per scenario, one
column per store. -o FILE also writes the raw results of that run (Go
benchmark format, as certbench run writes them) to FILE.

With one result file (from certbench run), compare compares the stores in it.
With two or more, it compares the files: the first is the base, rows are
scenario × store. --stores and --scenarios then select what is compared.
Files from a plain go test -bench (names without /scenario= and /store=)
compare as benchstat compares them: one row per benchmark, one column per
file. The run flags (--count, --ops, -q, -o) apply only when compare runs the
benchmarks and are an error with result files.

--row, --col and --filter group and select results as benchstat's -row, -col
and -filter do (see golang.org/x/perf/benchproc/syntax), on any input, e.g.
  certbench compare --col /store --filter '/scenario:rotate-10-of-100' run.txt
  certbench compare --row .name --col /impl bench.txt

--format markdown fits a pull-request comment; --format json is described in
the documentation of package compare.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, formats); err != nil {
				return err
			}
			if alpha <= 0 || alpha >= 1 {
				return usagef("--alpha %v: want a level between 0 and 1", alpha)
			}
			if err := sel.check(); err != nil {
				return err
			}
			var results *compare.Results
			opts := compare.Options{Alpha: alpha, Row: sel.row, Col: sel.col}
			var filters []string
			from := "the run"
			if len(args) > 0 {
				if err := rejectRunFlags(cmd); err != nil {
					return err
				}
				var err error
				results, err = compare.Load(args...)
				if err != nil {
					return usageError(err)
				}
				printWarnings(cmd.ErrOrStderr(), results)
				from = strings.Join(args, ", ")
				if err := checkSelection(cmd, &f, results, from); err != nil {
					return err
				}
				filters = selectionFilters(cmd, &f)
				if len(args) == 1 {
					// One file: compare the stores it holds.
					if cmd.Flags().Changed("stores") && sel.col == "" && sel.row == "" {
						opts.Columns = trimAll(f.stores)
					}
				} else if sel.col == "" {
					opts.Col = compare.FileKey
				}
			} else {
				if output == "-" {
					return usagef("-o -: the table goes to stdout; -o names a file for the raw results of the run")
				}
				ropts, err := f.options(cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				var raw bytes.Buffer
				if err := runTo(cmd.Context(), ropts, &raw); err != nil {
					return err
				}
				if output != "" {
					if err := writeFile(output, raw.Bytes()); err != nil {
						return usagef("-o: %v", err)
					}
				}
				results, err = compare.Read(&raw, "run")
				if err != nil {
					return err
				}
				if sel.col == "" && sel.row == "" {
					opts.Columns = trimAll(f.stores)
				}
			}
			if sel.filter != "" {
				filters = append(filters, "("+sel.filter+")")
			}
			if len(filters) > 0 {
				opts.Filter = strings.Join(filters, " ")
			}
			report, err := compare.Build(results, opts)
			if err != nil {
				return buildError(err, cmd, &f, &sel, from)
			}
			return render(report, format, cmd.OutOrStdout())
		},
	}
	f.register(cmd, defaultStores())
	fs := cmd.Flags()
	fs.StringVar(&format, "format", "text", "output format of the table on stdout: "+strings.Join(formats, ", "))
	fs.StringVarP(&output, "output", "o", "", "when compare runs the benchmarks: also write the run's raw results (Go benchmark format) to this file")
	fs.Float64Var(&alpha, "alpha", compare.DefaultAlpha, "significance level")
	sel.register(cmd, "the table",
		"/scenario, or /scenario,/store with several files; .fullname for plain go test results",
		"/store with one file or a run, .file with several files or for plain go test results")
	return cmd
}

// selectFlags are the benchstat-style grouping and selection flags of
// compare and report.
type selectFlags struct {
	row, col, filter string
}

func (s *selectFlags) register(cmd *cobra.Command, what, rowDefault, colDefault string) {
	fs := cmd.Flags()
	fs.StringVar(&s.row, "row", "", "split "+what+" into rows by this benchproc projection, as benchstat -row (default: "+rowDefault+")")
	fs.StringVar(&s.col, "col", "", "split "+what+" into columns by this benchproc projection, as benchstat -col (default: "+colDefault+")")
	fs.StringVar(&s.filter, "filter", "", "use only the results matching this benchproc filter, as benchstat -filter, e.g. '/scenario:rotate-10-of-100'")
}

// check parses the flags' projections and filter, so that a mistake is
// reported against the flag.
func (s *selectFlags) check() error {
	filter, err := benchproc.NewFilter("*")
	if s.filter != "" {
		filter, err = benchproc.NewFilter(s.filter)
		if err != nil {
			return usagef("--filter %q: %v", s.filter, err)
		}
	}
	if err != nil {
		return err
	}
	var parser benchproc.ProjectionParser
	for _, p := range []struct{ flag, val string }{{"--row", s.row}, {"--col", s.col}} {
		if p.val == "" {
			continue
		}
		if _, err := parser.Parse(p.val, filter); err != nil {
			return usagef("%s %q: %v", p.flag, p.val, err)
		}
	}
	return nil
}

// rejectRunFlags reports the flags that only a run uses when result
// files were given instead.
func rejectRunFlags(cmd *cobra.Command) error {
	for _, fl := range []struct{ name, shown string }{
		{"count", "--count"},
		{"ops", "--ops"},
		{"quiet", "-q/--quiet"},
		{"output", "-o/--output"},
	} {
		if cmd.Flags().Changed(fl.name) {
			return usagef("%s applies only when compare runs the benchmarks; it was given with result files", fl.shown)
		}
	}
	return nil
}

// checkSelection reports every store of --stores and scenario of
// --scenarios, when given, that the results do not have.
func checkSelection(cmd *cobra.Command, f *runFlags, rs *compare.Results, from string) error {
	for _, sel := range []struct {
		flag, key, what string
		names           []string
	}{
		{"stores", resultfmt.StoreKey, "store", f.stores},
		{"scenarios", resultfmt.ScenarioKey, "scenario", f.scenarios},
	} {
		if !cmd.Flags().Changed(sel.flag) {
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

// buildError turns an error of compare.Build into one in the user's words:
// which flags selected nothing. f is nil for commands without run flags.
func buildError(err error, cmd *cobra.Command, f *runFlags, sel *selectFlags, from string) error {
	switch {
	case errors.Is(err, compare.ErrNoResults):
		var given []string
		if f != nil && cmd.Flags().Changed("stores") {
			given = append(given, "--stores "+strings.Join(trimAll(f.stores), ","))
		}
		if f != nil && cmd.Flags().Changed("scenarios") {
			given = append(given, "--scenarios "+strings.Join(trimAll(f.scenarios), ","))
		}
		for _, p := range []struct{ flag, val string }{{"--filter", sel.filter}, {"--row", sel.row}, {"--col", sel.col}} {
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

// selectionFilters turns --stores and --scenarios, when given explicitly,
// into benchproc filter terms for comparing files.
func selectionFilters(cmd *cobra.Command, f *runFlags) []string {
	var parts []string
	if cmd.Flags().Changed("stores") {
		parts = append(parts, orFilter("/"+resultfmt.StoreKey, f.stores))
	}
	if cmd.Flags().Changed("scenarios") {
		parts = append(parts, orFilter("/"+resultfmt.ScenarioKey, f.scenarios))
	}
	return parts
}

func orFilter(key string, values []string) string {
	var terms []string
	for _, v := range trimAll(values) {
		terms = append(terms, fmt.Sprintf("%s:%q", key, v))
	}
	return "(" + strings.Join(terms, " OR ") + ")"
}

// trimAll returns names with surrounding spaces removed.
func trimAll(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimSpace(n)
	}
	return out
}

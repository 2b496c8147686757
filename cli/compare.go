package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/certbench/certbench/compare"
	"github.com/spf13/cobra"
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
	var alpha float64
	cmd := &cobra.Command{
		Use:   "compare [RESULTS.txt | OLD.txt NEW.txt ...]",
		Short: "Compare stores (running them) or result files, with benchstat's statistics",
		Long: `With no arguments, compare measures the named stores on the named scenarios
(default: naive vs optimized on the default set) and prints a table per unit:
one row per scenario, one column per store, median ± 95% confidence interval,
and the change against the first store with its Mann-Whitney p-value ("~" when
not significant), plus a geomean row.

With one result file (from certbench run or go test -bench), compare compares
the stores in it. With two or more, it compares the files: the first is the
base, rows are scenario × store. --stores and --scenarios then select what is
compared.

--format markdown fits a pull-request comment; --format json is described in
the documentation of package compare. Use -o to also keep the raw results of a
run.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format, formats); err != nil {
				return err
			}
			if alpha <= 0 || alpha >= 1 {
				return usagef("--alpha %v: want a level between 0 and 1", alpha)
			}
			var results *compare.Results
			opts := compare.Options{Alpha: alpha}
			if len(args) > 0 {
				var err error
				results, err = compare.Load(args...)
				if err != nil {
					return usageError(err)
				}
				if len(args) == 1 {
					// One file: compare the stores it holds.
					opts.Filter = filterFor(cmd, &f, false)
					if cmd.Flags().Changed("stores") {
						opts.Columns = f.stores
					}
				} else {
					opts = compare.FileOptions()
					opts.Alpha = alpha
					opts.Filter = filterFor(cmd, &f, true)
				}
			} else {
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
				opts.Columns = f.stores
			}
			report, err := compare.Build(results, opts)
			if err != nil {
				if errors.Is(err, compare.ErrNothingInCommon) || errors.Is(err, compare.ErrNoResults) {
					return usageError(err)
				}
				return err
			}
			return render(report, format, cmd.OutOrStdout())
		},
	}
	f.register(cmd, defaultStores())
	fs := cmd.Flags()
	fs.StringVar(&format, "format", "text", "output format: "+strings.Join(formats, ", "))
	fs.StringVarP(&output, "output", "o", "", "also write the raw results of the run to this file")
	fs.Float64Var(&alpha, "alpha", compare.DefaultAlpha, "significance level")
	return cmd
}

// filterFor turns --stores and --scenarios, when given explicitly, into a
// benchproc filter for comparing files.
func filterFor(cmd *cobra.Command, f *runFlags, stores bool) string {
	var parts []string
	if stores && cmd.Flags().Changed("stores") {
		parts = append(parts, orFilter("/store", f.stores))
	}
	if cmd.Flags().Changed("scenarios") {
		parts = append(parts, orFilter("/scenario", f.scenarios))
	}
	if len(parts) == 0 {
		return "*"
	}
	return strings.Join(parts, " ")
}

func orFilter(key string, values []string) string {
	var terms []string
	for _, v := range values {
		terms = append(terms, fmt.Sprintf("%s:%q", key, strings.TrimSpace(v)))
	}
	return "(" + strings.Join(terms, " OR ") + ")"
}

package cli

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/certbench/certbench/compare"
	"github.com/certbench/certbench/growth"
	"github.com/certbench/certbench/report"
	"github.com/spf13/cobra"
)

func newReportCmd() *cobra.Command {
	var (
		output, pngDir, title  string
		growthChart, growthFam string
		growthTitle            string
		growthUnits            []string
		dpi                    int
		table, byFile          bool
		sel                    selectFlags
	)
	cmd := &cobra.Command{
		Use:   "report RESULTS...",
		Short: "Write an HTML page (and PNG images) of charts and tables from result files",
		Long: `report reads result files (from certbench run, compare -o, sweep, or go test
-bench) and writes one self-contained HTML page: no scripts and no external
resources, charts as inline SVG. It shows

  - per sweep family (certbench sweep), log-log growth curves of time,
    allocation and retained heap against the number of certificates, one
    line per store, with the fitted exponent k (value ≈ c·N^k);
  - per scenario, bar charts of each metric per store: the median with
    its 95% confidence interval (for plain go test -bench files, per
    benchmark, one bar per file, as benchstat compares them);
  - the comparison tables of certbench compare and the sweep's medians
    and exponents.

It writes the page to the file -o names (default report.html), never to
stdout, and prints the names of the files it wrote. --png DIR also writes
every chart as DIR/<chart>.png, for pull requests and READMEs.
--growth-chart FILE (.svg or .png) writes one small growth chart
(--growth-family, default the first family; --growth-units, default time
and retained heap), the picture for a README.

--row, --col and --filter group and select the results that are not sweep
samples as benchstat's -row, -col and -filter do: one chart per row, one
bar per column (--by-file is --col .file).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output == "" {
				return usagef("-o: name the HTML file to write")
			}
			if byFile && sel.col != "" {
				return usagef("--by-file and --col both choose the columns; give one (--by-file is --col .file)")
			}
			if err := sel.check(); err != nil {
				return err
			}
			rs, err := compare.Load(args...)
			if err != nil {
				return usageError(err)
			}
			printWarnings(cmd.ErrOrStderr(), rs)
			opts := report.Options{Title: title}
			opts.Compare.Row, opts.Compare.Col, opts.Compare.Filter = sel.row, sel.col, sel.filter
			if byFile {
				opts.Compare.Col = compare.FileKey
			}
			rep, err := report.Build(rs, opts)
			if err != nil {
				return buildError(err, cmd, nil, &sel, strings.Join(args, ", ")+" (other than sweep samples)")
			}
			if rep.Compare == nil {
				for _, fl := range []string{"row", "col", "filter", "by-file"} {
					if cmd.Flags().Changed(fl) {
						return usagef("--%s applies to results other than sweep samples; %s hold only sweep samples", fl, strings.Join(args, ", "))
					}
				}
			}
			out := cmd.OutOrStdout()
			var page bytes.Buffer
			if err := rep.WriteHTML(&page); err != nil {
				return err
			}
			if err := writeFile(output, page.Bytes()); err != nil {
				return usagef("-o: %v", err)
			}
			fmt.Fprintf(out, "wrote %s (%d charts)\n", output, len(rep.Charts()))
			if pngDir != "" {
				paths, err := rep.WritePNGs(pngDir, dpi)
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "wrote %d PNG images to %s\n", len(paths), pngDir)
			}
			if growthChart != "" {
				if len(rep.Curves) == 0 {
					return usagef("--growth-chart: no sweep results in %s", strings.Join(args, ", "))
				}
				fam := growthFam
				if fam == "" {
					fam = rep.Curves[0].Family
				}
				ch, err := rep.GrowthChart(fam, growthUnits, growthTitle)
				if err != nil {
					return err
				}
				if ch == nil {
					return usagef("--growth-chart: family %q has none of the units %s", fam, strings.Join(growthUnits, ", "))
				}
				if err := report.WriteChart(ch, growthChart); err != nil {
					return usageError(err)
				}
				fmt.Fprintf(out, "wrote %s\n", growthChart)
			}
			if table && len(rep.Curves) > 0 {
				fmt.Fprintln(out)
				if err := growth.WriteTable(out, rep.Curves); err != nil {
					return err
				}
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&output, "output", "o", "report.html", "write the HTML page to this file (not stdout)")
	fs.StringVar(&pngDir, "png", "", "also write every chart as a PNG image into this directory")
	fs.IntVar(&dpi, "dpi", 144, "resolution of the PNG images")
	fs.StringVar(&title, "title", "", `page title (default "certbench report")`)
	fs.StringVar(&growthChart, "growth-chart", "", "also write one growth chart to this .svg or .png file")
	fs.StringVar(&growthFam, "growth-family", "", "sweep family of --growth-chart (default: the first)")
	fs.StringVar(&growthTitle, "growth-title", "", "title of --growth-chart (default: the family's)")
	fs.StringSliceVar(&growthUnits, "growth-units", []string{"sec/op", "retained-B"}, "metrics of --growth-chart")
	fs.BoolVar(&byFile, "by-file", false, "compare the input files (base, head, ...) instead of the stores: one chart per scenario and store, one bar per file")
	fs.BoolVar(&table, "table", false, "print the sweep's medians and growth exponents")
	sel.register(cmd, "the charts and tables",
		"/scenario, or /scenario,/store with --by-file; .fullname for plain go test results",
		"/store, or .file for plain go test results")
	return cmd
}

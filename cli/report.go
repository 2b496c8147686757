package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/ci/history"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/growth"
	"github.com/certbench/certbench/internal/report"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
	"github.com/spf13/cobra"
)

// ReportOptions are the options of certbench report.
type reportOptions struct {
	ioStreams ioStreams
	Files     []string
	// Output is the HTML file (-o); never stdout.
	Output string
	// PNGDir, if set, also gets every chart as PNG (at pngDPI).
	PNGDir string
	// Table prints the sweep's medians and exponents on IO.Out.
	Table bool
	// ByFile compares the files instead of the stores (--col .file).
	ByFile bool
	// Gate is a gate result file (gate --format json) shown on top.
	Gate string
	// History is a history (a directory or git:REF) to draw trends of.
	History string
	// BaseProfiles and HeadProfiles are folders of profiles to draw the
	// differential flame graphs of.
	BaseProfiles, HeadProfiles string
	selection
}

func newReportCmd(runF func(context.Context, *reportOptions) error) *cobra.Command {
	opts := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report [--history LOC] RESULTS...",
		Short: "Write an HTML page (and PNG images) of charts and tables from result files",
		Long: `report reads result files (certbench run, compare -o, sweep, go test -bench)
and writes one self-contained HTML page (-o; no scripts, charts as inline SVG):
growth curves per sweep family with their exponent k (value ≈ c·N^k), bar
charts per scenario (median and 95% interval per store; per file with
--by-file), and compare's tables. --gate FILE (certbench gate --format json)
puts the gate's verdict on top, as the gate shows it. --history LOC adds a
trend chart per benchmark with its change points, the last file as the head
against main's band (RESULTS may then be none). --base-profiles and
--head-profiles (as gate's) add a flame graph per profile in both folders.
--png DIR also writes
every chart as a PNG (a sweep family's growth chart is DIR/growth-FAMILY.png).
--row, --col and --filter select as benchstat's -row, -col and -filter do.`,
		Example: `  certbench report -o report.html results.txt sweep.txt
  certbench report --by-file --png charts base.txt head.txt
  certbench report --by-file --gate gate.json base.txt head.txt`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ioStreams, opts.Files = ioOf(cmd), args
			if len(args) == 0 && opts.History == "" {
				return usagef("name the result files to report on (or --history)")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runReport(cmd.Context(), opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&opts.Output, "output", "o", "report.html", "write the HTML page to this `file` (not stdout)")
	fs.StringVar(&opts.PNGDir, "png", "", "also write every chart as a PNG image into this `dir`")
	fs.BoolVar(&opts.ByFile, "by-file", false, "compare the input files (base, head, ...) instead of the stores: one chart per scenario and store, one bar per file")
	fs.BoolVar(&opts.Table, "table", false, "print the sweep's medians and growth exponents")
	fs.StringVar(&opts.History, "history", "", "draw the trends of the history at this `directory` or git:REF (certbench history)")
	fs.StringVar(&opts.Gate, "gate", "", "show the verdict and thresholds of a gate result `file` (certbench gate --format json) at the top")
	fs.StringVar(&opts.BaseProfiles, "base-profiles", "", "draw differential flame graphs of the profiles in this `dir` and --head-profiles")
	fs.StringVar(&opts.HeadProfiles, "head-profiles", "", "the head's profiles (`dir`) of --base-profiles")
	opts.selection.bind(cmd, "the charts and tables",
		"/scenario, or /scenario,/store with --by-file; .fullname for plain go test results",
		"/store, or .file for plain go test results")
	return cmd
}

// runReport reads the files and writes the page and images.
func runReport(ctx context.Context, opts *reportOptions) error {
	if opts.Output == "" {
		return usagef("-o: name the HTML file to write")
	}
	if opts.ByFile && opts.Col != "" {
		return usagef("--by-file and --col both choose the columns; give one (--by-file is --col .file)")
	}
	if err := opts.selection.check(); err != nil {
		return err
	}
	files := strings.Join(opts.Files, ", ")
	defer forAnalysis()()
	rs := &results.Set{}
	var err error
	if len(opts.Files) > 0 {
		if rs, err = results.Load(opts.Files...); err != nil {
			return usageError(err)
		}
	}
	printWarnings(opts.ioStreams.ErrOut, rs)
	printFailures(opts.ioStreams.ErrOut, rs)
	ropts := report.Options{}
	if opts.History != "" {
		st, err := history.Open(opts.History, "")
		if err != nil {
			return usageError(err)
		}
		if ropts.History, err = history.Load(ctx, st); err != nil {
			return usageError(err)
		}
	}
	if ropts.Gate, err = readGate(opts.Gate); err != nil {
		return err
	}
	if (opts.BaseProfiles == "") != (opts.HeadProfiles == "") {
		return usagef("--base-profiles and --head-profiles go together")
	}
	if opts.BaseProfiles != "" {
		if ropts.Flames, err = (cost.Folders{Base: opts.BaseProfiles, Head: opts.HeadProfiles}).Flames(); err != nil {
			return usageError(err)
		}
	}
	ropts.Compare.Row, ropts.Compare.Col, ropts.Compare.Filter = opts.Row, opts.Col, opts.Filter
	if opts.ByFile {
		ropts.Compare.Col = results.FileKey
	}
	rep, err := report.Build(rs, ropts)
	if err != nil {
		return buildError(err, nil, opts.selection, files+" (other than sweep samples)")
	}
	if rep.Compare == nil {
		for _, fl := range []struct {
			name  string
			given bool
		}{{"row", opts.Row != ""}, {"col", opts.Col != ""}, {"filter", opts.Filter != ""}, {"by-file", opts.ByFile}} {
			if fl.given {
				return usagef("--%s applies to results other than sweep samples; %s hold only sweep samples", fl.name, files)
			}
		}
	}
	out := opts.ioStreams.Out
	if err := writeHTML(opts.Output, rep); err != nil {
		return err
	}
	panels := 0
	for _, ch := range rep.Charts() {
		panels += ch.Panels()
	}
	fmt.Fprintf(out, "wrote %s (%s of %s)\n", opts.Output, plural(len(rep.Charts()), "chart"), plural(panels, "panel"))
	if opts.PNGDir != "" {
		paths, err := rep.WritePNGs(opts.PNGDir, pngDPI)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "wrote %d PNG images to %s\n", len(paths), opts.PNGDir)
	}
	if opts.Table && len(rep.Curves) > 0 {
		fmt.Fprintln(out)
		if err := growth.WriteTable(out, rep.Curves); err != nil {
			return err
		}
	}
	if t := rep.HeldTable(); opts.Table && t != nil {
		fmt.Fprintln(out)
		return table.WriteText(out, &table.Page{Tables: []*table.Table{t}})
	}
	return nil
}

// pngDPI is the resolution of report --png's images.
const pngDPI = 144

// readGate reads the gate result --gate names; nil if none.
func readGate(path string) (*gate.Document, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("--gate: %v", err)
	}
	defer f.Close()
	g, err := gate.ReadDocument(f)
	if err != nil {
		return nil, usagef("--gate %s: %v", path, err)
	}
	return g, nil
}

// writeHTML streams the page (it can be tens of megabytes) into a
// temporary file beside path, renamed once whole: a failed report leaves
// no partial page.
func writeHTML(path string, rep *report.Report) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // not the temporary file's name
		}
		return usagef("-o: %s: %v", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	w := bufio.NewWriterSize(tmp, 256<<10)
	err = rep.WriteHTML(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return usagef("-o: %v", err)
	}
	return nil
}

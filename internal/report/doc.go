// Package report turns certbench result files into pictures: one
// self-contained HTML page and, optionally, PNG images of its charts.
//
// [Build] splits the results into sweep samples (names with /family= and
// /size=, from certbench sweep) and the rest (certbench run, compare,
// go test -bench), and makes:
//
//   - per sweep family, a growth chart: one log-log panel per metric
//     (time, bytes and allocations per op, retained heap), one line per
//     store through the median at each pool size, error bars for the 95%
//     confidence interval of the median where there are enough samples
//     for one, the fitted power law c·N^k as a dashed line, and k in the
//     legend under each panel (see package sweep); a note under the title
//     says both axes are logarithmic, and the axes are labelled with the
//     quantity;
//   - per scenario, a chart of one panel per metric, its y axis labelled
//     with the metric: one bar per store from 0 to the median, a whisker
//     for the 95% confidence interval and the value printed above; a
//     panel whose values span more than a factor of 30 uses a
//     logarithmic axis instead, noted under the panel, and draws a dot at
//     each median (a bar's length would mean nothing there), so that a
//     store a thousand times faster still shows. Stores have one set of
//     colours; input files compared with --by-file (or plain go test
//     -bench files) have another, shades of blue;
//   - the comparison tables of package compare (median ± interval per
//     store, the change against the first store and its p-value) and the
//     sweep's medians and growth exponents, as HTML tables.
//
// Medians, intervals and comparisons all come from package compare, so
// the pictures and certbench compare agree.
//
// The HTML page needs nothing from the network: charts are inline SVG
// made with gonum.org/v1/plot (vg/vgsvg), the style sheet is inline, and
// the page contains no URL at all (not even the SVG namespace, which
// inline SVG in HTML does not need). [Report.WritePNGs] renders the same
// charts with vg/vgimg, for pull requests and READMEs.
//
// Chart text uses the Liberation Sans metrics (gonum's bundled fonts);
// the page asks the browser for Liberation Sans, then Arial or Helvetica,
// which have the same metrics.
package report

// Package report turns certbench result files into pictures: one
// self-contained HTML page and, optionally, PNG images of its charts.
//
// [Build] splits the results into sweep samples (names with /family= and
// /size=, from certbench sweep) and the rest (certbench run, compare,
// go test -bench), and makes:
//
//   - per sweep family, a growth chart: one log-log panel per metric, one
//     line per store through the median at each pool size, with the 95%
//     confidence interval where there are enough samples and the fitted
//     power law c·N^k (see packages sweep and growth);
//   - per scenario, one panel per metric with a bar per store (median,
//     interval, value), on a logarithmic axis of dots when the values span
//     more than a factor of 30, so that a much faster store still shows;
//   - the comparison tables of package compare and the sweep's medians and
//     growth exponents, as HTML tables.
//
// Medians, intervals and comparisons all come from package compare, so the
// pictures and certbench compare agree. The page needs nothing from the
// network: charts are inline SVG made with gonum.org/v1/plot, the style
// sheet is inline, and the page holds no URL. [Report.WritePNGs] renders
// the same charts as PNG. Chart text uses the Liberation Sans metrics
// (gonum's bundled fonts); the page asks for Liberation Sans, then Arial
// or Helvetica, which have the same metrics.
package report

// Package compare turns certbench result files into comparison tables
// with real statistics, in the manner of benchstat: Build returns a
// Report (the statistics as values), Report.Page its tables as package
// table renders them (text, Markdown, CSV, HTML), and json.Marshal of the
// Report is its JSON.
//
// # Pipeline
//
// Package results reads the files (results.Load, results.Read) into a
// results.Set: per benchmark and configuration, the values of each unit,
// with the input's label under the ".file" key and the "Unit ...
// assume=exact" metadata. Build groups the measurements with golang.org/x/perf/benchproc projections into one
// Table per unit, with rows (Options.Row, default "/scenario") and columns
// (Options.Col, default "/store"). FileOptions instead compares input
// files: rows "/scenario,/store", columns ".file", so a base run can be
// compared with a head run. Results without certbench's name keys (plain
// go test -bench output) are grouped as benchstat groups them: rows by
// ".fullname", columns by ".file". Columns appear in input order unless
// Options.Columns gives an explicit order; the first column is the
// baseline.
//
// # Statistics
//
// Each Cell holds a golang.org/x/perf/benchmath Sample and its Summary.
// Units declared "assume=exact" (allocs/op, B/op and goroutines in
// certbench output) use benchmath.AssumeExact: the center is the most
// common value and any difference between centers is significant. Other
// units use benchmath.AssumeNothing: the center is the median, with a
// distribution-free confidence interval at Options.Confidence (default
// 95%), and cells are compared with the baseline by a Mann-Whitney U
// test; a difference is significant if p < Options.Alpha (default 0.05).
// Each non-baseline Cell's Delta carries the benchmath.Comparison (P,
// sample sizes, warnings), the ratio of centers and the verdict, so that
// other tools (such as a regression gate) can reuse them. A U test needs
// at least 4 samples per side to ever reach p < 0.05, and a 95% interval
// needs at least 6; benchmath's warnings about this are kept on the cells
// and collected in Report.Warnings. A geomean row summarizes each column
// over the rows with positive results in every column, when there are
// two such rows or more (Table.NoGeomean says why otherwise).
//
// Each center is shown as results.FormatPair shows it paired with its
// row's baseline ("190 ms" sec/op, "850 KiB" B/op, "1,184" allocs/op,
// with more digits where two centers would read alike), so compare and
// certbench gate show one text for one figure. A cell without a ± interval
// refers to a footnote that says why.
//
// # Errors
//
// results.Load checks every value before any statistics (benchmath's
// Mann-Whitney U test does not terminate on NaN). Build fails with
// ErrNothingInCommon if the columns share no benchmarks, and with
// ErrNoResults if the filter leaves nothing.
//
// # JSON
//
// A Report marshals with encoding/json (certbench compare --format json):
// the fields' tags name the keys, and each cell adds its sample (n,
// values), center, interval bounds (null when unbounded) and texts. Raw
// numbers are in the tidied unit (seconds for sec/op, bytes for B/op).
package compare

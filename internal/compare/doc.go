// Package compare turns certbench result files into comparison tables
// with benchstat's statistics: Build returns Tables (the statistics as
// values), Tables.Page its tables for package table to render, and
// json.Marshal of the Tables is its JSON.
//
// Build groups a results.Set with benchproc projections into one Table
// per unit, rows by Options.Row and columns by Options.Col; the first
// column is the baseline. Plain go test -bench results are grouped as
// benchstat groups them (rows ".fullname", columns ".file"). Each Cell
// holds a benchmath Sample and Summary; "assume=exact" units compare
// centers directly, the others by the Mann-Whitney U test at
// Options.Alpha. The Delta of a cell keeps the benchmath.Comparison, so
// that the gate reuses it. Centers are formatted by results.FormatPair,
// so compare and gate print one text for one figure.
package compare

// Package report turns certbench result files into one self-contained
// HTML page (inline CSS and SVG, no URL) and, optionally, PNG images of
// its charts: per sweep family a log-log growth chart with fitted power
// laws, per scenario a panel per metric with a bar or dot per store, the
// operator charts, per benchmark of a history a trend chart with its
// change points, the gate's findings as change in percent, and compare's
// tables. Every figure comes from package compare (or growth, history,
// the gate's JSON), so the pictures and the commands agree.
// Charts are drawn with gonum.org/v1/plot in Liberation Sans.
package report

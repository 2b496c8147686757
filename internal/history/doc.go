// Package history remembers every commit's results and finds where a
// series stepped.
//
// # Store
//
// A history is the result files certbench writes, one (or more) per
// commit, each merged by Add into one file that starts with the lines
// "commit: C" and "commit-time: T" ahead of the machine's configuration
// lines, so it reads as any result file does (benchstat -col commit).
// A Store keeps them in a directory or in the tree of a git ref of the
// project's own repository ("git:refs/notes/certbench"): no server, and
// CI pushes and fetches the ref like any other. Add is append-only: a
// file is stored under its commit and a hash of its content, and never
// replaced. Into a directory it links a complete temporary file to its
// name; into a git ref it writes blob, tree and commit with git's
// plumbing and moves the ref with update-ref NEW OLD, a compare-and-swap:
// of two adds at once one loses the swap and starts again from the
// winner's commit, so neither add is lost. Add refuses a file that is
// truncated (no closing "# certbench-end" line, or one that counts other
// results) or foreign (a result not named scenario=/store=), naming it.
//
// # Change points
//
// Changes looks at each series (benchmark and unit) over its commits in
// order, as the median of each commit's samples. The commit is the unit
// of replication: the samples of one run share the machine's state, so
// a test on samples would count one slow run many times over and raise
// false alarms; a test on medians does not.
//
// The method is binary segmentation with Pettitt's rank test (Pettitt
// 1979, "A non-parametric approach to the change-point problem"): the
// Mann-Whitney statistic of every split U_t, split at the largest |U_t|
// if its p-value passes, then test each side again. This rather than
// E-divisive means, as Apache Otava uses it, because of the near-exact
// series: a rank test sees only order, so a step of 0.02% in
// instructions/op whose commits never overlap is as plain as a step of
// 20% in sec/op, and allocs/op that never change tie and give no split;
// its p-value has a closed form, where E-divisive needs a permutation
// test per split, hundreds of resamples of the whole series, whose
// smallest p-value is 1/(permutations+1), too coarse for a cutoff
// divided among thousands of series. A rank test also needs no model of
// the noise, which on a shared runner's clock is skewed and heavy-tailed.
//
// False alarms are controlled across all series at once with the
// Benjamini-Hochberg procedure at Options.Alpha on each series' first
// split; further splits of a series use the same cutoff. When no series
// changed, a false discovery rate is the chance of any false change
// point. A split must then also move the level by the unit's minimum
// effect (DefaultMinEffect): a step is a change of level, and a clock's
// level drifts with the runner's load in a way no test of exchangeable
// samples models (a shared runner's clock is not an A/A series); counts
// have none.
//
// Each ChangePoint names its commit, the commit before it and the
// windows of commits it was measured on (up to Options.Window each side,
// not past the next change point), and its size as a Hodges-Lehmann
// shift of the per-commit medians with its Mann-Whitney rank interval.
//
// # Creep
//
// Creep sums the drift of every series from a commit to the last one as
// one Shift, from the medians of a few commits before it to those of the
// last few, so that ten steps of 0.1% that each passed a gate show as
// 1%, whether or not each step is a change point.
//
// History.Recent gives the last N commits' samples of a series, for a
// gate against history.
package history

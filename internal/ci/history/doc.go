// Package history remembers every commit's results and finds where each
// series stepped.
//
// Add stores one commit's result files, merged and headed by "commit:"
// and "commit-time:" lines, in a Store: a directory, or the tree of a git
// ref of the project's own repository, written with git's plumbing and
// moved by compare-and-swap (update-ref NEW OLD), so that concurrent adds
// retry rather than lose each other. Nothing stored is ever replaced; a
// truncated or foreign file is refused. Load reads a store into a
// History, each series (benchmark and unit) over its commits in order;
// Recent gives a series' last N commits. Base makes the base of a gate
// against history (gate --history) from main's last N commits.
//
// Changes finds change points by binary segmentation with Pettitt's rank
// test on the per-commit medians, Benjamini-Hochberg across all series at
// once, and a minimum effect per unit; each names its commit, the commits
// around it and a Hodges-Lehmann size with its rank interval. Creep sums
// a series' drift since a commit as one Shift. Why this method and not
// E-divisive means, and its measured false-alarm rates: docs/history.md.
package history

// Package results owns certbench's result files, in the Go benchmark
// format (golang.org/x/perf/benchfmt), and their vocabulary.
//
// A Writer writes samples with the machine's configuration, then on Close
// unit metadata decided from the samples and a closing line ("#
// certbench-end: N results"); Merge joins files. Keys that differ between
// samples or sides of one comparison are comment lines ("# round: 3"),
// which benchstat ignores and Read reads as configuration.
//
// Load and Read stream a file into a Set of sorted values per benchmark
// and configuration, checking every value and naming file and line in
// errors. Names (ChurnName, NameValue), units (Info) and the one number
// format for people (Format) complete it. The runner writes through it,
// the analyses read through it; it imports neither.
package results

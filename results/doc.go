// Package results owns the result files certbench writes and reads, in
// the Go benchmark format (golang.org/x/perf/benchfmt), and their
// vocabulary.
//
// Writing: a Writer writes samples (bench.Sample is a Sample) with the
// machine's configuration lines, then on Close the unit metadata lines,
// decided from the samples, and a closing line, "# certbench-end: N
// results". Merge joins files into one, recomputing the unit lines. The
// keys that differ between the samples of one comparison or between the
// builds of base and head (RoundKey, the scenario hashes, VersionKey,
// RevisionKey) are written as comment lines, "# round: 3", which
// benchstat ignores and Read reads back as configuration.
//
// Reading: Load and Read stream a file into a Set, keeping per benchmark
// and configuration (a Series) the sorted values of each unit and the
// round of each sample, never the result lines: less memory than the
// file. They check every value and name file and line in
// errors; a certbench file without its closing line reads with a
// warning (MissingEndWarning).
//
// Vocabulary: benchmark names and their keys (ChurnName, NameValue), the
// units certbench writes with their direction and exactness (Info), and
// the one number format for people (Format) that every renderer uses;
// result files hold plain decimals.
//
// The runner (package bench) writes through it and the analysis packages
// (compare, growth, gate, report) read through it; it imports nothing of
// either.
package results

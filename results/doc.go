// Package results is the vocabulary of the result files certbench writes
// and reads: how benchmarks are named, which units they carry, which way
// each unit is better and which may be exact. The runner (package bench)
// writes by it; the analysis packages (compare, growth, gate, report) read
// by it; it imports nothing of either, so both sides can share it without
// an arrow running against the flow.
package results

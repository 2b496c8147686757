// Package bench runs scenarios against stores and measures them.
//
// One sample is a fixed number of ops (the scenario's Ops) applied to a
// fresh store that first received the workload's initial configuration
// untimed. For each sample it records, as the testing package does, wall
// time per op (sec/op), bytes and allocations per op from the process-wide
// allocation counters (B/op, allocs/op), and, outside the timed region, the
// live heap the store holds after a GC (retained-B and retained-B/cert) and
// the goroutines it left running (goroutines). Fixing the op count makes B/op
// and allocs/op comparable run to run.
//
// [Run] interleaves stores and samples (store A, store B, A, B, ...) so that
// drift in the machine affects every store alike, and hands each sample to a
// callback; [Writer] writes samples in the standard Go benchmark format,
// named BenchmarkChurn/scenario=NAME/store=NAME-GOMAXPROCS, so benchstat and
// package compare read them directly. [Benchmark] runs the same code under
// go test -bench.
//
// HandshakeUnderChurn scenarios measure lookups made from GOMAXPROCS
// goroutines while refreshes run back to back, bounded by the scenario's
// Ops (lookups) and Duration; besides the standard metrics they record
// lookup latency percentiles (p50-ns, p99-ns, p999-ns) and refreshes/s
// (see measureChurn in churn.go for how each is measured).
package bench

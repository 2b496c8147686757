// Package bench runs scenarios against stores and measures them.
//
// One sample is a fixed number of ops (the scenario's Ops) applied to a
// fresh store that first received the workload's initial configuration
// untimed. For each sample it records wall time per op (sec/op), bytes and
// allocations per op from the process-wide allocation counters (B/op,
// allocs/op: the exact ratio of the window's totals to the ops, not
// truncated as the testing package does, so 0 means nothing was allocated
// in the whole window), and, outside the timed region, the live heap the
// store holds after a GC (retained-B and retained-B/cert, never negative)
// and the goroutines it left running (goroutines: those carrying the
// sample's profiler label, SampleLabel, which the store's goroutines
// inherit). Fixing the op count makes B/op and allocs/op comparable run to
// run.
//
// [Run] interleaves stores and samples (store A, store B, A, B, ...) so that
// drift in the machine affects every store alike, and hands each sample to a
// callback, dropping the sample in flight when its context is cancelled;
// a results.Writer writes them in the standard Go benchmark format, named
// BenchmarkChurn/scenario=NAME/store=NAME-GOMAXPROCS (package results owns
// the result files: writing, merging, reading). [Benchmark] runs the same
// code under go test -bench.
//
// The store under test is the code being changed, so Run survives it: each
// sample runs on a goroutine of its own under a watchdog
// (Options.SampleTimeout), and a panic in any call the harness makes into
// the store, on any of the sample's goroutines, is recovered. Either ends
// the sample in a [StoreFault] naming the store, scenario, sample and call,
// with the stack (after a timeout every goroutine's, with their profiler
// labels); Run reports it to Options.Fault, emits nothing of the sample,
// and goes on with the other stores (after a panic) or measures nothing
// more (after a hang: the stuck goroutine cannot be stopped).
// results.Writer records a fault as go test records a failed benchmark
// (results.Writer.WriteFailure).
//
// HandshakeUnderChurn scenarios measure lookups made from GOMAXPROCS
// goroutines while refreshes run back to back, bounded by the scenario's
// Ops (lookups) and Duration; besides the standard metrics they record
// lookup latency percentiles (p50-ns, p99-ns, p999-ns) and refreshes/s
// (see measureChurn in churn.go for how each is measured).
//
// With Options.Instrument set to [Simulate], the timed ops of each sample
// run in a window of Valgrind's callgrind instead of under the clock, and
// the sample records instructions/op (est-cycles/op with the cache
// simulation) beside the allocation counts, retained heap and goroutines;
// the process must run under callgrind as "certbench run --instrument
// simulate" starts it. How the window keeps the collector, the scheduler
// and the runtime's background work out is on simulator in simulate.go.
//
// [HeapProfile] runs one sample in a separate, untimed pass with every
// allocation recorded and returns a heap profile of it, stacks starting
// at the store ("certbench profile" writes these files).
package bench

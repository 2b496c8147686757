// Package bench runs scenarios against stores and measures them.
//
// A sample is a scenario's Ops applied to a fresh store that first got the
// workload's initial configuration untimed (a lookup workload's store then
// looks each hello up once, untimed, so that its caches are as warm as
// over the timed lookups). It records sec/op, B/op and
// allocs/op (exact ratios of the window's totals, not truncated as the
// testing package does, so 0 means nothing was allocated), and, untimed,
// the heap the store retains after a GC (retained-B, retained-B/cert) and
// the goroutines it left running (those labelled SampleLabel). A fixed op
// count makes B/op and allocs/op comparable run to run.
//
// [Run] interleaves stores (A, B, A, B, ...) so that machine drift affects
// every store alike, and hands each sample to a callback; [Benchmark] runs
// the same code under go test -bench; [Sweep] runs scenario families over
// pool sizes. Run survives the store under test: a sample runs under a
// watchdog (Options.SampleTimeout) and a panic in any store call is
// recovered; either ends the sample in a [StoreFault] (see fault.go).
//
// HandshakeUnderChurn scenarios measure lookups from GOMAXPROCS goroutines
// while refreshes run, and add latency percentiles and refreshes/s (see
// churn.go). With Options.Instrument set to [Simulate] the timed ops run
// in a callgrind window and record instructions/op (see simulate.go).
// Held scenarios hold earlier generations through simulated connections
// and add what each held generation keeps and what is left once they let
// go (see held.go).
// [HeapProfile] captures a heap profile of one sample's ops.
package bench

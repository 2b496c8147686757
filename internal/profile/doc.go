// Package profile captures heap profiles of a store running a scenario,
// reads the top allocation sites out of them and compares two of them.
//
// # Capture
//
// [Capture] runs one sample the way package bench measures it (a new store,
// Configs[0] applied, then bench.Apply for the ops; fresh-store workloads
// start from no store) in a separate pass with
// runtime.MemProfileRate set to 1, so that every allocation is recorded;
// the rate is restored afterwards and timed runs never see it. It takes
// three heap snapshots, each after two GC cycles (the runtime publishes the
// heap profile as of the last completed cycle):
//
//	S0: before the store exists (the workload's pool and configurations are live)
//	S1: after the store applied Configs[0] (fresh-store workloads: no store yet)
//	S2: after the ops
//
// and returns one profile with the four sample types of a Go heap profile:
//
//	alloc_objects, alloc_space  S2 - S1: what the measured ops allocated
//	inuse_objects, inuse_space  S2 - S0: what the store holds afterwards
//
// alloc_space adds up to what the runtime's counters (and so bench's B/op)
// say the ops allocated. alloc_objects can be a few percent lower than
// allocs/op: the runtime records tiny pointer-free allocations (under 16
// bytes) once per 16-byte block they share, as MemStats.TotalAlloc does,
// while MemStats.Mallocs counts each (the race detector turns the tiny
// allocator off, and then they agree exactly). Capture records the
// counters' figures over the same ops in the profile as a cross-check
// (Info.MemBytes, Info.MemObjects). inuse_space adds up to the same
// figure as bench's retained-B. Two kinds of samples are dropped: the
// profiler's own allocations, and the runtime's allocation of new OS
// threads (runtime.allocm), which the scheduler and the GC make when they
// please and which are never freed. Stacks are cut below the harness so
// that they start at the store (its factory, Update or Certificate, or a
// goroutine it started). The op count, scenario and store are recorded as a profile
// comment ("certbench: scenario=… store=… ops=N", see [InfoOf]), so figures
// read back from a file can be divided per op. The default sample type is
// alloc_space; "go tool pprof -sample_index=inuse_space FILE" shows the
// retained heap. Files are named by [FileName]:
// "<scenario>.<store>.pb.gz".
//
// # Top sites
//
// [TopSites] and [Summarize] aggregate a sample type per function: flat
// (the function is the innermost frame, it allocated the memory itself) and
// cumulative (the function is anywhere on the stack, counted once per
// sample even when recursive), per op or in total. Function names are
// shortened by [ShortName]: package-qualified, certbench's own module path
// dropped ("crypto/rsa.GenerateKey", "stores/naive.build").
//
// # Diff
//
// [Compare] says, per function, what grew and what shrank between two
// profiles, each divided by its own op count; [Comparison.Grew] names the
// sites that grew, which is what a regression gate reports. [Diff] builds
// the difference as a profile, as pprof -diff_base does. Profiles with
// different sample types are refused with a [*SampleTypeError].
//
// # Rendering
//
// The statistics are plain values; [WriteSummaries], [WriteComparisons]
// and [WriteIndex] render them as text, markdown or JSON.
package profile

// Package profile reads pprof profiles, ranks their sites and compares
// two of them. It runs nothing: certbench captures heap profiles with
// bench.HeapProfile ("certbench profile"), and the gate asks for grown
// sites through package blame.
//
// Every analysis works on one sample type of a profile, whatever it
// counts (bytes or objects allocated, or any other cost), per op when the
// profile records its op count.
//
// # Heap profiles certbench writes
//
// A captured heap profile has the four sample types of a Go heap profile:
//
//	alloc_objects, alloc_space  what the measured ops allocated
//	inuse_objects, inuse_space  what the store holds afterwards
//
// Its stacks start at the store. alloc_space adds up to bench's B/op over
// the same ops. alloc_objects can be a few percent lower than allocs/op:
// the runtime records tiny pointer-free allocations (under 16 bytes) once
// per 16-byte block they share, while MemStats.Mallocs counts each (the
// race detector turns the tiny allocator off, and then they agree). The
// scenario, store, op count and the runtime's own counters over the same
// ops are recorded as a profile comment ("certbench: scenario=… store=…
// ops=N …", see [Info], [InfoOf], [SetInfo]). Files are named by
// [FileName]: "<scenario>.<store>.pb.gz"; [Dirs] are a base and a head
// folder of them.
//
// # Top sites
//
// [TopSites] and [Summarize] aggregate a sample type per function: flat
// (the function is the innermost frame) and cumulative (the function is
// anywhere on the stack, counted once per sample even when recursive),
// per op or in total. Function names are shortened by [ShortName]:
// package-qualified, certbench's own module path dropped
// ("crypto/rsa.GenerateKey", "stores/naive.build").
//
// # Diff
//
// [Compare] says, per function, what grew and what shrank between two
// profiles, each divided by its own op count. [Diff] builds the
// difference as a profile, as pprof -diff_base does. Profiles with
// different sample types are refused with a [*SampleTypeError].
//
// # Blame at the store boundary
//
// [CompareBoundary] charges every sample to the deepest frame in the
// store's packages ([StorePackages]), so that what moved between library
// functions cancels and a store line that grew is where the store's own
// code changed.
//
// # Rendering
//
// The statistics are plain values; [WriteSummaries], [WriteComparisons]
// and [WriteIndex] render them as text, markdown or JSON.
package profile

// Package profile reads pprof profiles, ranks their sites and compares
// two of them. It runs nothing: certbench captures heap profiles with
// bench.HeapProfile, and the gate asks for grown sites through package
// blame.
//
// Every analysis works on one sample type, per op when the profile records
// its op count ([Info], [SetInfo], [InfoOf]). In a profile certbench
// captured, stacks start at the store, alloc_* values are what the
// measured ops allocated and inuse_* what the store holds afterwards;
// alloc_objects can be a little lower than allocs/op, as the runtime
// records tiny pointer-free allocations once per 16-byte block.
//
// [TopSites] and [Summarize] aggregate per function, flat and cumulative;
// [Changes] says per function what grew and shrank, as [Site] values, and
// [Diff] builds the difference as pprof -diff_base does; [CompareBoundary]
// charges every sample to the deepest store frame, so that a store line
// that grew is where the store's own code changed. [WriteSummaries],
// [WriteComparisons] and [WriteIndex] render them.
package cost

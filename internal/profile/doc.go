// Package profile reads pprof profiles, ranks their sites and compares
// two of them. It runs nothing: certbench captures heap profiles with
// bench.HeapProfile ("certbench profile"), and the gate asks for grown
// sites through package blame.
//
// Every analysis works on one sample type of a profile (bytes or objects
// allocated, or any other cost), per op when the profile records its op
// count: a profile certbench captured has its stacks start at the store,
// alloc_* values for what the measured ops allocated and inuse_* values
// for what the store holds afterwards, and the scenario, store and op
// count as a comment ([Info], [InfoOf], [SetInfo]). alloc_objects can be
// a little lower than bench's allocs/op: the runtime records tiny
// pointer-free allocations once per 16-byte block they share. Files are
// named by [FileName].
//
//   - [TopSites] and [Summarize] aggregate a sample type per function, flat
//     and cumulative; [ShortName] shortens function names.
//   - [Compare] says, per function, what grew and what shrank between two
//     profiles, each per its own op count, as [Site] values; [Diff] builds
//     the difference as a profile, as pprof -diff_base does.
//   - [CompareBoundary] charges every sample to the deepest frame in the
//     store's packages ([StorePackages]), so that what moved between
//     library functions cancels and a store line that grew is where the
//     store's own code changed.
//   - [WriteSummaries], [WriteComparisons] and [WriteIndex] render the
//     results as internal/table values (text, Markdown) or JSON.
package profile

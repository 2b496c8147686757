// Package sweep measures how a store's costs grow with the number of
// certificates it holds, and fits the growth.
//
// # Running a sweep
//
// [Run] takes a scenario family (scenarios.Families: renew-1, noop,
// rotate-10, startup, lookup) and a list of pool sizes, makes the family's scenario
// at each size (renew-1-of-1000, noop-100000, ...), and measures it on each
// store through bench.Run (stores interleaved within each round of
// samples), naming the samples with results.SweepName. Sizes run in
// ascending order, so that the small sizes give early results and an
// estimate of what the large ones will cost.
//
// Samples are named
//
//	BenchmarkSweep/family=renew-1/size=1000/scenario=renew-1-of-1000/store=optimized-2
//
// so that benchstat can project on /size ("benchstat -filter
// /family:renew-1 -row /size -col /store sweep.txt"), and certbench
// compare, which groups by /scenario, keeps sizes apart.
//
// # Keeping large sizes affordable
//
// A store that is quadratic in the pool (the naive store's duplicate scan)
// takes about a minute per refresh at 100,000 certificates, so a sweep
// scales its effort down with size:
//
//   - ops per sample: scenarios.SweepOps, 10 up to 3,000 certificates,
//     then 30,000/size (3 at 10,000, 1 at 100,000);
//   - samples per store and size: [SampleCount], Options.Count up to
//     10,000 certificates, then Count*10,000/size but at least 3 (or Count
//     when it is less), so that every size has a median;
//   - Options.MaxSize skips a store above a size;
//   - Options.Budget bounds the wall time of one store at one size. Before
//     a size, the cost of a sample is extrapolated from the previous size
//     (its measured wall time per sample, scaled by the growth of sec/op
//     between the last two sizes, at least linear, and by the ops);
//     when the planned samples do not fit the budget, fewer are taken, or,
//     when not even one fits, the size is skipped. While running, a store
//     that has used up its budget takes no further sample at that size.
//     Every reduction and skip is reported in Result.Notes.
//
// Pools come from certgen.CachedPool, so pools of 5,000 certificates or
// more are read from the on-disk cache after their first generation.
//
// # Fitting growth
//
// Package growth reads sweep results (from files, or from Run's samples)
// and fits how each cost grows with the pool.
package sweep

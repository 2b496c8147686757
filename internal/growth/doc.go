// Package growth measures and fits how a store's costs grow with the
// number of certificates it holds.
//
// [Sweep] makes each scenario family's scenario (scenarios.Families) at
// each pool size, in ascending order so that small sizes give early
// results and an estimate of what the large ones will cost, and measures
// it on each store through bench.Run, stores interleaved. Samples are named
//
//	BenchmarkSweep/family=renew-1/size=1000/scenario=renew-1-of-1000/store=optimized-2
//
// so that benchstat can project on /size ("benchstat -filter
// /family:renew-1 -row /size -col /store sweep.txt") and certbench compare,
// which groups by /scenario, keeps sizes apart.
//
// A store quadratic in the pool is slow at the largest sizes, so a sweep
// scales its effort down with size: fewer ops per sample
// (scenarios.SweepOps), fewer samples ([SampleCount]), SweepOptions.MaxSize
// per store, and SweepOptions.Budget per store and size. Before a size,
// the cost of a sample is extrapolated from the previous sizes (see
// history.estimate); when the planned samples do not fit the budget fewer
// are taken, or the size is skipped, and a store that uses up its budget
// while running takes no further sample there. Every reduction and skip is
// in SweepResult.Notes.
//
// [Curves] reads such results back and gives, per family, store and unit,
// the median and 95% confidence interval at each size (from package
// compare) and a power-law fit: the exponent k of value ≈ c·N^k
// ([FitPower]); k ≈ 1 is linear, 2 quadratic, 0 constant. Because
// constant costs flatten the small sizes, each curve also carries the
// local exponent between its two largest sizes. [WriteTable] prints the
// medians and exponents.
package growth

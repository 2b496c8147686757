// Package growth fits how a store's costs grow with the number of
// certificates it holds, from the results of certbench sweep. It reads
// result files only (through package compare) and knows nothing of the
// runner.
//
// [Curves] reads sweep results (files written by certbench sweep, read
// with compare.Load) and gives, per family, store and unit, the median and 95% confidence
// interval at each size (from package compare) and a power-law fit: the
// least-squares slope of log(median) against log(size), the exponent k in
// value ≈ c·N^k ([FitPower]). k ≈ 1 is linear growth, k ≈ 2 quadratic, k
// ≈ 0 a cost that does not depend on the pool. Because constant costs
// (such as generating a default certificate per refresh) flatten the small
// sizes, each curve also carries the local exponent between its two
// largest sizes. [WriteTable] prints the medians and exponents.
package growth

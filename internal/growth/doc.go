// Package growth fits how a store's costs grow with the number of
// certificates it holds, from the results of certbench sweep (it reads
// results only, never runs anything).
//
// [Curves] gives, per family, store and unit, the median and 95%
// confidence interval at each size (from package compare) and a power-law
// fit: the exponent k of value ≈ c·N^k ([FitPower]); k ≈ 1 is linear, 2
// quadratic, 0 constant. Because constant costs flatten the small sizes,
// each curve also carries the local exponent between its two largest
// sizes. [WriteTable] prints the medians and exponents.
package growth

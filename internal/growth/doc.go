// Package growth reads sweep results (bench.Sweep; names with /family=
// and /size=) and gives, per family, store and unit, the median and 95%
// confidence interval at each pool size (from package compare) and a
// power-law fit value ≈ c·N^k ([FitPower]; k ≈ 1 linear, 2 quadratic, 0
// constant). Constant costs flatten the small sizes, so each curve also
// carries the local exponent between its two largest sizes.
package growth

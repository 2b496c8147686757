package gate

import (
	"math"
	"slices"
	"sort"
)

// The Wilcoxon signed-rank test and the Hodges-Lehmann estimate with its
// distribution-free confidence interval, for paired rounds. Neither
// golang.org/x/perf/benchmath nor github.com/aclements/go-moremath/stats
// has a signed-rank test (only the U test and t tests), so it is here.
//
// Input: one difference per pair, d_i = log(head_i / base_i) (see
// pairedTest).
//
//   - Zeros (d_i = 0, the same value on both sides of a round) carry no
//     sign and are dropped before ranking (Wilcoxon's method, R's
//     default); n is the number of non-zero differences.
//   - Ties among |d_i| get the mean of the ranks they span (midranks).
//   - The p-value is exact for n <= exactSignedRankN: the permutation
//     distribution of W+ (the sum of the ranks of positive differences)
//     over the 2^n equally likely sign assignments, computed by dynamic
//     programming over doubled ranks (midranks are multiples of 1/2, so
//     doubled they are integers). With ties it is the exact conditional
//     distribution given the tied ranks. Beyond that, the normal
//     approximation with the tie correction of the variance and a
//     continuity correction.
//   - The test is two-sided: p = min(1, 2 min(P(W+ <= w), P(W+ >= w))).
//     The smallest p it can give is 2/2^n (all signs alike): 5 pairs
//     cannot reach p < 0.05, 6 can (0.031).

// exactSignedRankN is the largest number of non-zero differences for
// which the p-value is exact: 2^50 sign assignments still count exactly
// in a float64.
const exactSignedRankN = 50

// signedRank is the outcome of a signed-rank test.
type signedRank struct {
	// N is the number of non-zero differences; Zeros the dropped ones.
	N, Zeros int
	// WPlus is the sum of the (mid)ranks of the positive differences.
	WPlus float64
	// P is the two-sided p-value (1 when N is 0).
	P float64
	// Exact reports whether P is exact rather than the normal
	// approximation.
	Exact bool
}

// signedRankMinP returns the smallest two-sided p-value the signed-rank
// test can give with n non-zero differences: 2/2^n.
func signedRankMinP(n int) float64 {
	return math.Min(1, math.Ldexp(2, -n))
}

// signedRankTest runs the two-sided Wilcoxon signed-rank test of the
// hypothesis that the differences d are symmetric about 0.
func signedRankTest(d []float64) signedRank {
	var nz []float64
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	r := signedRank{N: len(nz), Zeros: len(d) - len(nz), P: 1, Exact: true}
	if r.N == 0 {
		return r
	}
	ranks, ties := absRanks(nz)
	for i, x := range nz {
		if x > 0 {
			r.WPlus += ranks[i]
		}
	}
	n := float64(r.N)
	if r.N <= exactSignedRankN {
		// counts[s]: sign assignments whose positive doubled ranks sum to s.
		total := int(math.Round(n * (n + 1))) // sum of doubled ranks
		counts := make([]float64, total+1)
		counts[0] = 1
		top := 0
		for _, rk := range ranks {
			r2 := int(math.Round(2 * rk))
			for s := top; s >= 0; s-- {
				if counts[s] != 0 {
					counts[s+r2] += counts[s]
				}
			}
			top += r2
		}
		w2 := int(math.Round(2 * r.WPlus))
		var lower, upper float64
		for s, c := range counts {
			if s <= w2 {
				lower += c
			}
			if s >= w2 {
				upper += c
			}
		}
		r.P = math.Min(1, 2*math.Min(lower, upper)/math.Ldexp(1, r.N))
		return r
	}
	r.Exact = false
	mean := n * (n + 1) / 4
	variance := n*(n+1)*(2*n+1)/24 - ties/48
	if variance <= 0 {
		return r
	}
	z := (math.Abs(r.WPlus-mean) - 0.5) / math.Sqrt(variance)
	if z < 0 {
		z = 0
	}
	r.P = math.Min(1, math.Erfc(z/math.Sqrt2))
	return r
}

// absRanks returns the midranks of |x| (1 for the smallest) and the tie
// term sum(t^3 - t) over groups of t tied values.
func absRanks(x []float64) (ranks []float64, ties float64) {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return math.Abs(x[idx[a]]) < math.Abs(x[idx[b]]) })
	ranks = make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && math.Abs(x[idx[j+1]]) == math.Abs(x[idx[i]]) {
			j++
		}
		mid := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = mid
		}
		t := float64(j - i + 1)
		ties += t*t*t - t
		i = j + 1
	}
	return ranks, ties
}

// hodgesLehmann returns the Hodges-Lehmann estimate of the centre of the
// differences d (the median of the n(n+1)/2 Walsh averages (d_i+d_j)/2,
// i <= j, zeros included) and the distribution-free confidence interval
// of level at least confidence around it: [A_(c+1), A_(M-c)] of the M
// sorted Walsh averages, where c is the largest value with
// P(W+ <= c) <= (1-confidence)/2 under the no-tie null distribution of
// the signed-rank statistic for n (exact up to exactSignedRankN, else
// the normal approximation). With too few differences for that level
// (c < 0: 5 or fewer at 95%) the interval is (-Inf, +Inf).
func hodgesLehmann(d []float64, confidence float64) (est, lo, hi float64) {
	n := len(d)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	// The Walsh averages are not materialized (n(n+1)/2 of them: 58 MB
	// for 3,800 rounds); walshAt selects each order statistic in O(n)
	// memory.
	sorted := slices.Sorted(slices.Values(d))
	m := n * (n + 1) / 2
	if m%2 == 1 {
		est = walshAt(sorted, m/2)
	} else {
		est = (walshAt(sorted, m/2-1) + walshAt(sorted, m/2)) / 2
	}
	c := signedRankCritical(n, (1-confidence)/2)
	if c < 0 {
		return est, math.Inf(-1), math.Inf(1)
	}
	return est, walshAt(sorted, c), walshAt(sorted, m-1-c)
}

// walshAt returns the k-th smallest (from 0) of the Walsh averages
// (d_i+d_j)/2, i <= j, of sorted, finite d: the smallest float64 v with
// more than k averages at most v, found by bisecting the float64 values
// in order (at most 64 steps), each step counting in O(n).
func walshAt(d []float64, k int) float64 {
	atMost := func(v float64) int {
		count, j := 0, len(d)-1
		for i := range d {
			for j >= i && (d[i]+d[j])/2 > v {
				j--
			}
			if j < i {
				break
			}
			count += j - i + 1
		}
		return count
	}
	lo, hi := orderedBits(d[0]), orderedBits(d[len(d)-1]) // the smallest and largest averages
	for lo < hi {
		mid := lo + (hi-lo)/2
		if atMost(fromOrderedBits(mid)) > k {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return fromOrderedBits(lo)
}

// orderedBits maps a float64 to a uint64 in the same order.
func orderedBits(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// fromOrderedBits is the inverse of orderedBits.
func fromOrderedBits(u uint64) float64 {
	if u>>63 == 1 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// signedRankCritical returns the largest c with P(W+ <= c) <= tail for n
// untied differences, or -1 if even P(W+ <= 0) = 2^-n exceeds tail.
func signedRankCritical(n int, tail float64) int {
	if n <= exactSignedRankN {
		total := n * (n + 1) / 2
		counts := make([]float64, total+1)
		counts[0] = 1
		top := 0
		for r := 1; r <= n; r++ {
			for s := top; s >= 0; s-- {
				counts[s+r] += counts[s]
			}
			top += r
		}
		all := math.Ldexp(1, n)
		cum := 0.0
		for s, k := range counts {
			cum += k
			if cum/all > tail {
				return s - 1
			}
		}
		return total
	}
	fn := float64(n)
	mean := fn * (fn + 1) / 4
	sd := math.Sqrt(fn * (fn + 1) * (2*fn + 1) / 24)
	z := math.Sqrt2 * math.Erfinv(1-2*tail) // the upper tail quantile
	return int(math.Floor(mean - z*sd - 0.5))
}

package gate

import (
	"cmp"
	"math"
	"slices"
)

// The Wilcoxon signed-rank test and the Hodges-Lehmann estimate, for
// paired rounds: neither benchmath nor go-moremath has them. The input
// is one log ratio per pair. Zeros are dropped, ties midranked; the
// p-value is exact (a count over doubled ranks, which are integers) up
// to exactSignedRankN, else the normal approximation with tie and
// continuity corrections.

// exactSignedRankN is the largest n with an exact p-value: 2^50 still
// counts exactly in a float64.
const exactSignedRankN = 50

// signedRank is the outcome of a signed-rank test: N non-zero
// differences (Zeros dropped), W+, the two-sided P (1 when N is 0), and
// whether P is exact.
type signedRank struct {
	N, Zeros int
	WPlus    float64
	P        float64
	Exact    bool
}

// signedRankMinP returns the smallest two-sided p-value the signed-rank
// test can give with n non-zero differences: 2/2^n.
func signedRankMinP(n int) float64 {
	return math.Min(1, math.Ldexp(2, -n))
}

// signedRankTest tests that the differences d are symmetric about 0.
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
		counts := signSums(ranks)
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
	z := max(0, (math.Abs(r.WPlus-mean)-0.5)/math.Sqrt(variance))
	r.P = math.Min(1, math.Erfc(z/math.Sqrt2))
	return r
}

// absRanks returns the midranks of |x| and the tie term sum(t^3 - t).
func absRanks(x []float64) (ranks []float64, ties float64) {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(x[a]), math.Abs(x[b])) })
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

// hodgesLehmann returns the median of the Walsh averages of d and its
// distribution-free confidence interval [A_(c+1), A_(M-c)], c from
// signedRankCritical; (-Inf, +Inf) with too few differences.
func hodgesLehmann(d []float64, confidence float64) (est, lo, hi float64) {
	n := len(d)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	// walshAt selects order statistics without the n(n+1)/2 averages.
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

// walshAt returns the k-th smallest (from 0) Walsh average (d_i+d_j)/2,
// i <= j, of sorted, finite d, bisecting the float64s in order (at most
// 64 steps of O(n)).
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
		ranks := make([]float64, n)
		for i := range ranks {
			ranks[i] = float64(i + 1)
		}
		counts := signSums(ranks) // by doubled sums: odd ones count 0
		all := math.Ldexp(1, n)
		cum := 0.0
		for s, k := range counts {
			cum += k
			if cum/all > tail {
				return s/2 - 1
			}
		}
		return (len(counts) - 1) / 2
	}
	fn := float64(n)
	mean := fn * (fn + 1) / 4
	sd := math.Sqrt(fn * (fn + 1) * (2*fn + 1) / 24)
	z := math.Sqrt2 * math.Erfinv(1-2*tail) // the upper tail quantile
	return int(math.Floor(mean - z*sd - 0.5))
}

// signSums returns counts[s]: how many sign assignments to ranks give
// positive ranks whose doubled sum is s (doubled midranks are integers).
func signSums(ranks []float64) []float64 {
	counts := []float64{1}
	for _, rk := range ranks {
		r2 := int(math.Round(2 * rk))
		counts = append(counts, make([]float64, r2)...)
		for s := len(counts) - 1 - r2; s >= 0; s-- {
			counts[s+r2] += counts[s]
		}
	}
	return counts
}

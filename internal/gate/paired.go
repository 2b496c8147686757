package gate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchproc"
)

// TestChoice says which statistical test compares samples that are not
// exact: the policy file's "test" field and gate's --test flag.
type TestChoice string

// The test choices.
const (
	// AutoTest, the default, pairs a benchmark's samples by round when
	// they pair one-to-one (see PairedTest) and the pairs can reach
	// significance, and uses the U test otherwise.
	AutoTest TestChoice = "auto"
	// PairedTest compares the rounds of an interleaved run pair by pair:
	// the samples of base and head that carry the same "round" file
	// configuration (certbench run --round N) make a pair, and a
	// Wilcoxon signed-rank test of the per-round log ratios head/base
	// says whether head differs. Drift of the machine between rounds
	// moves both sides of a pair and cancels out, where the U test
	// counts it as noise. A benchmark whose samples do not pair (no
	// round keys, a round on one side only or twice on a side) falls
	// back to the U test, with a note.
	PairedTest TestChoice = "paired"
	// UnpairedTest always uses the Mann-Whitney U test, as if every
	// sample were independent.
	UnpairedTest TestChoice = "unpaired"
)

// TestChoices lists the valid test choices.
var TestChoices = []TestChoice{AutoTest, PairedTest, UnpairedTest}

// ParseTestChoice returns the TestChoice named s.
func ParseTestChoice(s string) (TestChoice, error) {
	if c := TestChoice(s); slices.Contains(TestChoices, c) {
		return c, nil
	}
	return "", fmt.Errorf("test %q: want auto, paired or unpaired", s)
}

// PairConfidence is the level of the confidence interval of a paired
// finding's ratio (Finding.RatioLow, RatioHigh).
const PairConfidence = 0.95

// benchUnit names one metric of one benchmark.
type benchUnit struct{ bench, unit string }

// sideRounds holds one side's values by benchmark, unit and round.
type sideRounds struct {
	// byRound maps a metric to its values by round (several if a round
	// repeats).
	byRound map[benchUnit]map[string][]float64
	// unrounded counts a metric's values that have no round.
	unrounded map[benchUnit]int
}

// roundsOf indexes the values of rs by benchmark (as keyParts names the
// rows of projection rows), unit and the round file configuration.
func roundsOf(rs *compare.Results, rows string) sideRounds {
	s := sideRounds{byRound: map[benchUnit]map[string][]float64{}, unrounded: map[benchUnit]int{}}
	var parser benchproc.ProjectionParser
	proj, err := parser.Parse(rows, nil)
	if err != nil {
		return s // cannot happen: the projections are constants
	}
	for _, r := range rs.Results {
		name, _, _ := keyParts(proj.Project(r))
		round := r.GetConfig(results.RoundKey)
		for _, v := range r.Values {
			k := benchUnit{name, v.Unit}
			if round == "" {
				s.unrounded[k]++
				continue
			}
			m := s.byRound[k]
			if m == nil {
				m = map[string][]float64{}
				s.byRound[k] = m
			}
			m[round] = append(m[round], v.Value)
		}
	}
	return s
}

// pairs holds both sides' rounds.
type pairs struct{ base, head sideRounds }

// A pairing is the result of matching a metric's rounds.
type pairing struct {
	// base and head are the paired values, in round order.
	base, head []float64
	// why says why there are no pairs ("" if there are).
	why string
}

// pair matches the rounds of benchmark bench in unit; baseN and headN
// are the sample counts the comparison has, which the pairs must cover.
func (ps pairs) pair(bench, unit string, baseN, headN int) pairing {
	k := benchUnit{bench, unit}
	b, h := ps.base.byRound[k], ps.head.byRound[k]
	switch {
	case len(b) == 0 && len(h) == 0:
		return pairing{why: "no round keys"}
	case len(b) == 0 || ps.base.unrounded[k] > 0:
		return pairing{why: "base samples without a round"}
	case len(h) == 0 || ps.head.unrounded[k] > 0:
		return pairing{why: "head samples without a round"}
	}
	// In round order, so that the note names the first problem.
	rounds := slices.SortedFunc(maps.Keys(b), compareRounds)
	for _, side := range []struct {
		name string
		m    map[string][]float64
	}{{"base", b}, {"head", h}} {
		for _, r := range slices.SortedFunc(maps.Keys(side.m), compareRounds) {
			if n := len(side.m[r]); n != 1 {
				return pairing{why: fmt.Sprintf("round %s has %d %s samples", r, n, side.name)}
			}
		}
	}
	for _, r := range rounds {
		if len(h[r]) == 0 {
			return pairing{why: fmt.Sprintf("round %s only in base", r)}
		}
	}
	for _, r := range slices.SortedFunc(maps.Keys(h), compareRounds) {
		if len(b[r]) == 0 {
			return pairing{why: fmt.Sprintf("round %s only in head", r)}
		}
	}
	if len(rounds) != baseN || len(rounds) != headN {
		return pairing{why: fmt.Sprintf("%d rounds for %d/%d samples", len(rounds), baseN, headN)}
	}
	p := pairing{}
	for _, r := range rounds {
		p.base = append(p.base, b[r][0])
		p.head = append(p.head, h[r][0])
	}
	return p
}

// compareRounds orders rounds numerically when they are numbers.
func compareRounds(a, b string) int {
	x, errx := strconv.ParseFloat(a, 64)
	y, erry := strconv.ParseFloat(b, 64)
	if errx == nil && erry == nil && x != y {
		if x < y {
			return -1
		}
		return 1
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// pairedResult is what the paired analysis of one metric found.
type pairedResult struct {
	test signedRank
	// ratio is exp(Hodges-Lehmann estimate of the log ratios), lo and hi
	// its PairConfidence interval.
	ratio, lo, hi float64
}

// pairedTest tests the pairs: the log ratios head/base by the signed-rank
// test, and their Hodges-Lehmann estimate. It fails (ok false) if a value
// is not positive, since a ratio needs both.
func pairedTest(p pairing) (r pairedResult, ok bool) {
	d := make([]float64, len(p.base))
	for i := range p.base {
		if !(p.base[i] > 0 && p.head[i] > 0) || math.IsInf(p.base[i], 0) || math.IsInf(p.head[i], 0) {
			return r, false
		}
		d[i] = math.Log(p.head[i] / p.base[i])
	}
	r.test = signedRankTest(d)
	est, lo, hi := hodgesLehmann(d, PairConfidence)
	r.ratio, r.lo, r.hi = math.Exp(est), math.Exp(lo), math.Exp(hi)
	return r, true
}

// choose picks the test of a finding that measure left to be tested (a
// U test p-value set): the paired test if p.Test and the rounds allow,
// else the U test, noting why when pairing was wanted.
func (f *Finding) choose(ps pairs, p Policy) {
	f.uP = f.P
	if p.Test == UnpairedTest {
		return
	}
	pr := ps.pair(f.Benchmark, f.Unit, f.BaseN, f.HeadN)
	if pr.why == "no round keys" && p.Test == AutoTest {
		return // files of an unpaired protocol: nothing to note
	}
	if pr.why != "" {
		f.pairNote = "unpaired: " + pr.why
		return
	}
	res, ok := pairedTest(pr)
	if !ok {
		f.pairNote = "unpaired: values not all positive, no ratio"
		return
	}
	if p.Test == AutoTest && res.test.N > 0 && signedRankMinP(res.test.N) >= p.Alpha && minP(f.BaseN, f.HeadN) < p.Alpha {
		f.pairNote = fmt.Sprintf("unpaired: %d non-zero pairs cannot reach p < %g", res.test.N, p.Alpha)
		return
	}
	f.setPaired(res)
}

// setPaired makes f a paired finding.
func (f *Finding) setPaired(res pairedResult) {
	f.Method = SignedRank
	f.P = res.test.P
	f.Pairs, f.nonZero = res.test.N+res.test.Zeros, res.test.N
	f.Ratio, f.RatioLow, f.RatioHigh = res.ratio, res.lo, res.hi
	f.pairNote = ""
	if !res.test.Exact {
		f.pairNote = "normal approximation"
	}
}

// unpair makes a paired finding a U test again (auto, when the family's
// correction leaves the pairs no chance but not the U test).
func (f *Finding) unpair(why string) {
	f.Method = UTest
	f.P = f.uP
	f.Pairs, f.nonZero = 0, 0
	f.Ratio, f.RatioLow, f.RatioHigh = math.NaN(), math.NaN(), math.NaN()
	f.pairNote = "unpaired: " + why
}

// bestP returns the smallest p-value f's test could give.
func (f *Finding) bestP() float64 {
	if f.Method == SignedRank {
		return signedRankMinP(f.nonZero)
	}
	return minP(f.BaseN, f.HeadN)
}

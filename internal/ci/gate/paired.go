package gate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchproc"
)

// TestChoice says which statistical test compares samples that are not
// exact: the policy file's "test" field.
type TestChoice string

// The test choices (docs/gate.md, rule 4).
const (
	AutoTest     TestChoice = "auto"
	PairedTest   TestChoice = "paired"
	UnpairedTest TestChoice = "unpaired"
)

// TestChoices lists the valid test choices.
var TestChoices = []TestChoice{AutoTest, PairedTest, UnpairedTest}

// PairConfidence is the level of the confidence interval of a paired
// finding's ratio (Finding.RatioLow, RatioHigh).
const PairConfidence = 0.95

// sideRounds indexes one side's series by benchmark (keyParts' name).
type sideRounds map[string][]*results.Series

// roundsOf indexes the series of rs by benchmark.
func roundsOf(rs *results.Set, rows string) sideRounds {
	s := sideRounds{}
	var parser benchproc.ProjectionParser
	proj, err := parser.Parse(rows, nil)
	if err != nil {
		return s // the projections are constants
	}
	for _, r := range rs.Series {
		name, _, _ := keyParts(proj.Project(r.Result()))
		s[name] = append(s[name], r)
	}
	return s
}

// A roundValue is one value and its round.
type roundValue struct {
	round string
	value float64
}

// byRound returns the values of bench in unit that have a round, in
// round order, and how many have none.
func (s sideRounds) byRound(bench, unit string) (values []roundValue, unrounded int) {
	for _, r := range s[bench] {
		m := r.Metric(unit)
		if m == nil {
			continue
		}
		for i, v := range m.Values {
			round := r.Round(m.Sample(i))
			if round == "" {
				unrounded++
				continue
			}
			values = append(values, roundValue{round, v})
		}
	}
	slices.SortStableFunc(values, func(a, b roundValue) int { return compareRounds(a.round, b.round) })
	return values, unrounded
}

// repeated returns the first round of sorted values that repeats, and
// how many times.
func repeated(values []roundValue) (string, int) {
	for i := 0; i < len(values); {
		j := i + 1
		for j < len(values) && values[j].round == values[i].round {
			j++
		}
		if j-i > 1 {
			return values[i].round, j - i
		}
		i = j
	}
	return "", 0
}

// pairs holds both sides' rounds.
type pairs struct{ base, head sideRounds }

// A pairing is a metric's paired values in round order, or why there
// are none.
type pairing struct {
	base, head []float64
	why        string
}

// pair matches the rounds of bench in unit; the pairs must cover the
// comparison's baseN and headN samples.
func (ps pairs) pair(bench, unit string, baseN, headN int) pairing {
	b, bNone := ps.base.byRound(bench, unit)
	h, hNone := ps.head.byRound(bench, unit)
	switch {
	case len(b) == 0 && len(h) == 0:
		return pairing{why: "no round keys"}
	case len(b) == 0 || bNone > 0:
		return pairing{why: "base samples without a round"}
	case len(h) == 0 || hNone > 0:
		return pairing{why: "head samples without a round"}
	}
	for _, side := range []struct {
		name   string
		values []roundValue
	}{{"base", b}, {"head", h}} {
		if r, n := repeated(side.values); n > 0 {
			return pairing{why: fmt.Sprintf("round %s has %d %s samples", r, n, side.name)}
		}
	}
	if r, ok := missingIn(b, h); ok {
		return pairing{why: fmt.Sprintf("round %s only in base", r)}
	}
	if r, ok := missingIn(h, b); ok {
		return pairing{why: fmt.Sprintf("round %s only in head", r)}
	}
	if len(b) != baseN || len(b) != headN {
		return pairing{why: fmt.Sprintf("%d rounds for %d/%d samples", len(b), baseN, headN)}
	}
	p := pairing{base: make([]float64, len(b)), head: make([]float64, len(h))}
	for i := range b {
		p.base[i], p.head[i] = b[i].value, h[i].value
	}
	return p
}

// missingIn returns the first round of a that b lacks; both sorted.
func missingIn(a, b []roundValue) (string, bool) {
	j := 0
	for _, x := range a {
		for j < len(b) && compareRounds(b[j].round, x.round) < 0 {
			j++
		}
		if j == len(b) || b[j].round != x.round {
			return x.round, true
		}
	}
	return "", false
}

// compareRounds orders rounds numerically when they are numbers.
func compareRounds(a, b string) int {
	x, errx := strconv.ParseFloat(a, 64)
	y, erry := strconv.ParseFloat(b, 64)
	if errx == nil && erry == nil && x != y {
		return cmp.Compare(x, y)
	}
	return strings.Compare(a, b)
}

// pairedResult is the paired analysis of one metric: the test, and the
// Hodges-Lehmann ratio with its PairConfidence interval.
type pairedResult struct {
	test          signedRank
	ratio, lo, hi float64
}

// pairedTest tests the log ratios head/base; ok is false if a value is
// not positive and finite.
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

// choose picks the test of a finding measure left to be tested: paired
// if p.Test and the rounds allow, else the U test, noting why.
func (f *Finding) choose(ps pairs, p Policy) {
	f.uP = f.P
	if p.Test == UnpairedTest {
		return
	}
	pr := ps.pair(f.Benchmark, f.Unit, f.BaseN, f.HeadN)
	if pr.why == "no round keys" && p.Test == AutoTest {
		return // an unpaired protocol: nothing to note
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
		f.pairNote = fmt.Sprintf("unpaired: %s cannot reach p < %g", nonZeroPairs(res.test.N), p.Alpha)
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

// unpair makes a paired finding a U test again.
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

// nonZeroPairs is "1 non-zero pair" or "N non-zero pairs".
func nonZeroPairs(n int) string {
	if n == 1 {
		return "1 non-zero pair"
	}
	return fmt.Sprintf("%d non-zero pairs", n)
}

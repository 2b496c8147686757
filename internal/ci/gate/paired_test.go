package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
)

// bruteSignedRank is the two-sided signed-rank p-value by enumerating
// every sign assignment of the midranks of the non-zero differences: a
// slow, independent check of signedRankTest's exact distribution.
func bruteSignedRank(d []float64) float64 {
	var nz []float64
	for _, x := range d {
		if x != 0 {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	abs := make([]float64, n)
	for i, x := range nz {
		abs[i] = math.Abs(x)
	}
	sorted := append([]float64(nil), abs...)
	sort.Float64s(sorted)
	rank := func(v float64) float64 {
		lo, hi := -1, -1
		for i, s := range sorted {
			if s == v {
				if lo < 0 {
					lo = i
				}
				hi = i
			}
		}
		return float64(lo+hi)/2 + 1
	}
	ranks := make([]float64, n)
	w := 0.0
	for i := range nz {
		ranks[i] = rank(abs[i])
		if nz[i] > 0 {
			w += ranks[i]
		}
	}
	var le, ge float64
	for mask := 0; mask < 1<<n; mask++ {
		s := 0.0
		for i := range ranks {
			if mask&(1<<i) != 0 {
				s += ranks[i]
			}
		}
		if s <= w+1e-9 {
			le++
		}
		if s >= w-1e-9 {
			ge++
		}
	}
	return math.Min(1, 2*math.Min(le, ge)/float64(int(1)<<n))
}

func TestSignedRankExact(t *testing.T) {
	// Every difference positive: W+ is the largest sum, p = 2/2^n.
	if r := signedRankTest([]float64{1, 2, 3, 4, 5, 6}); r.P != 2.0/64 || r.N != 6 || !r.Exact || r.WPlus != 21 {
		t.Errorf("6 positive differences: %+v, want p = 2/64, W+ 21", r)
	}
	if r := signedRankTest([]float64{1, 2, 3, 4, 5}); r.P != 2.0/32 {
		t.Errorf("5 positive differences: p %v, want 2/32 (cannot reach 0.05)", r.P)
	}
	// Zeros are dropped (Wilcoxon): two zeros leave 6 differences.
	if r := signedRankTest([]float64{0, 1, 2, 0, 3, 4, 5, 6}); r.N != 6 || r.Zeros != 2 || r.P != 2.0/64 {
		t.Errorf("with zeros: %+v", r)
	}
	if r := signedRankTest([]float64{0, 0, 0}); r.P != 1 || r.N != 0 {
		t.Errorf("all zero: %+v, want p 1", r)
	}
	// Random differences with ties (values from a small set) against the
	// enumeration.
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(12)
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(rng.IntN(7) - 3) // ties and zeros
			if trial%2 == 0 {
				d[i] = rng.NormFloat64() + 0.3
			}
		}
		got, want := signedRankTest(d).P, bruteSignedRank(d)
		if math.Abs(got-want) > 1e-12 {
			t.Fatalf("d=%v: p %v, enumeration %v", d, got, want)
		}
	}
}

func TestSignedRankNormal(t *testing.T) {
	// Beyond the exact limit: a clear shift is significant, a symmetric
	// sample is not, and the approximation agrees with the exact p-value
	// at the limit.
	shift, sym := make([]float64, 60), make([]float64, 60)
	for i := range shift {
		shift[i] = float64(i%10) + 1
		sym[i] = float64(i%10+1) * float64(1-2*(i%2))
	}
	if r := signedRankTest(shift); r.Exact || r.P > 1e-9 {
		t.Errorf("60 positive differences: %+v, want the normal approximation, p tiny", r)
	}
	if r := signedRankTest(sym); r.P < 0.5 {
		t.Errorf("60 symmetric differences: p %v, want large", r.P)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	d := make([]float64, exactSignedRankN)
	for i := range d {
		d[i] = rng.NormFloat64() + 0.2
	}
	exact := signedRankTest(d)
	approx := signedRankTest(append(d, 0.25)) // 51 differences: approximated
	if !exact.Exact || approx.Exact || math.Abs(exact.P-approx.P) > 0.05 {
		t.Errorf("exact p %v (n=50), approximate %v (n=51): want close", exact.P, approx.P)
	}
}

func TestHodgesLehmann(t *testing.T) {
	// Six differences: P(W+ <= 0) = 1/64 <= 0.025 < P(W+ <= 1), so the
	// 95% interval is [smallest, largest Walsh average] = [min, max].
	d := []float64{0.03, 0.05, 0.04, 0.06, 0.045, 0.055}
	est, lo, hi := hodgesLehmann(d, 0.95)
	if lo != 0.03 || hi != 0.06 || est < 0.04 || est > 0.055 {
		t.Errorf("n=6: %v [%v, %v], want [0.03, 0.06] around 0.047", est, lo, hi)
	}
	// Five are too few for 95%: the interval is unbounded.
	if _, lo, hi := hodgesLehmann(d[:5], 0.95); !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
		t.Errorf("n=5: [%v, %v], want unbounded", lo, hi)
	}
	// Constant differences: the estimate and interval are that value.
	c := []float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}
	if est, lo, hi := hodgesLehmann(c, 0.95); est != 0.1 || lo != 0.1 || hi != 0.1 {
		t.Errorf("constant: %v [%v, %v]", est, lo, hi)
	}
	// n=10: c = 8 (P(W+ <= 8) = 25/1024 <= 0.025 < P(W+ <= 9) = 33/1024).
	if c := signedRankCritical(10, 0.025); c != 8 {
		t.Errorf("critical value n=10: %d, want 8", c)
	}
	if c := signedRankCritical(5, 0.025); c != -1 {
		t.Errorf("critical value n=5: %d, want -1", c)
	}
}

// TestWalshAt: every order statistic walshAt selects is the one of the
// sorted Walsh averages, with ties, negatives and zeros.
func TestWalshAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 7, 40, 101} {
		d := make([]float64, n)
		for i := range d {
			d[i] = math.Round(rng.NormFloat64()*20) / 100 // ties
		}
		if n > 3 {
			d[0], d[1] = 0, math.Copysign(0, -1)
		}
		sorted := slices.Sorted(slices.Values(d))
		var walsh []float64
		for i := range sorted {
			for j := i; j < n; j++ {
				walsh = append(walsh, (sorted[i]+sorted[j])/2)
			}
		}
		slices.Sort(walsh)
		for k, want := range walsh {
			if got := walshAt(sorted, k); got != want {
				t.Fatalf("n=%d: average %d is %v, want %v", n, k, got, want)
			}
		}
	}
}

// drift is a per-round machine speed factor far larger than a 5% change:
// rounds 2 and 7 ran on a busy machine, 4 on a fast one.
var drift = []float64{1.00, 1.30, 0.95, 0.80, 1.10, 0.90, 1.45, 1.05, 0.85, 1.20}

// roundsFile renders one side of an interleaved run: one sample per round
// of rotate-10-of-100 and renew-1-of-1000 on optimized, sec/op =
// base * drift[i] * factor(i), with a "round: N" line per sample unless
// rounds is nil (then no round keys); rounds[i] names sample i's round.
func roundsFile(t *testing.T, name string, rounds []string, factor func(i int) float64) *results.Set {
	t.Helper()
	return roundsFileN(t, name, len(drift), rounds, factor)
}

// roundsFileN is roundsFile with the first n rounds only.
func roundsFileN(t *testing.T, name string, n int, rounds []string, factor func(i int) float64) *results.Set {
	t.Helper()
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: AMD EPYC\n")
	for i := range drift[:n] {
		if rounds != nil {
			fmt.Fprintf(&b, "round: %s\n", rounds[i])
		}
		for _, bench := range []struct {
			scenario string
			ns       float64
		}{{"rotate-10-of-100", 310000}, {"renew-1-of-1000", 770000}} {
			fmt.Fprintf(&b, "BenchmarkChurn/scenario=%s/store=optimized-2 10 %.1f ns/op %.1f cpu-ns/op 1184 allocs/op\n",
				bench.scenario, bench.ns*drift[i]*factor(i), 0.9*bench.ns*drift[i]*factor(i))
		}
	}
	rs, err := results.Read(strings.NewReader(b.String()), name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func numbered(n, from int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprint(from+i))
	}
	return out
}

// fivePercent is a head 5% slower than base in every round, with a
// little jitter.
func fivePercent(i int) float64 { return 1.05 + 0.004*float64(i%3-1) }

// aa is head = base within ±2%, signs balanced: no change.
func aa(i int) float64 { return 1 + 0.02*float64(1-2*(i%2))*float64(1+i%3)/3 }

func pairedPolicy(test TestChoice) Policy {
	p := DefaultPolicy()
	p.Test = test
	p.SetMax(results.UnitSec, MustThreshold("+3%"))
	p.SetMax(results.UnitCPUSec, MustThreshold("+3%"))
	return p
}

func findingOf(t *testing.T, v *Verdict, scenario, unit string) *Finding {
	t.Helper()
	for _, f := range v.Findings {
		if f.Scenario == scenario && f.Unit == unit {
			return f
		}
	}
	t.Fatalf("no %s finding for %s", unit, scenario)
	return nil
}

func TestPairedSeesThroughDrift(t *testing.T) {
	rounds := numbered(len(drift), 1)
	base := roundsFile(t, "base.txt", rounds, func(int) float64 { return 1 })
	head := roundsFile(t, "head.txt", rounds, fivePercent)
	for _, c := range []struct {
		test   TestChoice
		method Method
		status Status
	}{
		{AutoTest, SignedRank, Regressed},
		{PairedTest, SignedRank, Regressed},
		{UnpairedTest, UTest, Unchanged}, // the drift swamps 5% for the U test
	} {
		v, err := Evaluate(base, head, pairedPolicy(c.test))
		if err != nil {
			t.Fatal(err)
		}
		for _, unit := range []string{results.UnitSec, results.UnitCPUSec} {
			for _, sc := range []string{"rotate-10-of-100", "renew-1-of-1000"} {
				f := findingOf(t, v, sc, unit)
				if f.Method != c.method || f.Status != c.status {
					t.Errorf("test %s, %s %s: %s %s (%s), want %s %s", c.test, sc, unit, f.Method, f.Status, f.Note, c.method, c.status)
				}
				if c.method == SignedRank {
					if f.Pairs != len(drift) || math.Abs(f.Ratio-1.05) > 0.005 || !(f.RatioLow <= f.Ratio && f.Ratio <= f.RatioHigh) ||
						f.RatioLow < 1.04 || f.RatioHigh > 1.06 {
						t.Errorf("test %s, %s %s: %d pairs, ratio %v [%v, %v], want 10 pairs, 1.05 in a tight interval",
							c.test, sc, unit, f.Pairs, f.Ratio, f.RatioLow, f.RatioHigh)
					}
					if math.Abs(f.Percent()-5) > 0.5 || !strings.HasPrefix(f.Note, "signed-rank p=0.002") || !strings.Contains(f.Note, "pairs=10") {
						t.Errorf("test %s, %s %s: %+.2f%%, note %q", c.test, sc, unit, f.Percent(), f.Note)
					}
				} else if !strings.HasPrefix(f.Note, "u-test p=") {
					t.Errorf("test %s: note %q does not name the U test", c.test, f.Note)
				}
			}
		}
		var text strings.Builder
		if err := writeText(v, &text); err != nil {
			t.Fatal(err)
		}
		if c.method == SignedRank && !strings.Contains(text.String(), "signed-rank p=0.002 holm=0.004 pairs=10, 95% CI [+") {
			t.Errorf("test %s: the report does not name the paired test and its interval:\n%s", c.test, text.String())
		}
	}
}

func TestPairedAA(t *testing.T) {
	rounds := numbered(len(drift), 1)
	base := roundsFile(t, "a.txt", rounds, func(int) float64 { return 1 })
	head := roundsFile(t, "b.txt", rounds, aa)
	for _, test := range []TestChoice{AutoTest, PairedTest, UnpairedTest} {
		v, err := Evaluate(base, head, pairedPolicy(test))
		if err != nil {
			t.Fatal(err)
		}
		if !v.Passed() || len(v.Select(Improved)) > 0 {
			t.Errorf("test %s: A/A gate %s", test, v.Summary())
		}
		for _, f := range v.Findings {
			if f.Unit == results.UnitSec && (f.Significant || (test != UnpairedTest) != (f.Method == SignedRank)) {
				t.Errorf("test %s: %s %s: %s significant=%v (%s)", test, f.Label(), f.Unit, f.Method, f.Significant, f.Note)
			}
		}
	}
}

func TestPairingFallsBack(t *testing.T) {
	rounds := numbered(len(drift), 1)
	base := roundsFile(t, "base.txt", rounds, func(int) float64 { return 1 })
	// Head lost round 10 and has a round 11: the rounds do not pair.
	head := roundsFile(t, "head.txt", append(numbered(9, 1), "11"), fivePercent)
	v, err := Evaluate(base, head, pairedPolicy(AutoTest))
	if err != nil {
		t.Fatal(err)
	}
	f := findingOf(t, v, "rotate-10-of-100", results.UnitSec)
	if f.Method != UTest || !strings.Contains(f.Note, "[unpaired: round 10 only in base]") {
		t.Errorf("mismatched rounds: %s, note %q; want the U test with a note", f.Method, f.Note)
	}
	var warned bool
	for _, p := range v.Problems {
		if p.Kind == NotPaired {
			warned = !p.Fatal && strings.Contains(p.Message, "(round 10 only in base): sec/op, cpu-sec/op of rotate-10-of-100/optimized")
		}
	}
	if !warned {
		t.Errorf("no not-paired warning: %+v", v.Problems)
	}
	// A round twice on a side does not pair either.
	head = roundsFile(t, "head.txt", append(numbered(9, 1), "9"), fivePercent)
	v, _ = Evaluate(base, head, pairedPolicy(PairedTest))
	if f := findingOf(t, v, "renew-1-of-1000", results.UnitSec); f.Method != UTest || !strings.Contains(f.Note, "has 2 head samples") {
		t.Errorf("repeated round: %s, note %q", f.Method, f.Note)
	}

	// Files without rounds: auto uses the U test silently, paired notes it.
	base = roundsFile(t, "base.txt", nil, func(int) float64 { return 1 })
	head = roundsFile(t, "head.txt", nil, fivePercent)
	for _, test := range []TestChoice{AutoTest, PairedTest} {
		v, _ := Evaluate(base, head, pairedPolicy(test))
		f := findingOf(t, v, "rotate-10-of-100", results.UnitSec)
		noted := false
		for _, p := range v.Problems {
			noted = noted || p.Kind == NotPaired
		}
		if f.Method != UTest || noted != (test == PairedTest) {
			t.Errorf("no rounds, test %s: %s, not-paired warning %v", test, f.Method, noted)
		}
	}
}

func TestPairedTooFewPairs(t *testing.T) {
	// Five rounds: the signed-rank test cannot reach 0.05 (best 2/32);
	// auto takes the U test (5 a side: best 2/252, 0.016 after Holm for
	// two benchmarks), paired says it cannot decide.
	rounds := numbered(5, 1)
	base := roundsFileN(t, "base.txt", 5, rounds, func(int) float64 { return 1 })
	head := roundsFileN(t, "head.txt", 5, rounds, fivePercent)
	v, err := Evaluate(base, head, pairedPolicy(AutoTest))
	if err != nil {
		t.Fatal(err)
	}
	if f := findingOf(t, v, "rotate-10-of-100", results.UnitSec); f.Method != UTest || !strings.Contains(f.Note, "5 non-zero pairs cannot reach p < 0.05") {
		t.Errorf("auto, 5 pairs: %s %s, note %q; want the U test", f.Method, f.Status, f.Note)
	}
	v, _ = Evaluate(base, head, pairedPolicy(PairedTest))
	if f := findingOf(t, v, "rotate-10-of-100", results.UnitSec); f.Status != TooFewSamples || !strings.Contains(f.Note, "signed-rank test cannot reach") || !strings.Contains(f.Note, "need 7 rounds") {
		t.Errorf("paired, 5 pairs: %s, note %q; want too few samples", f.Status, f.Note)
	}
}

func TestPairsAllEqual(t *testing.T) {
	// The same values in every round on both sides (but varying between
	// rounds, so not exact): no change, decided, under every choice.
	rounds := numbered(len(drift), 1)
	base := roundsFile(t, "a.txt", rounds, func(int) float64 { return 1 })
	for _, test := range TestChoices {
		v, err := Evaluate(base, base, pairedPolicy(test))
		if err != nil {
			t.Fatal(err)
		}
		f := findingOf(t, v, "rotate-10-of-100", results.UnitSec)
		if !v.Passed() || f.Status != Unchanged {
			t.Errorf("test %s: identical rounds: %s, %s (%s)", test, v.Summary(), f.Status, f.Note)
		}
	}
}

func TestTestChoicePolicy(t *testing.T) {
	p, err := ParseConfig([]byte("gate:\n  test: paired\n  max:\n    cpu-sec/op: +3%\n"), "c.yaml")
	if err != nil || p.Test != PairedTest || p.Max[results.UnitCPUSec] != MustThreshold("+3%") {
		t.Fatalf("test: paired: %v, %v", p.Test, err)
	}
	if _, err := ParseConfig([]byte("gate:\n  test: maybe\n"), "c.yaml"); err == nil || !strings.Contains(err.Error(), "c.yaml:2:9: gate.test") {
		t.Errorf("test: maybe: %v, want an error at c.yaml:2:9", err)
	}
	if _, err := ParseConfig([]byte("gate:\n  max:\n    cpu-sec/op: +1KiB\n"), "c.yaml"); err == nil {
		t.Error("cpu-sec/op +1KiB accepted; it is a time")
	}
	if p, err := ParseConfig([]byte("gate:\n  max:\n    cpu-ns/op: +2us\n"), "c.yaml"); err != nil || p.Max[results.UnitCPUSec].Value != 2e-6 {
		t.Errorf("cpu-ns/op +2us: %v, %v", p.Max[results.UnitCPUSec], err)
	}
	if DefaultPolicy().Test != AutoTest {
		t.Error("default test is not auto")
	}
	if _, ok := DefaultPolicy().Max[results.UnitCPUSec]; ok {
		t.Error("cpu-sec/op gated by default")
	}
	if _, err := ParseConfig([]byte("gate:\n  test: both\n"), "c.yaml"); err == nil || !strings.Contains(err.Error(), `gate.test: "both": want auto, paired or unpaired`) {
		t.Errorf("test both: %v", err)
	}
	var out strings.Builder
	p.Test = UnpairedTest
	if err := WriteConfig(&out, p); err != nil {
		t.Fatal(err)
	}
	back, err := ParseConfig([]byte(out.String()), "w.yaml")
	if err != nil || back.Test != UnpairedTest {
		t.Errorf("WriteConfig round trip: %v %v\n%s", back.Test, err, out.String())
	}
}

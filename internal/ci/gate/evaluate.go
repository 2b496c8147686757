package gate

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// MachineKeys are the configuration keys that must match between base and head.
var MachineKeys = []string{"goos", "goarch", "cpu", "go", "gomaxprocs", results.SimulatorKey}

// The labels Evaluate gives the two sides in the comparison it builds.
const (
	baseLabel = "base"
	headLabel = "head"
)

// The row projections of certbench's results and of plain ones (by full name, so
// sub-benchmarks stay apart).
const (
	rowProjection      = ".name,/scenario,/store"
	plainRowProjection = ".fullname,/scenario,/store"
)

// rowsFor returns the row projection for the results of both sides.
func rowsFor(sides ...*results.Set) string {
	for _, rs := range sides {
		if slices.ContainsFunc(rs.Series, func(s *results.Series) bool { return !results.IsCertbench(s.Result()) }) {
			return plainRowProjection
		}
	}
	return rowProjection
}

// ErrInput marks errors about the inputs, as opposed to a bad Policy.
var ErrInput = errors.New("gate: bad input")

// Evaluate compares head with base under p by the rules of docs/gate.md.
// It fails only on a bad policy or inputs that cannot be gated; all else is in the Verdict.
func Evaluate(base, head *results.Set, p Policy) (*Verdict, error) {
	p, err := p.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("gate: policy: %w", err)
	}
	if base == nil || head == nil {
		return nil, errors.New("gate: nil results")
	}
	if err := checkInstruments(base, head); err != nil {
		return nil, err
	}
	v := newVerdict(base, head, p)
	failures := len(v.Problems)
	base, head = v.checkFailures(base, head)
	if len(v.Problems) > failures && (len(base.Series) == 0 || len(head.Series) == 0) {
		// Nothing left but failures: they are the verdict.
		v.missingBesideFailures(base, head)
		return v, nil
	}
	if err := v.checkScenarios(base, head, p); err != nil {
		return nil, err
	}
	if err := v.checkCerts(base, head, p); err != nil {
		return nil, err
	}
	rows := rowsFor(base, head)
	rep, err := v.comparison(base, head, rows)
	if err != nil && len(v.Problems) > failures && errors.Is(err, ErrInput) {
		return v, nil // nothing in common but the failed benchmarks
	}
	if err != nil {
		return nil, err
	}
	present := presence(rep)
	v.checkPresence(present)
	ps := pairs{base: roundsOf(base, rows), head: roundsOf(head, rows)}
	var notGated, newMetrics []string
	for _, t := range rep.Tables {
		ng, nm := v.gateTable(t, present, ps)
		notGated, newMetrics = append(notGated, ng...), append(newMetrics, nm...)
	}
	if len(newMetrics) > 0 {
		v.Problems = append(v.Problems, Problem{Kind: NewInHead,
			Message: "metrics only in head, not gated: " + strings.Join(newMetrics, ", ")})
	}
	if len(notGated) > 0 {
		v.Problems = append(v.Problems, Problem{Kind: NotGated,
			Message: "not gated (no threshold): " + strings.Join(notGated, ", ")})
	}
	v.notePairing()
	return v, nil
}

// notePairing warns, once per reason, of findings to be paired that took the U test.
func (v *Verdict) notePairing() {
	var reasons []string
	units := make(map[string][]string)             // reason -> units, in order
	labels := make(map[string]map[string][]string) // reason -> unit -> benchmarks
	for _, f := range v.Findings {
		why, ok := strings.CutPrefix(f.pairNote, "unpaired: ")
		if f.Method != UTest || !ok {
			continue
		}
		if labels[why] == nil {
			reasons = append(reasons, why)
			labels[why] = make(map[string][]string)
		}
		if labels[why][f.Unit] == nil {
			units[why] = append(units[why], f.Unit)
		}
		labels[why][f.Unit] = append(labels[why][f.Unit], f.Label())
	}
	for _, why := range reasons {
		var sets []string // units of the same benchmarks share a list
		setUnits := make(map[string][]string)
		n := 0
		for _, u := range units[why] {
			key := strings.Join(labels[why][u], "\x00")
			if setUnits[key] == nil {
				sets = append(sets, key)
			}
			setUnits[key] = append(setUnits[key], u)
			n += len(labels[why][u])
		}
		var what []string
		for _, key := range sets {
			what = append(what, strings.Join(setUnits[key], ", ")+" of "+listSome(strings.Split(key, "\x00"), maxListed))
		}
		v.Problems = append(v.Problems, Problem{Kind: NotPaired,
			Message: fmt.Sprintf("%d comparison(s) not paired by round, U test instead (%s): %s", n, why, strings.Join(what, "; "))})
	}
}

// maxListed is the number of benchmarks a warning names.
const maxListed = 6

func listSome(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:max], ", "), len(items)-max)
}

// newVerdict starts the verdict: labels, configuration, differing machines.
func newVerdict(base, head *results.Set, p Policy) *Verdict {
	v := &Verdict{
		Base:   cmp.Or(strings.Join(base.Files, ", "), baseLabel),
		Head:   cmp.Or(strings.Join(head.Files, ", "), headLabel),
		Policy: p,
		Config: configLines(base, head),
	}
	var mismatched []string
	for _, c := range v.Config {
		if c.Differs {
			mismatched = append(mismatched, fmt.Sprintf("%s: base %s, head %s", c.Key, quoteAll(c.Base), quoteAll(c.Head)))
		}
	}
	if len(mismatched) > 0 {
		what := "warning"
		if p.Strict {
			what = "failure under strict: true"
		}
		v.Problems = append(v.Problems, Problem{
			Kind:  MixedMachines,
			Fatal: p.Strict,
			Message: "results from different machines or Go versions (" + what + "; timings and even allocation counts may not compare): " +
				strings.Join(mismatched, "; "),
		})
	}
	return v
}

func (v *Verdict) comparison(base, head *results.Set, rows string) (*compare.Tables, error) {
	rep, err := compare.Build(merge(base, head), compare.Options{
		Row:     rows,
		Col:     results.FileKey,
		Columns: []string{baseLabel, headLabel},
		Alpha:   v.Policy.Alpha,
	})
	if errors.Is(err, compare.ErrNothingInCommon) {
		return nil, fmt.Errorf("%w: %s and %s have no benchmarks in common", ErrInput, v.Base, v.Head)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return rep, nil
}

// sides says which sides have a benchmark at all.
type sides struct{ base, head bool }

// present holds the sides of every benchmark, in first-seen order.
type present struct {
	of    map[benchproc.Key]*sides
	order []benchproc.Key
}

// presence returns which benchmarks each side of rep has, in any unit.
func presence(rep *compare.Tables) present {
	pr := present{of: map[benchproc.Key]*sides{}}
	for _, t := range rep.Tables {
		for _, row := range t.Rows {
			s := pr.of[row.Key]
			if s == nil {
				s = &sides{}
				pr.of[row.Key] = s
				pr.order = append(pr.order, row.Key)
			}
			s.base = s.base || row.Cells[0] != nil
			s.head = s.head || row.Cells[1] != nil
		}
	}
	return pr
}

// checkPresence reports benchmarks missing in head and those only in head.
func (v *Verdict) checkPresence(pr present) {
	var missing, added []string
	for _, k := range pr.order {
		s := pr.of[k]
		switch {
		case s.base && !s.head:
			missing = append(missing, benchLabel(k))
		case s.head && !s.base:
			added = append(added, benchLabel(k))
		}
	}
	v.missing(missing)
	if len(added) > 0 {
		v.Problems = append(v.Problems, Problem{Kind: NewInHead,
			Message: fmt.Sprintf("%d benchmark(s) only in head, not gated: %s", len(added), strings.Join(added, ", "))})
	}
}

// missing reports benchmarks of base missing in head.
func (v *Verdict) missing(names []string) {
	if len(names) == 0 {
		return
	}
	msg := fmt.Sprintf("%d benchmark(s) of base missing in head: %s", len(names), strings.Join(names, ", "))
	if v.Policy.AllowMissing {
		msg += " (allowed by allow_missing)"
	}
	v.Problems = append(v.Problems, Problem{Kind: MissingInHead, Fatal: !v.Policy.AllowMissing, Message: msg})
}

// gateTable makes the findings of one unit's table, the tested ones a family for the
// correction, and returns the unit if nothing of it is gated and the metrics only head has.
func (v *Verdict) gateTable(t *compare.Table, pr present, ps pairs) (notGated, newMetrics []string) {
	p := v.Policy
	if _, err := CheckUnit(t.Unit); err != nil {
		why := " (unknown unit)"
		if results.IsKnownUnit(t.Unit) {
			why = " (higher is better)"
		}
		return []string{t.Unit + why}, nil
	}
	var family []*Finding
	gated := false
	for _, row := range t.Rows {
		s := pr.of[row.Key]
		if !s.base || !s.head {
			continue // reported by checkPresence
		}
		name, scenario, store := keyParts(row.Key)
		th, ok := p.Threshold(scenario, store, t.Unit)
		if !ok {
			continue
		}
		gated = true
		if row.Cells[0] == nil {
			newMetrics = append(newMetrics, t.Unit+" of "+benchLabel(row.Key))
			continue // nothing to compare it with
		}
		f := &Finding{Benchmark: name, Scenario: scenario, Store: store, Unit: t.Unit, Threshold: th}
		v.Findings = append(v.Findings, f)
		if f.measure(row.Cells[0], row.Cells[1], p) {
			f.choose(ps, p)
			family = append(family, f)
		}
	}
	if !gated {
		notGated = append(notGated, t.Unit)
	}
	m := len(family) // the tests the correction counts
	if p.Correction == NoCorrection {
		m = 1
	}
	if p.Test == AutoTest {
		// Pairs the correction leaves no chance take the U test if it has one.
		for _, f := range family {
			if f.Method == SignedRank && f.nonZero > 0 && f.bestP()*float64(m) >= p.Alpha && minP(f.BaseN, f.HeadN)*float64(m) < p.Alpha {
				f.unpair(fmt.Sprintf("%s cannot reach p < %g after %s's correction for %d tests", nonZeroPairs(f.nonZero), p.Alpha, p.Correction, len(family)))
			}
		}
	}
	family = reachable(family, p, m)
	adjust(family, p.Correction)
	for _, f := range family {
		f.Significant = f.AdjustedP < p.Alpha
		decide(f)
		f.Note = f.testText() + ", " + f.Note
		if f.pairNote != "" {
			f.Note += " [" + f.pairNote + "]"
		}
	}
	return notGated, newMetrics
}

// measure fills in f from the cells (hc may be nil) and decides it or reports it is to be tested.
func (f *Finding) measure(bc, hc *compare.Cell, p Policy) (test bool) {
	f.Method = NotCompared
	f.Base, f.Head, f.P, f.AdjustedP = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	f.Ratio, f.RatioLow, f.RatioHigh, f.uP = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	f.HeadMin, f.HeadMax = math.NaN(), math.NaN()
	f.BaseN = bc.N()
	f.BaseMin, f.BaseMax = bc.Sample.Values[0], bc.Sample.Values[f.BaseN-1]
	if hc == nil {
		f.Status, f.Fatal = Missing, !p.AllowMissing
		f.Base = bc.Center()
		f.Note = "not in head"
		if p.AllowMissing {
			f.Note += " (allowed)"
		}
		return false
	}
	f.HeadN = hc.N()
	f.HeadMin, f.HeadMax = hc.Sample.Values[0], hc.Sample.Values[f.HeadN-1]
	f.Base, f.Head = bc.Center(), hc.Center()
	if (results.IsCount(f.Unit) || results.IsSimulated(f.Unit)) && f.BaseN >= results.MinExactSamples && f.HeadN >= results.MinExactSamples &&
		f.BaseMin == f.BaseMax && f.HeadMin == f.HeadMax {
		f.Method = Exact
		f.Base, f.Head = f.BaseMin, f.HeadMin
		f.Significant = f.Base != f.Head
		decide(f)
		return false
	}
	if f.BaseN < p.MinSamples || f.HeadN < p.MinSamples {
		f.Status, f.Fatal = TooFewSamples, true
		f.Note = tooFewNote(f, p.MinSamples)
		return false
	}
	if results.IsSimulated(f.Unit) {
		f.nearExact(hc.Delta.Comparison.P, p)
		return false
	}
	f.Method = UTest
	f.P = hc.Delta.Comparison.P
	return true
}

// nearExact decides a finding of a simulated CPU's unit (docs/gate.md). No correction:
// its noise is far below the threshold, and Holm's would make small families unreachable.
func (f *Finding) nearExact(pval float64, p Policy) {
	f.Method = NearExact
	f.P, f.AdjustedP = pval, pval
	f.Significant = pval < p.Alpha
	decide(f)
	f.Note = fmt.Sprintf("near-exact, u-test p=%.3f (not corrected), spread base %s head %s, %s",
		pval, spreadText(f.BaseMin, f.BaseMax), spreadText(f.HeadMin, f.HeadMax), f.Note)
}

// spreadText formats max/min - 1 of one side's samples as a percentage.
func spreadText(lo, hi float64) string {
	if lo <= 0 || lo == hi {
		return "0%"
	}
	return fmt.Sprintf("%.3f%%", 100*(hi/lo-1))
}

// CountResolution is the smallest relative change of a count (allocs/op,
// B/op) the gate decides on when its samples vary: below it the count's
// own variation (an allocation in thousands of ops) is what moved
// (docs/gate.md). An exact count has no such floor.
const CountResolution = 1e-4

func decide(f *Finding) {
	th := f.Threshold
	head := f.Head
	if f.Method == SignedRank {
		head = f.Base * f.Ratio // the paired estimate
	}
	f.Status = Unchanged
	switch {
	case f.Method != Exact && results.IsCount(f.Unit) && f.Base > 0 && math.Abs(head/f.Base-1) < CountResolution:
		f.Note = fmt.Sprintf("below a varying count's resolution (%g%%)", 100*CountResolution)
	case f.Significant && th.Exceeds(f.Base, head):
		f.Status, f.Fatal = Regressed, true
		f.Note = "beyond " + th.String()
	case f.Significant && th.Beats(f.Base, head):
		f.Status = Improved
		f.Note = "beyond -" + strings.TrimPrefix(th.String(), "+")
	case f.Base == head:
		f.Note = "same"
	case f.Significant:
		f.Note = "within " + th.String()
	default:
		f.Note = "not significant"
	}
	if f.Method == Exact {
		f.Note = "exact, " + f.Note
	}
}

func tooFewNote(f *Finding, min int) string {
	var sides []string
	if f.BaseN < min {
		sides = append(sides, fmt.Sprintf("base has %d", f.BaseN))
	}
	if f.HeadN < min {
		sides = append(sides, fmt.Sprintf("head has %d", f.HeadN))
	}
	why := "samples vary, so no exact comparison"
	if results.IsCount(f.Unit) && f.BaseMin == f.BaseMax && f.HeadMin == f.HeadMax {
		why = fmt.Sprintf("an exact comparison needs %d a side to show the count is deterministic", results.MinExactSamples)
	}
	return fmt.Sprintf("%s sample(s), need %d (%s)", strings.Join(sides, " and "), min, why)
}

// minP returns the smallest two-sided p-value of a U test: 2 / C(n1+n2, n1).
func minP(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// reachable marks TooFewSamples the tests that could never be significant and returns
// the others: the gate must not pass a metric it could never have failed.
func reachable(family []*Finding, p Policy, m int) []*Finding {
	var out []*Finding
	for _, f := range family {
		best := f.bestP() * float64(m)
		// Pairs equal in every round are no change, not too few.
		if best < p.Alpha || (f.Method == SignedRank && f.nonZero == 0) {
			out = append(out, f)
			continue
		}
		need, bestOf, what := max(f.BaseN, f.HeadN), func(n int) float64 { return minP(n, n) }, "samples a side"
		f.Note = fmt.Sprintf("with %d and %d samples the U test cannot reach p < %g", f.BaseN, f.HeadN, p.Alpha)
		if f.Method == SignedRank {
			need, bestOf, what = f.nonZero, signedRankMinP, "rounds that differ"
			f.Note = fmt.Sprintf("with %d non-zero pairs the signed-rank test cannot reach p < %g", f.nonZero, p.Alpha)
		}
		for bestOf(need)*float64(m) >= p.Alpha && need < 1000 {
			need++
		}
		if m > 1 {
			f.Note += fmt.Sprintf(" after %s's correction for %d %s tests", p.Correction, m, f.Unit)
		}
		f.Note += fmt.Sprintf(" (best p %.3f); need %d %s", best, need, what)
		f.Status, f.Fatal, f.Method = TooFewSamples, true, NotCompared
		f.P = math.NaN()
	}
	return out
}

func adjust(family []*Finding, c Correction) {
	if c == NoCorrection || len(family) <= 1 {
		for _, f := range family {
			f.AdjustedP = f.P
		}
		return
	}
	// Holm: adjusted p_(i) = max_{j<=i} min(1, (m-j) p_(j)).
	sorted := slices.Clone(family)
	slices.SortStableFunc(sorted, func(a, b *Finding) int { return cmp.Compare(a.P, b.P) })
	running := 0.0
	for i, f := range sorted {
		running = math.Max(running, math.Min(1, float64(len(sorted)-i)*f.P))
		f.AdjustedP = running
	}
}

// merge returns both sides as one set; without unit metadata, as the gate decides what is exact.
func merge(base, head *results.Set) *results.Set {
	b, h := base.Relabel(baseLabel), head.Relabel(headLabel)
	return &results.Set{
		Series: append(b.Series[:len(b.Series):len(b.Series)], h.Series...),
		Units:  benchfmt.UnitMetadataMap{},
		Files:  []string{baseLabel, headLabel},
	}
}

// keyParts returns a benchmark row's display name, scenario and store.
func keyParts(k benchproc.Key) (name, scenario, store string) {
	var parts []string
	for _, f := range k.Projection().FlattenedFields() {
		val := k.Get(f)
		switch f.Name {
		case ".name", ".fullname":
			parts = append([]string{val}, parts...)
			continue
		case "/scenario":
			scenario = val
		case "/store":
			store = val
		}
		if val != "" {
			parts = append(parts, strings.TrimPrefix(f.Name, "/")+"="+val)
		}
	}
	return strings.Join(parts, "/"), scenario, store
}

func benchLabel(k benchproc.Key) string {
	name, scenario, store := keyParts(k)
	if scenario != "" && store != "" {
		return scenario + "/" + store
	}
	return name
}

// configLines returns each side's configuration, flagging machine keys that differ.
func configLines(base, head *results.Set) []ConfigLine {
	b, h := compare.ConfigOf(base.Series, true), compare.ConfigOf(head.Series, true)
	values := func(cs []compare.Config, key string) []string {
		if i := slices.IndexFunc(cs, func(c compare.Config) bool { return c.Key == key }); i >= 0 {
			return cs[i].Values
		}
		return nil
	}
	var out []ConfigLine
	for _, c := range slices.Concat(b, h) {
		if slices.ContainsFunc(out, func(l ConfigLine) bool { return l.Key == c.Key }) {
			continue
		}
		l := ConfigLine{Key: c.Key, Base: values(b, c.Key), Head: values(h, c.Key)}
		if slices.Contains(MachineKeys, c.Key) {
			bs, hs := slices.Sorted(slices.Values(l.Base)), slices.Sorted(slices.Values(l.Head))
			l.Differs = !slices.Equal(bs, hs) || len(bs) > 1 || len(hs) > 1
		}
		out = append(out, l)
	}
	return out
}

func quoteAll(vs []string) string {
	if len(vs) == 0 {
		return "(none)"
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, " | ")
}

package history

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/certbench/certbench/results"
)

const (
	// DefaultAlpha is the false discovery rate of Options' zero value.
	DefaultAlpha = 0.01
	// window bounds the commits on each side of a change point that its
	// size is measured on; level is how many commits Creep takes the
	// level of a series at a commit from.
	window, level = 30, 5
)

// Options are the settings of Changes and Creep: the false discovery
// rate across all series at once (0: DefaultAlpha), and the smallest
// relative change reported by unit as benchfmt reads it ("sec/op"; a
// unit not in it: DefaultMinEffect).
type Options struct {
	Alpha     float64
	MinEffect map[string]float64
}

func (o Options) alpha() float64 { return cmp.Or(o.Alpha, DefaultAlpha) }

func (o Options) floor(unit string) float64 {
	if f, ok := o.MinEffect[unit]; ok {
		return f
	}
	return DefaultMinEffect(unit)
}

// DefaultMinEffect returns the smallest relative change of unit that
// Changes and Creep report: none for the counts a deterministic store
// repeats exactly (allocs/op, B/op: any step is real), 0.01% for the
// simulated CPU's near-exact counts, and 2% for clocks and every other
// unit, whose level drifts with the runner's load (see the package doc).
func DefaultMinEffect(unit string) float64 {
	switch info, _ := results.Info(unit); {
	case info.Count:
		return 0
	case results.IsSimulated(unit):
		return 0.0001
	}
	return 0.02
}

// A Shift is a change of a series' level: Delta is the Hodges-Lehmann
// estimate of after minus before (the median of all differences between
// a per-commit median after and one before), with its 95% rank
// (Mann-Whitney) interval [Low, High]; Before and After are the medians
// of the per-commit medians on each side.
type Shift struct {
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	Delta  float64 `json:"delta"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
}

// Relative returns Delta, Low and High as fractions of Before (0.01 is
// +1%), and false if Before is 0.
func (s Shift) Relative() (d, lo, hi float64, ok bool) {
	if s.Before == 0 {
		return 0, 0, 0, false
	}
	b := math.Abs(s.Before)
	return s.Delta / b, s.Low / b, s.High / b, true
}

// large reports whether the shift is at least floor, relative, and not 0.
func (s Shift) large(floor float64) bool {
	return s.Delta != 0 && math.Abs(s.Delta) >= floor*math.Abs(s.Before)
}

// A ChangePoint is a step in one series.
type ChangePoint struct {
	Key
	Commit   string    `json:"commit"`   // the first commit at the new level
	Time     time.Time `json:"time"`     // its time
	Previous string    `json:"previous"` // the commit before it in the series
	From     string    `json:"from"`     // the first commit of the window before
	To       string    `json:"to"`       // the last commit of the window after
	Shift
	P     float64 `json:"p"`     // Pettitt's p-value on the two windows
	Worse bool    `json:"worse"` // the change is a regression
	// Machine, when the machine's configuration changed at the commit,
	// says how ("go=go1.25 -> go=go1.26"): the step may be the runner's.
	Machine string `json:"machine,omitempty"`
	at      int    // the index of Commit in History.Commits
}

// Changes returns the change points of every series of h, by commit,
// then key. The method and why: docs/history.md.
func Changes(h *History, opt Options) []ChangePoint {
	type job struct {
		y     []float64
		p     float64
		found []ChangePoint
	}
	jobs := make([]job, len(h.Keys))
	parallel(len(jobs), func(i int) {
		y := medians(h.series[h.Keys[i]])
		_, p := pettitt(y)
		jobs[i] = job{y: y, p: p}
	})
	// Benjamini-Hochberg over the series' first splits: the cutoff is
	// r*alpha/m for the largest r whose r-th smallest p is below it.
	ps := make([]float64, len(jobs))
	for i := range jobs {
		ps[i] = jobs[i].p
	}
	slices.Sort(ps)
	cutoff := -1.0
	for r := len(ps); r >= 1; r-- {
		if c := float64(r) * opt.alpha() / float64(len(ps)); ps[r-1] <= c {
			cutoff = c
			break
		}
	}
	parallel(len(jobs), func(i int) {
		if jobs[i].p <= cutoff {
			jobs[i].found = changes(h, h.Keys[i], jobs[i].y, segment(jobs[i].y, 0, len(jobs[i].y), cutoff, opt.floor(h.Keys[i].Unit), nil), opt)
		}
	})
	var out []ChangePoint
	for _, j := range jobs {
		out = append(out, j.found...)
	}
	slices.SortStableFunc(out, func(a, b ChangePoint) int { return a.Time.Compare(b.Time) })
	return out
}

// changes sizes the splits of one series (indices into its points),
// dropping one below the unit's floor at a time and sizing its
// neighbours again without it.
func changes(h *History, k Key, y []float64, splits []int, opt Options) []ChangePoint {
	slices.Sort(splits)
	t, w := h.series[k], window
	window := func(i int) (a, s, b int) { // the windows around split i: [a, s) and [s, b)
		a, s, b = 0, splits[i], len(y)
		if i > 0 {
			a = splits[i-1]
		}
		if i+1 < len(splits) {
			b = splits[i+1]
		}
		return max(a, s-w), s, min(b, s+w)
	}
	for i := 0; i < len(splits); {
		a, s, b := window(i)
		if shift(y[a:s], y[s:b]).large(opt.floor(k.Unit)) {
			i++
			continue
		}
		splits, i = slices.Delete(splits, i, i+1), 0
	}
	out := make([]ChangePoint, len(splits))
	for i := range splits {
		a, s, b := window(i)
		c, prev := h.Commits[t.commit[s]], h.Commits[t.commit[s-1]]
		_, p := pettitt(y[a:b])
		out[i] = ChangePoint{Key: k, Commit: c.Hash, Time: c.Time, Previous: prev.Hash, From: h.Commits[t.commit[a]].Hash,
			To: h.Commits[t.commit[b-1]].Hash, Shift: shift(y[a:s], y[s:b]), P: p, at: int(t.commit[s])}
		out[i].Worse = float64(results.Better(k.Unit))*out[i].Delta < 0
		if prev.Machine != c.Machine {
			out[i].Machine = prev.Machine + " -> " + c.Machine
		}
	}
	return out
}

// shift measures the change from before to after (see Shift).
func shift(before, after []float64) Shift {
	d := make([]float64, 0, len(before)*len(after))
	for _, a := range after {
		for _, b := range before {
			d = append(d, a-b)
		}
	}
	slices.Sort(d)
	n, m := float64(len(before)), float64(len(after))
	// The 95% interval of a Hodges-Lehmann shift: the order statistics
	// of the differences at the Mann-Whitney U test's critical count
	// (normal approximation, with continuity correction).
	k := int(math.Floor(n*m/2 - 0.5 - 1.96*math.Sqrt(n*m*(n+m+1)/12)))
	k = max(0, min(k, len(d)/2))
	return Shift{Before: median(before), After: median(after), Delta: median(d), Low: d[k], High: d[len(d)-1-k]}
}

// medians returns the median of each point.
func medians(t *track) []float64 {
	y := make([]float64, t.len())
	for i := range y {
		y[i] = median(t.vals[i])
	}
	return y
}

// median returns the median of sorted values.
func median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	return (v[(n-1)/2] + v[n/2]) / 2
}

// pettitt returns the split of y that Pettitt's rank test finds, the
// index of the first value after it, and the test's p-value: with
// midranks r and scores s_i = 2r_i - n - 1, U_t = sum_{i<t} s_i compares
// every value before t with every value after it, and K = max |U_t| has
// p ~= 2 exp(-2K^2 / sum s_i^2), the Brownian bridge's tail (Pettitt
// 1979) with the scores' own variance, which ties reduce: without ties
// it is 2 exp(-6K^2/(n^3-n)).
func pettitt(y []float64) (int, float64) {
	n := len(y)
	if n < 2 {
		return 0, 1
	}
	idx, ranks := make([]int, n), make([]float64, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(y[a], y[b]) })
	for i := 0; i < n; {
		j := i
		for j < n && y[idx[j]] == y[idx[i]] {
			j++
		}
		for t := i; t < j; t++ {
			ranks[idx[t]] = float64(i+j+1) / 2 // midrank of i+1..j
		}
		i = j
	}
	var u, best, ss float64
	tau := 0
	for t := 1; t <= n; t++ {
		score := 2*ranks[t-1] - float64(n) - 1
		u += score
		ss += score * score
		if t < n && math.Abs(u) > best {
			best, tau = math.Abs(u), t
		}
	}
	if best == 0 {
		return 0, 1 // all values tie
	}
	return tau, min(1, 2*math.Exp(-2*best*best/ss))
}

// segment appends the splits of y[lo:hi] at p <= cutoff that move the
// level by floor, by binary segmentation: split where Pettitt's test
// finds, and test each side.
func segment(y []float64, lo, hi int, cutoff, floor float64, splits []int) []int {
	t, p := pettitt(y[lo:hi])
	if t == 0 || p > cutoff {
		return splits
	}
	s := lo + locate(y[lo:hi], t)
	if !shift(y[max(lo, s-window):s], y[s:min(hi, s+window)]).large(floor) {
		return splits // a step too small to report: and a series that creeps by less each commit would split at every one
	}
	splits = append(splits, s)
	splits = segment(y, lo, s, cutoff, floor, splits)
	return segment(y, s, hi, cutoff, floor, splits)
}

// locate returns where near t, within window, the step of y is:
// the split of least absolute deviation from each side's median. The
// rank statistic's argmax says that there is a step and about where, but
// leans towards the middle of y (a few commits' order within one level
// can outweigh a step's); the deviations are least at the step itself.
func locate(y []float64, t int) int {
	a, b := max(0, t-window), min(len(y), t+window)
	best, bestCost := t, math.Inf(1)
	for u := a + 1; u < b; u++ {
		c := deviation(y[a:u]) + deviation(y[u:b])
		if c < bestCost || (c == bestCost && abs(u-t) < abs(best-t)) {
			best, bestCost = u, c
		}
	}
	return best
}

// deviation returns the sum of the absolute deviations of v from its
// median.
func deviation(v []float64) float64 {
	m, d := median(slices.Sorted(slices.Values(v))), 0.0
	for _, x := range v {
		d += math.Abs(x - m)
	}
	return d
}

func abs(x int) int { return max(x, -x) }

// parallel calls f(i) for i in [0, n) on GOMAXPROCS workers.
func parallel(n int, f func(int)) {
	var wg sync.WaitGroup
	next := make(chan int, 64)
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := range next {
				f(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

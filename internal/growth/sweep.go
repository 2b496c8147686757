package growth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchmath"
)

// DefaultSizes are the pool sizes of a sweep when none are given.
var DefaultSizes = []int{100, 1000, 10000, 100000}

// FullCountUpTo is the largest pool size that gets Options.Count samples;
// larger sizes get proportionally fewer (see SampleCount).
const FullCountUpTo = 10000

// MinCount is the fewest samples SampleCount gives a size: enough for a
// median that one slow sample does not decide.
const MinCount = 3

// SweepOptions says what Sweep measures.
type SweepOptions struct {
	// Families are the scenario families to sweep, one after another.
	Families []scenarios.Family
	// Sizes are the pool sizes, run in ascending order.
	Sizes []int
	// Stores are measured at every size, interleaved.
	Stores []certstore.Info
	// Count is the number of samples per store at sizes up to
	// FullCountUpTo; 0 means bench.DefaultCount. See SampleCount.
	Count int
	// MaxSize, per store name, skips sizes above it.
	MaxSize map[string]int
	// Budget bounds the wall time spent on one store at one size; 0 means
	// no bound. See the package documentation.
	Budget time.Duration
	// Progress, when not nil, receives a line per sample (on a
	// terminal), or with ProgressLines a line per size measured (for a
	// log), and the notes as they happen.
	Progress      io.Writer
	ProgressLines bool
	// SampleTimeout and Fault are bench.Options': a store that panics or
	// hangs is reported to Fault. A positive SampleTimeout is raised, at
	// a size, to ten times the longest estimate of one sample there (see
	// Budget), so that a store slow at the largest sizes is not taken
	// for hung.
	SampleTimeout time.Duration
	Fault         func(*bench.StoreFault) error
}

// SweepResult is what Sweep reports besides the samples.
type SweepResult struct {
	// Notes list the sizes skipped and the sample counts reduced, and
	// why, in the order they happened.
	Notes []string
	// Samples is the number of samples taken.
	Samples int
	// Elapsed is the wall time of the whole sweep.
	Elapsed time.Duration
}

// SampleCount returns the number of samples a store gets at a pool size:
// count up to FullCountUpTo certificates, then count*FullCountUpTo/size,
// but at least MinCount (or count, when count is smaller).
func SampleCount(count, size int) int {
	if count <= 0 {
		count = bench.DefaultCount
	}
	if size <= FullCountUpTo {
		return count
	}
	c := int(int64(count) * FullCountUpTo / int64(size))
	return max(c, min(count, MinCount))
}

// history is what one store measured at its last sizes, for estimates.
type history struct {
	sizes     []int
	secPerOp  []float64 // median sec/op per size
	wallPerOp []float64 // wall seconds per sample, per (ops+1) refreshes
}

// Sweep sweeps each family over the sizes on every store and calls emit
// with every sample as soon as it is measured (its Name set to
// results.SweepName). It stops at the first error, or when ctx is done;
// the result then holds what was done so far.
func Sweep(ctx context.Context, opts SweepOptions, emit func(bench.Sample) error) (*SweepResult, error) {
	if len(opts.Stores) == 0 {
		return nil, errors.New("sweep: no store to measure")
	}
	if len(opts.Families) == 0 {
		return nil, errors.New("sweep: no family to sweep")
	}
	sizes := slices.Clone(opts.Sizes)
	if len(sizes) == 0 {
		sizes = slices.Clone(DefaultSizes)
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	if sizes[0] < 1 {
		return nil, fmt.Errorf("sweep: pool size %d, want at least 1", sizes[0])
	}
	res := &SweepResult{}
	start := time.Now()
	defer func() { res.Elapsed = time.Since(start) }()
	for _, fam := range opts.Families {
		if err := sweepFamily(ctx, opts, fam, sizes, res, emit); err != nil {
			return res, err
		}
	}
	return res, nil
}

// sweepFamily sweeps one family, adding to res.
func sweepFamily(ctx context.Context, opts SweepOptions, fam scenarios.Family, sizes []int, res *SweepResult, emit func(bench.Sample) error) error {
	w := &sweeper{opts: opts, fam: fam, res: res, hist: make(map[string]*history), emit: emit}
	start, samples := time.Now(), res.Samples
	for _, st := range opts.Stores {
		w.hist[st.Name] = &history{}
	}
	for si, size := range sizes {
		sizeStart, sizeSamples := time.Now(), w.res.Samples
		measured, err := w.measure(ctx, size)
		if err != nil {
			return fmt.Errorf("sweep: %w", err)
		}
		if opts.Progress != nil && opts.ProgressLines && measured {
			left := ""
			if n := len(sizes) - si - 1; n > 0 {
				left = fmt.Sprintf("; %d sizes left", n)
			}
			fmt.Fprintf(opts.Progress, "%s at %d certificates: %d samples in %s%s\n", fam.Name, size, w.res.Samples-sizeSamples, time.Since(sizeStart).Round(time.Second), left)
		}
	}
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "%s: %d samples in %s\n", fam.Name, res.Samples-samples, time.Since(start).Round(time.Second))
	}
	return nil
}

// sweeper is the sweep of one family: its options, what it reports, and
// what each store measured so far.
type sweeper struct {
	opts SweepOptions
	fam  scenarios.Family
	res  *SweepResult
	hist map[string]*history
	emit func(bench.Sample) error
}

// note records a note, and shows it when there is progress to show.
func (w *sweeper) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	w.res.Notes = append(w.res.Notes, msg)
	if w.opts.Progress != nil {
		if !w.opts.ProgressLines {
			fmt.Fprint(w.opts.Progress, "\r\033[K")
		}
		fmt.Fprintf(w.opts.Progress, "note: %s\n", msg)
	}
}

// plan returns the stores to measure at size, the samples each gets
// within the budget, and the sample timeout there.
func (w *sweeper) plan(size, ops int) (active []certstore.Info, plan map[string]int, timeout time.Duration) {
	fam := w.fam.Name
	timeout, plan = w.opts.SampleTimeout, make(map[string]int)
	for _, st := range w.opts.Stores {
		if limit, ok := w.opts.MaxSize[st.Name]; ok && size > limit {
			w.note("%s: %s skipped at %d certificates (above --max-size %s=%d)", fam, st.Name, size, st.Name, limit)
			continue
		}
		c := SampleCount(w.opts.Count, size)
		if est, ok := w.hist[st.Name].estimate(size, ops); ok {
			if w.opts.SampleTimeout > 0 {
				timeout = max(timeout, time.Duration(10*est*1e9))
			}
			if b := w.opts.Budget; b > 0 && time.Duration(float64(c)*est*1e9) > b {
				fit := int(b.Seconds() / est)
				if fit < 1 {
					w.note("%s: %s skipped at %d certificates: one sample is estimated at %s, over the budget of %s", fam, st.Name, size, roundDur(est), b)
					continue
				}
				w.note("%s: %s gets %d samples instead of %d at %d certificates: each is estimated at %s, budget %s", fam, st.Name, fit, c, size, roundDur(est), b)
				c = fit
			}
		}
		plan[st.Name] = c
		active = append(active, st)
	}
	return active, plan, timeout
}

// measure takes the planned samples of every store at size, interleaved,
// and adds what they measured to the stores' histories. It reports false
// when no store was to be measured there.
func (w *sweeper) measure(ctx context.Context, size int) (bool, error) {
	sc := w.fam.At(size)
	active, plan, timeout := w.plan(size, sc.Ops)
	if len(active) == 0 {
		return false, nil
	}
	spent := make(map[string]time.Duration)
	secs := make(map[string][]float64)
	bopts := bench.Options{
		Stores:        active,
		Scenarios:     []scenarios.Scenario{sc},
		Count:         slices.Max(slices.Collect(maps.Values(plan))),
		SampleTimeout: timeout,
		Fault:         w.opts.Fault,
		Name: func(scenario, store string) string {
			return results.SweepName(w.fam.Name, size, scenario, store)
		},
	}
	if !w.opts.ProgressLines {
		bopts.Progress = w.opts.Progress
	}
	err := bench.Run(ctx, bopts, func(s bench.Sample) error {
		if err := w.emit(s); err != nil {
			return err
		}
		w.res.Samples++
		spent[s.Store] += s.Wall
		secs[s.Store] = append(secs[s.Store], s.NsPerOp/1e9)
		k := len(secs[s.Store])
		if k >= plan[s.Store] {
			return bench.ErrSkipStore
		}
		if b := w.opts.Budget; b > 0 && spent[s.Store] > b {
			w.note("%s: %s stopped after %d of %d samples at %d certificates: %s spent, budget %s", w.fam.Name, s.Store, k, plan[s.Store], size, spent[s.Store].Round(time.Second), b)
			return bench.ErrSkipStore
		}
		return nil
	})
	if err != nil {
		return true, err
	}
	for name, xs := range secs {
		h := w.hist[name]
		h.sizes = append(h.sizes, size)
		h.secPerOp = append(h.secPerOp, median(xs))
		h.wallPerOp = append(h.wallPerOp, spent[name].Seconds()/float64(len(xs))/float64(sc.Ops+1))
	}
	return true, nil
}

// estimate returns the estimated wall seconds of one sample at size with
// ops ops (ops+1 refreshes, counting the untimed first one), extrapolated
// from the largest size measured: its wall time per refresh, scaled by
// (size/last)^k where k is the growth of sec/op between the last two
// sizes, at least 1 (a refresh is at least linear in the pool).
func (h *history) estimate(size, ops int) (float64, bool) {
	n := len(h.sizes)
	if n == 0 {
		return 0, false
	}
	k := 1.0
	if n >= 2 && h.secPerOp[n-2] > 0 && h.secPerOp[n-1] > 0 {
		k = math.Log(h.secPerOp[n-1]/h.secPerOp[n-2]) / math.Log(float64(h.sizes[n-1])/float64(h.sizes[n-2]))
		k = math.Max(k, 1)
	}
	perRefresh := h.wallPerOp[n-1] * math.Pow(float64(size)/float64(h.sizes[n-1]), k)
	return perRefresh * float64(ops+1), true
}

// median is the center of xs as compare reports it (benchmath, assuming
// nothing of the distribution).
func median(xs []float64) float64 {
	return benchmath.AssumeNothing.Summary(benchmath.NewSample(xs, &benchmath.DefaultThresholds), 0.95).Center
}

func roundDur(sec float64) time.Duration {
	d := time.Duration(sec * 1e9)
	switch {
	case d > time.Minute:
		return d.Round(time.Second)
	case d > time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchmath"
)

// DefaultSweepSizes are the pool sizes of a sweep when none are given.
var DefaultSweepSizes = []int{100, 1000, 10000, 100000}

// SweepOptions says what Sweep measures.
type SweepOptions struct {
	Families []scenarios.Family // swept one after another
	Sizes    []int              // pool sizes, run in ascending order
	Stores   []certstore.Info   // measured at every size, interleaved
	// Count is the samples per store at sizes up to 10,000 (fewer above,
	// see sweepCount); 0 means DefaultCount.
	Count   int
	MaxSize map[string]int // per store name: sizes above it are skipped
	// Budget bounds the wall time of one store at one size; 0: no bound.
	Budget time.Duration
	// Progress, when not nil, receives a line per sample (on a terminal),
	// or with ProgressLines a line per size (for a log), and the notes.
	Progress      io.Writer
	ProgressLines bool
	// SampleTimeout and Fault are Options'. A positive SampleTimeout is
	// raised at a size to ten times the estimate of one sample there, so
	// that a store slow at the largest sizes is not taken for hung.
	SampleTimeout time.Duration
	Fault         func(*StoreFault) error
}

// SweepResult is what Sweep reports besides the samples.
type SweepResult struct {
	Notes   []string // sizes skipped and sample counts cut, and why, in order
	Samples int
	Elapsed time.Duration
}

// sweepCount returns the samples a store gets at a pool size: count up to
// 10,000 certificates, then count*10,000/size, but at least 3 (or count,
// when smaller), enough for a median that one slow sample does not decide.
func sweepCount(count, size int) int {
	const fullUpTo = 10000
	if count <= 0 {
		count = DefaultCount
	}
	if size <= fullUpTo {
		return count
	}
	return max(int(int64(count)*fullUpTo/int64(size)), min(count, 3))
}

// history is what one store measured at its last sizes, for estimates.
type history struct {
	sizes     []int
	secPerOp  []float64 // median sec/op per size
	wallPerOp []float64 // wall seconds per sample, per (ops+1) refreshes
}

// Sweep measures each family's scenario (scenarios.Family.At) at each pool
// size, smallest first, on every store, and calls emit with every sample
// (named by results.SweepName, so that benchstat can project on /size).
// Large sizes cost more, so a sweep scales its effort down: fewer ops
// (scenarios.SweepOps), fewer samples (sweepCount), MaxSize, and Budget:
// before a size, a sample's cost is extrapolated from the previous sizes
// (history.estimate) and fewer samples are taken, or the size skipped, to
// fit; a store over budget while running takes no more samples there.
// Every cut is in SweepResult.Notes. Sweep stops at the first error, or
// when ctx is done; the result then holds what was done so far.
func Sweep(ctx context.Context, opts SweepOptions, emit func(Sample) error) (*SweepResult, error) {
	if len(opts.Stores) == 0 {
		return nil, errors.New("sweep: no store to measure")
	}
	if len(opts.Families) == 0 {
		return nil, errors.New("sweep: no family to sweep")
	}
	sizes := slices.Clone(opts.Sizes)
	if len(sizes) == 0 {
		sizes = slices.Clone(DefaultSweepSizes)
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
func sweepFamily(ctx context.Context, opts SweepOptions, fam scenarios.Family, sizes []int, res *SweepResult, emit func(Sample) error) error {
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
			fmt.Fprintf(opts.Progress, "%s at %d %s: %d samples in %s%s\n", fam.Name, size, fam.Counts(), w.res.Samples-sizeSamples, time.Since(sizeStart).Round(time.Second), left)
		}
	}
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "%s: %d samples in %s\n", fam.Name, res.Samples-samples, time.Since(start).Round(time.Second))
	}
	return nil
}

// sweeper is the sweep of one family, with what each store measured so far.
type sweeper struct {
	opts SweepOptions
	fam  scenarios.Family
	res  *SweepResult
	hist map[string]*history
	emit func(Sample) error
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
			w.note("%s: %s skipped at %d %s (above --max-size %s=%d)", fam, st.Name, size, w.fam.Counts(), st.Name, limit)
			continue
		}
		c := sweepCount(w.opts.Count, size)
		if est, ok := w.hist[st.Name].estimate(size, ops); ok {
			if w.opts.SampleTimeout > 0 {
				timeout = max(timeout, time.Duration(10*est*1e9))
			}
			if b := w.opts.Budget; b > 0 && time.Duration(float64(c)*est*1e9) > b {
				fit := int(b.Seconds() / est)
				if fit < 1 {
					w.note("%s: %s skipped at %d %s: one sample is estimated at %s, over the budget of %s", fam, st.Name, size, w.fam.Counts(), roundDur(est), b)
					continue
				}
				w.note("%s: %s gets %d samples instead of %d at %d %s: each is estimated at %s, budget %s", fam, st.Name, fit, c, size, w.fam.Counts(), roundDur(est), b)
				c = fit
			}
		}
		plan[st.Name] = c
		active = append(active, st)
	}
	return active, plan, timeout
}

// measure takes the planned samples of every store at size, interleaved,
// into the stores' histories; false when no store was to be measured.
func (w *sweeper) measure(ctx context.Context, size int) (bool, error) {
	sc := w.fam.At(size)
	active, plan, timeout := w.plan(size, sc.Ops)
	if len(active) == 0 {
		return false, nil
	}
	spent := make(map[string]time.Duration)
	secs := make(map[string][]float64)
	bopts := Options{
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
	err := Run(ctx, bopts, func(s Sample) error {
		if err := w.emit(s); err != nil {
			return err
		}
		w.res.Samples++
		spent[s.Store] += s.Wall
		secs[s.Store] = append(secs[s.Store], s.NsPerOp/1e9)
		k := len(secs[s.Store])
		if k >= plan[s.Store] {
			return ErrSkipStore
		}
		if b := w.opts.Budget; b > 0 && spent[s.Store] > b {
			w.note("%s: %s stopped after %d of %d samples at %d %s: %s spent, budget %s", w.fam.Name, s.Store, k, plan[s.Store], size, w.fam.Counts(), spent[s.Store].Round(time.Second), b)
			return ErrSkipStore
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

// estimate returns the wall seconds of one sample at size (ops+1
// refreshes): the largest size's wall time per refresh scaled by
// (size/last)^k, k the growth of sec/op over the last two sizes, at least
// 1 (a refresh is at least linear in the pool).
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

// median is the center of xs as compare reports it.
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

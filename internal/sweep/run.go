package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// Options says what Run measures.
type Options struct {
	// Family is the scenario family to sweep.
	Family scenarios.Family
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

// Result is what Run reports besides the samples.
type Result struct {
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

// Run sweeps the family over the sizes on every store and calls emit with
// every sample as soon as it is measured (its Name set to results.SweepName). It
// stops at the first error, or when ctx is done.
func Run(ctx context.Context, opts Options, emit func(bench.Sample) error) (*Result, error) {
	if len(opts.Stores) == 0 {
		return nil, errors.New("sweep: no store to measure")
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
	res := &Result{}
	start := time.Now()
	hist := make(map[string]*history)
	for _, st := range opts.Stores {
		hist[st.Name] = &history{}
	}
	note := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		res.Notes = append(res.Notes, msg)
		if opts.Progress != nil {
			if !opts.ProgressLines {
				fmt.Fprint(opts.Progress, "\r\033[K")
			}
			fmt.Fprintf(opts.Progress, "note: %s\n", msg)
		}
	}

	for si, size := range sizes {
		sc := opts.Family.At(size)
		timeout := opts.SampleTimeout
		sizeStart, sizeSamples := time.Now(), res.Samples
		plan := make(map[string]int)
		var active []certstore.Info
		for _, st := range opts.Stores {
			if limit, ok := opts.MaxSize[st.Name]; ok && size > limit {
				note("%s: %s skipped at %d certificates (above --max-size %s=%d)", opts.Family.Name, st.Name, size, st.Name, limit)
				continue
			}
			c := SampleCount(opts.Count, size)
			if est, ok := hist[st.Name].estimate(size, sc.Ops); ok && opts.SampleTimeout > 0 {
				timeout = max(timeout, time.Duration(10*est*1e9))
			}
			if opts.Budget > 0 {
				if est, ok := hist[st.Name].estimate(size, sc.Ops); ok && time.Duration(float64(c)*est*1e9) > opts.Budget {
					fit := int(opts.Budget.Seconds() / est)
					if fit < 1 {
						note("%s: %s skipped at %d certificates: one sample is estimated at %s, over the budget of %s", opts.Family.Name, st.Name, size, roundDur(est), opts.Budget)
						continue
					}
					note("%s: %s gets %d samples instead of %d at %d certificates: each is estimated at %s, budget %s", opts.Family.Name, st.Name, fit, c, size, roundDur(est), opts.Budget)
					c = fit
				}
			}
			plan[st.Name] = c
			active = append(active, st)
		}
		if len(active) == 0 {
			continue
		}
		taken := make(map[string]int)
		spent := make(map[string]time.Duration)
		secs := make(map[string][]float64)
		rounds := 0
		for _, c := range plan {
			rounds = max(rounds, c)
		}
		bopts := bench.Options{
			Stores:        active,
			Scenarios:     []scenarios.Scenario{sc},
			Count:         rounds,
			SampleTimeout: timeout,
			Fault:         opts.Fault,
			Name: func(scenario, store string) string {
				return results.SweepName(opts.Family.Name, size, scenario, store)
			},
		}
		if !opts.ProgressLines {
			bopts.Progress = opts.Progress
		}
		err := bench.Run(ctx, bopts, func(s bench.Sample) error {
			if err := emit(s); err != nil {
				return err
			}
			res.Samples++
			taken[s.Store]++
			spent[s.Store] += s.Wall
			secs[s.Store] = append(secs[s.Store], s.NsPerOp/1e9)
			k := taken[s.Store]
			if k >= plan[s.Store] {
				return bench.ErrSkipStore
			}
			if opts.Budget > 0 && spent[s.Store] > opts.Budget {
				note("%s: %s stopped after %d of %d samples at %d certificates: %s spent, budget %s", opts.Family.Name, s.Store, k, plan[s.Store], size, spent[s.Store].Round(time.Second), opts.Budget)
				return bench.ErrSkipStore
			}
			return nil
		})
		if err != nil {
			return res, fmt.Errorf("sweep: %w", err)
		}
		if opts.Progress != nil && opts.ProgressLines {
			left := ""
			if n := len(sizes) - si - 1; n > 0 {
				left = fmt.Sprintf("; %d sizes left", n)
			}
			fmt.Fprintf(opts.Progress, "%s at %d certificates: %d samples in %s%s\n", opts.Family.Name, size, res.Samples-sizeSamples, time.Since(sizeStart).Round(time.Second), left)
		}
		for _, st := range active {
			n := len(secs[st.Name])
			if n == 0 {
				continue
			}
			h := hist[st.Name]
			h.sizes = append(h.sizes, size)
			h.secPerOp = append(h.secPerOp, median(secs[st.Name]))
			h.wallPerOp = append(h.wallPerOp, spent[st.Name].Seconds()/float64(n)/float64(sc.Ops+1))
		}
	}
	res.Elapsed = time.Since(start)
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "%s: %d samples in %s\n", opts.Family.Name, res.Samples, res.Elapsed.Round(time.Second))
	}
	return res, nil
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

package history

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// A gen makes a history: commits x scenarios x units, samples per commit.
type gen struct {
	commits, scenarios, samples int
	units                       []string
	seed                        uint64
	// step returns the factor the level of (scenario, unit) has at commit c.
	step func(c, s int, unit string) float64
	// sigma overrides the noise of the clock units (lognormal sigma).
	sigma float64
	// load, if not 0, makes the level of the clock units wander from
	// commit to commit as a loaded runner's does (history only): an AR(1)
	// of the log level, coefficient 0.8, with this innovation.
	load float64
}

// t0 is the first commit's time.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func commitName(c int) string { return fmt.Sprintf("c%05d", c) }

// value returns sample k of (s, u) at commit c: counts exact, the
// simulated CPU with a jitter of 0.001%, other units lognormal noise.
func (g gen) value(r *rand.Rand, c, s int, unit string) float64 {
	v := 1000 * float64(s+1) * float64(len(unit))
	if g.step != nil {
		v *= g.step(c, s, unit)
	}
	info, _ := results.Info(unit)
	switch {
	case info.Count:
		return math.Round(v)
	case results.IsSimulated(unit):
		return math.Round(v * 1000 * (1 + 1e-5*r.NormFloat64()))
	}
	sigma := g.sigma
	if sigma == 0 {
		sigma = 0.1 + 0.1*float64(s%3)/2 // 10-20%
	}
	return v * math.Exp(sigma*r.NormFloat64())
}

// run returns commit c's result file, as certbench run writes it.
func (g gen) run(r *rand.Rand, c int) []byte {
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	cfg := []benchfmt.Config{{Key: "goos", Value: []byte("linux"), File: true}, {Key: "cpu", Value: []byte("test"), File: true}, {Key: results.VersionKey, Value: []byte("v0.0.0-test"), File: true}}
	for s := range g.scenarios {
		for range g.samples {
			res := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(results.ChurnName(fmt.Sprintf("s%02d", s), "naive")), Iters: 1}
			for _, u := range g.units {
				res.Values = append(res.Values, benchfmt.Value{Value: g.value(r, c, s, u), Unit: u})
			}
			if err := w.WriteResult(res); err != nil {
				panic(err)
			}
		}
	}
	w.Close()
	return buf.Bytes()
}

// stored returns commit c's file as Add stores it.
func stored(c int, run []byte) []byte {
	return append(fmt.Appendf(nil, "%s: %s\n%s: %s\n", CommitKey, commitName(c), CommitTimeKey, t0.Add(time.Duration(c)*time.Hour).Format(time.RFC3339)), run...)
}

// write writes the history into dir as Add would.
func (g gen) write(tb testing.TB, dir string) {
	r := rand.New(rand.NewPCG(g.seed, 1))
	for c := range g.commits {
		data := stored(c, g.run(r, c))
		if err := os.WriteFile(filepath.Join(dir, FileName(commitName(c), data)), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// history returns the history in memory, without files: many seeds.
func (g gen) history() *History {
	r := rand.New(rand.NewPCG(g.seed, 1))
	h := &History{series: map[Key]*track{}}
	for c := range g.commits {
		h.Commits = append(h.Commits, Commit{Hash: commitName(c), Time: t0.Add(time.Duration(c) * time.Hour)})
	}
	for s := range g.scenarios {
		for _, u := range g.units {
			_, tidy := benchunit.Tidy(1, u)
			k := Key{Benchmark: results.ChurnName(fmt.Sprintf("s%02d", s), "naive"), Unit: tidy}
			h.Keys = append(h.Keys, k)
			info, _ := results.Info(u)
			ar := 0.0
			for c := range g.commits {
				if g.load != 0 { // else the same draws as without load
					ar = 0.8*ar + g.load*r.NormFloat64()
				}
				v := make([]float64, g.samples)
				for i := range v {
					v[i] = g.value(r, c, s, u)
					if !info.Count && !results.IsSimulated(u) {
						v[i] *= math.Exp(ar)
					}
				}
				if tidy != u {
					for i := range v {
						v[i] *= 1e-9
					}
				}
				slices.Sort(v)
				tr := h.series[k]
				if tr == nil {
					tr = &track{}
					h.series[k] = tr
				}
				tr.commit = append(tr.commit, int32(c))
				tr.vals = append(tr.vals, v)
			}
		}
	}
	return h
}

func randFor(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

package history

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// Base returns main's level at the commit at ("": the newest) from the
// last n commits of st up to it, as the base of a gate against history
// (gate --history; the rule is docs/gate.md's "Against history"): per
// benchmark and unit, a clock's (any unit not a count or the simulated
// CPU's) one value per commit, its median; a count's or the simulated
// CPU's, the samples of the newest commits whose medians are within the
// newest one's range of samples, widened by the unit's minimum effect
// (DefaultMinEffect), as an older level of a precise unit is an older
// state of main, not noise.
// Only the results of instrument are kept. It returns the commits of
// the window, oldest first. Errors do not name st: the caller does.
func Base(ctx context.Context, st Store, at string, n int, instrument string) (*results.Set, []Commit, error) {
	h, err := Load(ctx, st)
	if err != nil {
		return nil, nil, err
	}
	if len(h.Commits) == 0 {
		return nil, nil, errors.New("no commits stored (certbench history add)")
	}
	end := len(h.Commits) - 1
	if at != "" {
		if end = h.Index(at); end < 0 {
			return nil, nil, fmt.Errorf("commit %s is not in the history (its newest is %s)", at, h.Commits[len(h.Commits)-1].Hash)
		}
	}
	window := h.Commits[max(0, end-n+1) : end+1]
	index := map[string]int{}
	for i, c := range window {
		index[c.Hash] = i
	}
	runs := make([][]*results.Set, len(window))
	err = st.Walk(ctx, func(name string, data []byte) error {
		base := name[strings.LastIndex(name, "/")+1:]
		i, ok := index[base[:max(0, strings.LastIndex(base, "-"))]]
		if !ok {
			return nil
		}
		set, err := results.Read(bytes.NewReader(data), name)
		runs[i] = append(runs[i], set)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	set := baseSet(runs, instrument)
	if len(set.Series) == 0 {
		return nil, nil, fmt.Errorf("no results measured by %s in its %d commit(s) up to %s", instrument, len(window), window[len(window)-1].Hash)
	}
	set.Files = []string{"main's history " + st.String()}
	return set, window, nil
}

// A baseSeries is one benchmark's configuration at each commit and, per
// unit, the sorted samples of each commit that has it (nil for one that
// has not).
type baseSeries struct {
	name   benchfmt.Name
	config [][]benchfmt.Config
	units  []string
	values map[string][][]float64
}

// baseSet reduces the runs of each commit of a window to the base
// described at Base: one series per benchmark and commit.
func baseSet(runs [][]*results.Set, instrument string) *results.Set {
	var order []string
	levels := map[string]*baseSeries{}
	for i, sets := range runs {
		for _, set := range sets {
			for _, s := range set.Series {
				if cmp.Or(s.GetConfig(results.InstrumentKey), results.InstrumentWall) != instrument {
					continue
				}
				name := string(s.Name.Full())
				l := levels[name]
				if l == nil {
					l = &baseSeries{name: s.Name, config: make([][]benchfmt.Config, len(runs)), values: map[string][][]float64{}}
					levels[name] = l
					order = append(order, name)
				}
				if l.config[i] == nil {
					l.config[i] = baseConfig(s.Config)
				}
				for _, m := range s.Metrics {
					v := l.values[m.Unit]
					if v == nil {
						v = make([][]float64, len(runs))
						l.values[m.Unit] = v
						l.units = append(l.units, m.Unit)
					}
					v[i] = append(v[i], m.Values...)
					slices.Sort(v[i])
				}
			}
		}
	}
	out := &results.Set{Units: benchfmt.UnitMetadataMap{}}
	for _, name := range order {
		l := levels[name]
		for i := range runs {
			s := &results.Series{Name: l.name, Config: l.config[i]}
			for _, u := range l.units {
				if v := l.sample(u, i); len(v) > 0 {
					s.N = max(s.N, len(v))
					s.Metrics = append(s.Metrics, &results.Metric{Unit: u, Values: v, Samples: make([]int32, len(v))})
				}
			}
			if s.N > 0 {
				out.Series = append(out.Series, s)
			}
		}
	}
	return out
}

// sample returns what commit i adds to the base of unit: its median, or
// for a precise unit its samples if it and every commit after it are at
// the newest commit's level.
func (l *baseSeries) sample(unit string, i int) []float64 {
	v := l.values[unit]
	if v[i] == nil {
		return nil
	}
	info, _ := results.Info(unit)
	if !info.Count && !results.IsSimulated(unit) {
		return []float64{median(v[i])}
	}
	last := len(v) - 1
	for v[last] == nil {
		last--
	}
	lo, hi := v[last][0], v[last][len(v[last])-1]
	slack := DefaultMinEffect(unit) * max(math.Abs(lo), math.Abs(hi))
	for j := i; j <= last; j++ {
		if v[j] == nil {
			continue
		}
		if m := median(v[j]); m < lo-slack || m > hi+slack {
			return nil // an older level
		}
	}
	return v[i]
}

// baseConfig is a stored file's configuration without its commit's
// lines, which differ from commit to commit and are in Verdict.History.
func baseConfig(c []benchfmt.Config) []benchfmt.Config {
	return slices.DeleteFunc(slices.Clone(c), func(c benchfmt.Config) bool {
		return c.Key == CommitKey || c.Key == CommitTimeKey || c.Key == results.FileKey
	})
}

// Package blame names the code behind a regression the gate found, where
// the gate (which reads no profiles) and package profile meet: [Folders]
// implements gate.SiteFinder on a base's and a head's folder of heap
// profiles ("certbench profile --all") and callgrind files. It names the
// store lines that allocate more, or the store functions whose
// instructions grew.
package blame

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/results"
	"github.com/google/pprof/profile"
)

// maxCallees caps the library callees attached to each heap site.
const maxCallees = 3

// Folders finds the sites behind a regression in a base and a head folder
// of heap profiles (named by cost.FileName) and callgrind files.
type Folders struct {
	Base, Head string
}

var _ gate.SiteFinder = Folders{}

// GrownSites implements gate.SiteFinder; a benchmark without profiles
// gives an error wrapping gate.ErrNoProfiles.
func (f Folders) GrownSites(scenario, store, unit string, n int) ([]gate.Site, error) {
	var sites []cost.Site
	var err error
	if results.IsSimulated(unit) {
		sites, err = f.callgrindSites(scenario, store, unit, n)
	} else {
		sites, err = f.heapSites(scenario, store, unit, n)
	}
	return gateSites(sites), err
}

// heapSites names the store lines whose allocations per op grew most, at
// the store's boundary (cost.CompareBoundary), or without store frames
// the functions whose flat allocations grew.
func (f Folders) heapSites(scenario, store, unit string, n int) ([]cost.Site, error) {
	sampleType, err := cost.AllocSampleType(unit)
	if err != nil {
		return nil, err
	}
	base, head, err := f.load(scenario, store)
	if err != nil {
		return nil, err
	}
	var sites []cost.Site
	var sides cost.Sides
	what := "function of the store"
	b, err := cost.CompareBoundary(base, head, sampleType)
	switch {
	case errors.Is(err, cost.ErrNoStore):
		c, err := cost.Compare(base, head, sampleType)
		if err != nil {
			return nil, err
		}
		sites, sides, what = c.Grew(n, cost.ByFlat), c.Sides, "function"
	case err != nil:
		return nil, err
	default:
		sites, sides = b.Grew(n), b.Sides
		for i := range sites {
			sites[i].Callees = sites[i].Callees[:min(len(sites[i].Callees), maxCallees)]
		}
	}
	if len(sites) == 0 {
		return nil, fmt.Errorf("the profiles show no %s that allocates more (base %s, head %s: %.0f and %.0f %s per op)",
			what, f.Base, f.Head, sides.BaseTotal, sides.HeadTotal, sides.Unit)
	}
	return sites, nil
}

// load reads the base and head heap profiles of one benchmark; a side
// without the file gives an error wrapping gate.ErrNoProfiles.
func (f Folders) load(scenario, store string) (base, head *profile.Profile, err error) {
	var ps [2]*profile.Profile
	for i, dir := range []string{f.Base, f.Head} {
		path := filepath.Join(dir, cost.FileName(scenario, store))
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%w: %s not found", gate.ErrNoProfiles, path)
		}
		if ps[i], err = cost.Load(path); err != nil {
			return nil, nil, err
		}
	}
	return ps[0], ps[1], nil
}

// callgrindSites compares each side's median window (an outlier is not
// blamed) at the store's boundary (callgrind.Compare).
func (f Folders) callgrindSites(scenario, store, unit string, n int) ([]cost.Site, error) {
	m := callgrind.Instructions
	if unit == results.UnitEstCycles {
		m = callgrind.EstimatedCycles
	}
	var ps [2]*callgrind.Profile
	for i, dir := range []string{f.Base, f.Head} {
		var err error
		if ps[i], err = medianWindow(dir, scenario, store, m); err != nil {
			return nil, err
		}
	}
	b, err := callgrind.Compare(ps[0], ps[1], max(ps[0].Ops(), 1), max(ps[1].Ops(), 1), m)

	if err != nil {
		return nil, err
	}
	var sites []cost.Site
	for _, c := range b.Grew(n) {
		s := cost.Site{Function: cost.ShortName(c.Function), Base: c.Base, Head: c.Head}
		for _, cc := range c.Callees {
			s.Callees = append(s.Callees, cost.Site{Function: cost.ShortName(cc.Function), Base: cc.Base, Head: cc.Head})
		}
		sites = append(sites, s)
	}
	if len(sites) == 0 {
		return nil, fmt.Errorf("the callgrind files show no function whose %s grew (base %s, head %s: %.0f and %.0f per op)", m.Name, f.Base, f.Head, b.BaseTotal, b.HeadTotal)
	}
	return sites, nil
}

// gateSites converts sites to the gate's copy of their shape.
func gateSites(sites []cost.Site) []gate.Site {
	var out []gate.Site
	for _, s := range sites {
		out = append(out, gate.Site{Function: s.Function, File: s.File, Line: s.Line, Base: s.Base, Head: s.Head, Callees: gateSites(s.Callees)})
	}
	return out
}

// medianWindow returns the window of the benchmark's callgrind files in dir
// (<scenario>.<store>[.<sample>].callgrind) whose total on m is the
// (lower) median.
func medianWindow(dir, scenario, store string, m callgrind.Metric) (*callgrind.Profile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type window struct {
		p     *callgrind.Profile
		total float64
	}
	var ws []window
	prefix := scenario + "." + store + "."
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		sample, isSample := strings.CutSuffix(rest, ".callgrind")
		if !ok || e.IsDir() || (rest != "callgrind" && (!isSample || sample == "" || strings.Trim(sample, "0123456789") != "")) {
			continue
		}
		file := filepath.Join(dir, e.Name())
		ps, err := callgrind.ParseFile(file)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			top, err := callgrind.Summarize(p, m, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			ws = append(ws, window{p, top.Total})
		}
	}
	if len(ws) == 0 {
		return nil, fmt.Errorf("%w: no callgrind files for %s/%s in %s", gate.ErrNoProfiles, scenario, store, dir)
	}
	slices.SortStableFunc(ws, func(a, b window) int { return cmp.Compare(a.total, b.total) })
	return ws[(len(ws)-1)/2].p, nil
}

package blame

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/internal/profile"
	"github.com/certbench/certbench/results"
)

// Folders finds the sites behind every regression that has them, in two
// folders that may hold heap profiles and callgrind files alike: Heap's
// for allocs/op and B/op, Callgrind's for the simulated CPU's units. It is
// what "certbench gate --base-profiles --head-profiles" asks.
type Folders struct {
	// Base and Head are the folders of the two sides.
	Base, Head string
}

var _ gate.SiteFinder = Folders{}

// GrownSites implements gate.SiteFinder.
func (f Folders) GrownSites(scenario, store, unit string, n int) ([]gate.Site, error) {
	if results.IsSimulated(unit) {
		return Callgrind(f).GrownSites(scenario, store, unit, n)
	}
	return Heap{Dirs: profile.Dirs{Base: f.Base, Head: f.Head}}.GrownSites(scenario, store, unit, n)
}

// Callgrind finds the functions behind instructions/op and est-cycles/op
// regressions in the callgrind files of two folders (certbench run --instrument simulate --callgrind-dir, or
// certbench profile --instrument simulate): for a benchmark, the window
// with the median total on each side, compared function by function at
// the store's boundary (callgrind.Compare).
type Callgrind struct {
	// Base and Head are the folders of the two sides.
	Base, Head string
}

var _ gate.SiteFinder = Callgrind{}

// GrownSites implements gate.SiteFinder: the window with the median
// total of each side (an outlier window is not the one blamed), compared
// by callgrind.Compare. A benchmark without callgrind files gives an
// error wrapping gate.ErrNoProfiles.
func (d Callgrind) GrownSites(scenario, store, unit string, n int) ([]gate.Site, error) {
	m := callgrind.Instructions
	if unit == results.UnitEstCycles {
		m = callgrind.EstimatedCycles
	}
	bp, err := medianWindow(d.Base, scenario, store, m)
	if err != nil {
		return nil, err
	}
	hp, err := medianWindow(d.Head, scenario, store, m)
	if err != nil {
		return nil, err
	}
	b, err := callgrind.Compare(bp, hp, max(bp.Ops(), 1), max(hp.Ops(), 1), m)
	if err != nil {
		return nil, err
	}
	var out []gate.Site
	for _, c := range b.Grew(n) {
		s := gate.Site{Function: shortFunc(c.Function), Base: c.Base, Head: c.Head}
		for _, cc := range c.Callees {
			s.Callees = append(s.Callees, gate.Site{Function: shortFunc(cc.Function), Base: cc.Base, Head: cc.Head})
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the callgrind files show no function whose %s grew (base %s, head %s: %.0f and %.0f per op)", m.Name, d.Base, d.Head, b.BaseTotal, b.HeadTotal)
	}
	return out, nil
}

// shortFunc drops certbench's own module path from a function name, as
// the allocation sites are named ("stores/optimized.(*Store).Update").
func shortFunc(name string) string {
	return strings.TrimPrefix(name, "github.com/certbench/certbench/")
}

// errNoCallgrind is wrapped when a folder has no callgrind file for a
// benchmark.
var errNoCallgrind = errors.New("no callgrind files")

// callgrindFiles returns the callgrind files of a benchmark in dir:
// <scenario>.<store>.callgrind and <scenario>.<store>.<sample>.callgrind.
func callgrindFiles(dir, scenario, store string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	prefix := scenario + "." + store + "."
	var out []string
	for _, e := range entries {
		name := e.Name()
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok || e.IsDir() {
			continue
		}
		if sample, ok := strings.CutSuffix(rest, ".callgrind"); ok && sample != "" && strings.Trim(sample, "0123456789") == "" {
			out = append(out, filepath.Join(dir, name))
		} else if rest == "callgrind" {
			out = append(out, filepath.Join(dir, name))
		}
	}
	slices.Sort(out)
	return out, nil
}

// medianWindow reads the benchmark's callgrind files in dir and returns
// the window whose total per op on m is the median (the lower one of an
// even count): a window that an outlier disturbed is not the one blamed.
func medianWindow(dir, scenario, store string, m callgrind.Metric) (*callgrind.Profile, error) {
	files, err := callgrindFiles(dir, scenario, store)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: %w for %s/%s in %s", gate.ErrNoProfiles, errNoCallgrind, scenario, store, dir)
	}
	type window struct {
		p     *callgrind.Profile
		total float64
	}
	var ws []window
	for _, f := range files {
		ps, err := callgrind.ParseFile(f)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			top, err := callgrind.Summarize(p, m, 0)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			ws = append(ws, window{p, top.Total})
		}
	}
	slices.SortFunc(ws, func(a, b window) int { return cmp.Compare(a.total, b.total) })
	return ws[(len(ws)-1)/2].p, nil
}

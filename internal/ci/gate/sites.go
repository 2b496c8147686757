package gate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/results"
)

// A SiteFinder names up to n sites that grew for one benchmark and unit,
// largest growth first. Package blame implements it; gate reads no
// profiles.
type SiteFinder interface {
	GrownSites(scenario, store, unit string, n int) ([]cost.Site, error)
}

// A BenchmarkSiteFinder also names the sites of benchmarks without
// scenario and store keys, by name.
type BenchmarkSiteFinder interface {
	SiteFinder
	GrownBenchmarkSites(benchmark, unit string, n int) ([]cost.Site, error)
}

// AddSites attaches up to n sites from f to each regression of a unit
// HasSites; what cannot be found is a NoSites warning.
func (v *Verdict) AddSites(f SiteFinder, n int) {
	if f == nil {
		return
	}
	var failed []Problem
	for _, fd := range v.Findings {
		if fd.Status != Regressed || !HasSites(fd.Unit) {
			continue
		}
		var sites []cost.Site
		var err error
		if bf, ok := f.(BenchmarkSiteFinder); ok && fd.Scenario == "" && fd.Store == "" {
			sites, err = bf.GrownBenchmarkSites(fd.Benchmark, fd.Unit, n)
		} else {
			sites, err = f.GrownSites(fd.Scenario, fd.Store, fd.Unit, n)
		}
		if err != nil {
			failed = append(failed, Problem{Kind: NoSites, Message: fmt.Sprintf("%s not named: %s %s: %v",
				strings.ToLower(sitesTitle(fd.Unit)), fd.Label(), fd.Unit, err)})
			continue
		}
		fd.Sites = significantSites(sites, fd.Change())
	}
	v.Problems = append(v.Problems, failed...)
}

// HasSites reports whether a regression of unit can be traced to sites:
// allocations (heap profiles) and the simulated CPU's units (callgrind).
func HasSites(unit string) bool {
	return unit == results.UnitAllocs || unit == results.UnitBytes || results.IsSimulated(unit)
}

// sitesTitle names what the sites of a unit are, for the renderers.
func sitesTitle(unit string) string {
	if results.IsSimulated(unit) {
		return "Functions"
	}
	return "Allocation sites"
}

// minSiteShare is the smallest share of the regression a site lists
// with: two processes' profiles differ by a few objects of attribution.
const minSiteShare = 0.02

// significantSites keeps the first site and those that grew by at
// least minSiteShare of change.
func significantSites(sites []cost.Site, change float64) []cost.Site {
	for i, s := range sites {
		if i > 0 && change > 0 && s.Growth() < minSiteShare*change {
			return sites[:i]
		}
	}
	return sites
}

// sitesKind says, for the sites table's title, what their values are.
func sitesKind(sites []cost.Site) string {
	switch {
	case slices.ContainsFunc(sites, func(s cost.Site) bool { return s.Line > 0 }):
		return "per op by store line, library callees indented"
	case slices.ContainsFunc(sites, func(s cost.Site) bool { return len(s.Callees) > 0 }):
		return "per op by store function with the library code it calls, library callees indented"
	}
	return "flat per op"
}

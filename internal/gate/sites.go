package gate

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/certbench/certbench/results"
)

// A Site is a function, or a line of one, whose allocations grew between
// base and head, per op.
type Site struct {
	// Function is the function's short name, such as
	// "stores/optimized.(*Store).Update".
	Function string `json:"function"`
	// File and Line, when known, are the line of Function the site is:
	// the site is then everything allocated below that line (a store line
	// charged with what the library code it calls allocates), not only
	// by the function itself. Line is 0 when unknown.
	File string `json:"file,omitempty"`
	Line int64  `json:"line,omitempty"`
	// Base and Head are what the site allocated per op on each side, in
	// the finding's unit (objects for allocs/op, bytes for B/op): the
	// function's own (flat) allocations, or everything below the line.
	Base, Head float64 `json:"-"`
	// Callees, for a line, are the functions it called whose allocations
	// changed most, largest growth first (their File and Line are empty).
	Callees []Site `json:"callees,omitempty"`
}

// Where returns "file.go:123" (the base name of File), or "" when the
// site has no line.
func (s Site) Where() string {
	if s.File == "" || s.Line <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
}

// Label returns the function and, when known, its line:
// "stores/optimized.(*Store).Update (update.go:107)".
func (s Site) Label() string {
	if w := s.Where(); w != "" {
		return s.Function + " (" + w + ")"
	}
	return s.Function
}

// Growth returns Head - Base.
func (s Site) Growth() float64 { return s.Head - s.Base }

// A SiteFinder names the allocation sites that grew for one benchmark
// and unit (allocs/op or B/op), largest growth first, at most n.
// Package blame implements it on the heap profiles of base and head;
// gate itself reads no profiles.
type SiteFinder interface {
	GrownSites(scenario, store, unit string, n int) ([]Site, error)
}

// A BenchmarkSiteFinder is a SiteFinder that also names the sites of
// benchmarks without scenario and store keys (a package's own go test
// benchmarks), by the finding's benchmark name. AddSites asks it for
// those findings.
type BenchmarkSiteFinder interface {
	SiteFinder
	GrownBenchmarkSites(benchmark, unit string, n int) ([]Site, error)
}

// ErrNoProfiles is returned (wrapped) by a SiteFinder that has no
// profiles for a benchmark.
var ErrNoProfiles = errors.New("no profiles")

// AddSites asks f for up to n sites that grew for each regressed
// allocs/op, B/op or simulated CPU (instructions/op, est-cycles/op)
// finding and attaches them to it, leaving out sites whose growth is
// under 2% of the regression (profiles of two processes differ by a few
// objects in attribution; that is not the regression). What cannot be
// found is reported as a NoSites problem (never a failure).
func (v *Verdict) AddSites(f SiteFinder, n int) {
	if f == nil {
		return
	}
	var failed []Problem
	for _, fd := range v.Findings {
		if fd.Status != Regressed || !HasSites(fd.Unit) {
			continue
		}
		var sites []Site
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

// HasSites reports whether a regression of unit can be traced to sites
// (see AddSites): allocations from heap profiles, the simulated CPU's
// units from callgrind's per-function counts.
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

// minSiteShare is the smallest growth, as a share of the regression, that
// a site needs to be listed: profiles of two processes differ by a few
// objects in how the runtime attributes them, which is not the regression.
const minSiteShare = 0.02

// significantSites keeps the sites whose growth is at least minSiteShare
// of change (sites are sorted by growth; the first is always kept).
func significantSites(sites []Site, change float64) []Site {
	for i, s := range sites {
		if i > 0 && change > 0 && s.Growth() < minSiteShare*change {
			return sites[:i]
		}
	}
	return sites
}

// sitesKind says, for the sites table's title, what the values of sites
// are: everything below store lines when the sites are lines, the
// functions' own allocations ("flat per op") otherwise.
func sitesKind(sites []Site) string {
	for _, s := range sites {
		if s.Line > 0 {
			return "per op by store line, library callees indented"
		}
	}
	for _, s := range sites {
		if len(s.Callees) > 0 {
			return "per op by store function with the library code it calls, library callees indented"
		}
	}
	return "flat per op"
}

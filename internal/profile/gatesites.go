package profile

import (
	"errors"
	"fmt"

	"github.com/certbench/certbench/internal/gate"
)

// maxCallees caps the library callees attached to each gate site.
const maxCallees = 3

// GrownSites implements gate.SiteFinder on the heap profiles of d: it
// names the lines of the store under test whose allocations per op grew
// most between the base and head profiles of the benchmark, alloc_objects
// for allocs/op and alloc_space for B/op. It compares at the store's
// boundary (see [CompareBoundary]): each line is charged with what the
// library code it calls allocates, so allocations that moved between
// library functions (two binaries attribute some differently) cancel, and
// the library callees whose share changed most are attached to the site.
// When the profiles have no frame that can be taken for the store's, it
// names the functions whose own (flat) allocations grew, as Compare does.
//
// A benchmark without profiles gives an error wrapping gate.ErrNoProfiles
// (and ErrNotFound); profiles in which nothing grew give an error that
// says so, with both totals.
//
// It is what "certbench gate --base-profiles --head-profiles" passes to
// Verdict.AddSites, so that package gate reads no profiles itself.
func (d Dirs) GrownSites(scenario, store, unit string, n int) ([]gate.Site, error) {
	var sampleType string
	switch unit {
	case gate.UnitAllocs:
		sampleType = AllocObjects
	case gate.UnitBytes:
		sampleType = AllocSpace
	default:
		return nil, fmt.Errorf("no profile sample type for %s", unit)
	}
	b, err := d.CompareBoundary(scenario, store, sampleType)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", gate.ErrNoProfiles, err)
	}
	if errors.Is(err, ErrNoStore) {
		return d.grownFunctions(scenario, store, sampleType, n)
	}
	if err != nil {
		return nil, err
	}
	var out []gate.Site
	for _, l := range b.Grew(n) {
		s := gate.Site{Function: l.Function, File: l.File, Line: l.Line, Base: l.Base, Head: l.Head}
		for _, c := range l.Callees[:min(len(l.Callees), maxCallees)] {
			s.Callees = append(s.Callees, gate.Site{Function: c.Function, Base: c.Base, Head: c.Head})
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the profiles show no function of the store that allocates more (base %s, head %s: %.0f and %.0f %s per op)",
			d.Base, d.Head, b.BaseTotal, b.HeadTotal, b.Unit)
	}
	return out, nil
}

// grownFunctions names the functions whose flat value grew most.
func (d Dirs) grownFunctions(scenario, store, sampleType string, n int) ([]gate.Site, error) {
	c, err := d.Compare(scenario, store, sampleType)
	if err != nil {
		return nil, err
	}
	var out []gate.Site
	for _, dl := range c.Grew(n, ByFlat) {
		out = append(out, gate.Site{Function: dl.Function, Base: dl.BaseFlat, Head: dl.HeadFlat})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the profiles show no function that allocates more (base %s, head %s: %.0f and %.0f %s per op)",
			d.Base, d.Head, c.BaseTotal, c.HeadTotal, c.Unit)
	}
	return out, nil
}

var _ gate.SiteFinder = Dirs{}

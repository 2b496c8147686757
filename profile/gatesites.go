package profile

import (
	"errors"
	"fmt"

	"github.com/certbench/certbench/gate"
)

// GrownSites implements gate.SiteFinder on the heap profiles of d: it
// names the functions whose own (flat) allocations per op grew most
// between the base and head profiles of the benchmark, alloc_objects for
// allocs/op and alloc_space for B/op. A benchmark without profiles gives an
// error wrapping gate.ErrNoProfiles (and ErrNotFound); profiles in which
// nothing grew give an error that says so, with both totals.
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
	c, err := d.Compare(scenario, store, sampleType)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", gate.ErrNoProfiles, err)
	}
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

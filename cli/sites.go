package cli

import (
	"errors"
	"fmt"

	"github.com/certbench/certbench/gate"
	"github.com/certbench/certbench/profile"
)

// profileSites names the allocation sites that grew from the heap profiles
// of base and head: it is the gate.SiteFinder the gate command uses, so
// that package gate needs nothing of package profile. Sites are ranked by
// flat growth per op (what a function allocated itself), alloc_objects for
// allocs/op and alloc_space for B/op.
type profileSites struct {
	dirs profile.Dirs
}

// GrownSites implements gate.SiteFinder.
func (p profileSites) GrownSites(scenario, store, unit string, n int) ([]gate.Site, error) {
	var sampleType string
	switch unit {
	case gate.UnitAllocs:
		sampleType = profile.AllocObjects
	case gate.UnitBytes:
		sampleType = profile.AllocSpace
	default:
		return nil, fmt.Errorf("no profile sample type for %s", unit)
	}
	c, err := p.dirs.Compare(scenario, store, sampleType)
	if errors.Is(err, profile.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", gate.ErrNoProfiles, err)
	}
	if err != nil {
		return nil, err
	}
	var out []gate.Site
	for _, dl := range c.Grew(n, profile.ByFlat) {
		out = append(out, gate.Site{Function: dl.Function, Base: dl.BaseFlat, Head: dl.HeadFlat})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the profiles show no function that allocates more (base %s, head %s: %.0f and %.0f %s per op)",
			p.dirs.Base, p.dirs.Head, c.BaseTotal, c.HeadTotal, c.Unit)
	}
	return out, nil
}

// Package blame names the code behind a regression the gate found. It is
// where the gate (which reads no profiles) and package profile (which
// knows nothing of the gate) meet: [Heap] implements gate.SiteFinder on
// the heap profiles "certbench profile --all" writes for a base and a head
// binary, so that "certbench gate --base-profiles --head-profiles" names,
// for each allocs/op or B/op regression, the lines of the store under test
// that allocate more. [Callgrind] does the same for instructions/op (and
// est-cycles/op) regressions on the callgrind files of "certbench run
// --instrument simulate --callgrind-dir", naming the store functions whose
// instructions grew.
package blame

import (
	"errors"
	"fmt"

	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/internal/profile"
)

// maxCallees caps the library callees attached to each gate site.
const maxCallees = 3

// Heap finds the sites behind allocs/op and B/op regressions in the heap
// profiles of two folders, one file per benchmark named
// profile.FileName(scenario, store).
type Heap struct {
	Dirs profile.Dirs
}

var _ gate.SiteFinder = Heap{}

// GrownSites implements gate.SiteFinder: it names the lines of the store
// under test whose allocations per op grew most between the base and head
// profiles of the benchmark, alloc_objects for allocs/op and alloc_space
// for B/op. It compares at the store's boundary (see
// profile.CompareBoundary): each line is charged with what the library
// code it calls allocates, so allocations that moved between library
// functions (two binaries attribute some differently) cancel, and the
// library callees whose share changed most are attached to the site.
// When the profiles have no frame that can be taken for the store's, it
// names the functions whose own (flat) allocations grew, as
// profile.Compare does.
//
// A benchmark without profiles gives an error wrapping gate.ErrNoProfiles
// (and profile.ErrNotFound); profiles in which nothing grew give an error
// that says so, with both totals.
func (h Heap) GrownSites(scenario, store, unit string, n int) ([]gate.Site, error) {
	sampleType, err := profile.AllocSampleType(unit)
	if err != nil {
		return nil, err
	}
	b, err := h.Dirs.CompareBoundary(scenario, store, sampleType)
	if errors.Is(err, profile.ErrNotFound) {
		return nil, fmt.Errorf("%w: %w", gate.ErrNoProfiles, err)
	}
	if errors.Is(err, profile.ErrNoStore) {
		return h.grownFunctions(scenario, store, sampleType, n)
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
			h.Dirs.Base, h.Dirs.Head, b.BaseTotal, b.HeadTotal, b.Unit)
	}
	return out, nil
}

// grownFunctions names the functions whose flat value grew most.
func (h Heap) grownFunctions(scenario, store, sampleType string, n int) ([]gate.Site, error) {
	c, err := h.Dirs.Compare(scenario, store, sampleType)
	if err != nil {
		return nil, err
	}
	var out []gate.Site
	for _, dl := range c.Grew(n, profile.ByFlat) {
		out = append(out, gate.Site{Function: dl.Function, Base: dl.BaseFlat, Head: dl.HeadFlat})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the profiles show no function that allocates more (base %s, head %s: %.0f and %.0f %s per op)",
			h.Dirs.Base, h.Dirs.Head, c.BaseTotal, c.HeadTotal, c.Unit)
	}
	return out, nil
}

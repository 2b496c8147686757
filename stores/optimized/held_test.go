package optimized

import (
	"slices"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/regressions"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
)

// heldFloorEntries is the floor of the price of atomicity: per generation
// that connections hold during renew-1-of-1000, the store may keep at
// most this many times one certificate's entry (results/held.md).
const heldFloorEntries = 8

// heldFloorTries is how many samples may try to come in under the floor:
// bytes do not depend on load, but the collector's timing does.
const heldFloorTries = 3

// measured returns unit's value in one sample of the catalogue scenario
// name on newStore.
func measured(t *testing.T, name, unit string, newStore certstore.Factory) float64 {
	t.Helper()
	sc, err := scenarios.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc[0].Build(0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := bench.Measure(newStore, name, w)
	if err != nil {
		t.Fatal(err)
	}
	if unit == results.UnitRetainedPerCert {
		return s.RetainedPerCert
	}
	for _, v := range s.Extra {
		if v.Unit == unit {
			return v.Value
		}
	}
	t.Fatalf("%s: no %s in the sample", name, unit)
	return 0
}

// TestHeldGenerationFloor keeps the store at the floor: what a held
// generation of renew-1-of-1000 costs is what changed (one entry) and the
// index shards the change copied, within heldFloorEntries entries; a
// janitor's 64 KiB per generation is far above it.
func TestHeldGenerationFloor(t *testing.T) {
	newStore := func() certstore.Store { return New() }
	entry := measured(t, "renew-1-of-1000", results.UnitRetainedPerCert, newStore)
	floor := heldFloorEntries * entry
	var got []float64
	for range heldFloorTries {
		perGen := measured(t, "held-100-renew-1-of-1000", results.UnitHeldPerGen, newStore)
		if got = append(got, perGen); perGen <= floor {
			break
		}
	}
	t.Logf("one entry %.0f B; held-B/gen %.0f (tries %v), floor %.0f B", entry, got[len(got)-1], got, floor)
	if slices.Min(got) > floor {
		t.Errorf("held-B/gen %v in %d samples, above the floor of %d entries of %.0f B (%.0f B)", got, len(got), heldFloorEntries, entry, floor)
	}
	if testing.Short() {
		return
	}
	// The floor tells a store that keeps more per generation apart.
	janitor := measured(t, "held-100-renew-1-of-1000", results.UnitHeldPerGen, regressions.Wrap(regressions.Janitor, newStore))
	if janitor <= floor {
		t.Errorf("the janitor variant keeps %.0f B per held generation, within the floor of %.0f B: the floor does not tell it apart", janitor, floor)
	}
}

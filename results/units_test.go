package results

import (
	"slices"
	"testing"
)

func TestUnits(t *testing.T) {
	for _, u := range []string{UnitNsPerOp, UnitSec, UnitBytes, UnitAllocs, UnitRetained, UnitRetainedPerCert,
		UnitGoroutines, UnitP50, UnitP50Sec, UnitP999Sec, UnitRefreshRate, UnitMBPerSec, UnitBytesPerSec} {
		if !IsKnownUnit(u) {
			t.Errorf("IsKnownUnit(%q) = false", u)
		}
	}
	if IsKnownUnit("ns") || IsKnownUnit("retained") {
		t.Error("unknown units known")
	}
	if got := KnownUnits(); got[0] != UnitNsPerOp || slices.Contains(got, UnitSec) {
		t.Errorf("KnownUnits = %v, want spellings as written, ns/op first", got)
	}
	if Better(UnitSec) != LowerIsBetter || Better(UnitRefreshRate) != HigherIsBetter || Better("x/op") != 0 {
		t.Error("Better")
	}
	if betterName(UnitP99) != "lower" || betterName(UnitRefreshRate) != "higher" || betterName("x") != "" {
		t.Error("BetterName")
	}
	var counts []string
	for _, u := range Units() {
		if u.Count {
			counts = append(counts, u.Unit)
		}
	}
	if !slices.Equal(counts, []string{UnitBytes, UnitAllocs, UnitGoroutines, UnitHeldGoroutinesPerGen, UnitReleasedHeldGoroutines}) {
		t.Errorf("counts = %v", counts)
	}
	if Title(UnitSec) != "time per op" || Title(UnitNsPerOp) != "time per op" || Title("x/op") != "x/op" || Title(UnitBytesPerSec) != UnitBytesPerSec {
		t.Error("Title")
	}
	if info, ok := Info(UnitP50Sec); !ok || info.Unit != UnitP50 {
		t.Errorf("Info(p50-sec) = %+v, %v", info, ok)
	}
}

func TestCPUUnit(t *testing.T) {
	info, ok := Info(UnitCPUSec)
	if !ok || info.Unit != UnitCPUNsPerOp || info.Better != LowerIsBetter || info.Count {
		t.Errorf("Info(%q) = %+v, %v; want cpu-ns/op, lower is better, not a count", UnitCPUSec, info, ok)
	}
}

func TestSimulatedUnits(t *testing.T) {
	for _, u := range []string{UnitInstructions, UnitEstCycles} {
		if !IsKnownUnit(u) || !IsSimulated(u) || IsCount(u) || Better(u) != LowerIsBetter {
			t.Errorf("%s: known %v, simulated %v, count %v, better %d", u, IsKnownUnit(u), IsSimulated(u), IsCount(u), Better(u))
		}
	}
	for _, u := range []string{UnitNsPerOp, UnitAllocs, "x/op"} {
		if IsSimulated(u) {
			t.Errorf("IsSimulated(%q) = true", u)
		}
	}
}

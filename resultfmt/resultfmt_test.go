package resultfmt_test

import (
	"testing"

	old "github.com/certbench/certbench/resultfmt"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// TestOldPath checks that code written against the old import path gets
// the new package's answers: names, units and the number format.
func TestOldPath(t *testing.T) {
	name := old.ChurnName("rotate-10-of-100", "optimized")
	if name != results.ChurnName("rotate-10-of-100", "optimized") {
		t.Errorf("ChurnName = %q, not the new package's", name)
	}
	if v, ok := old.NameValue(benchfmt.Name(name), old.StoreKey); !ok || v != "optimized" {
		t.Errorf("NameValue(%q, %q) = %q, %v", name, old.StoreKey, v, ok)
	}
	if got, want := old.Format(0.0747, old.UnitSec), results.Format(0.0747, results.UnitSec); got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	var info old.UnitInfo
	info, ok := old.Info(old.UnitRetainedPerCert)
	if !ok || info.Better != old.LowerIsBetter {
		t.Errorf("Info(%q) = %+v, %v", old.UnitRetainedPerCert, info, ok)
	}
	if len(old.Units()) != len(results.Units()) || len(old.KnownUnits()) != len(results.KnownUnits()) {
		t.Error("the old path knows other units than the new one")
	}
}

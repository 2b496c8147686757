package results

import (
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestNames(t *testing.T) {
	for _, c := range []struct {
		name           string
		certbench, swp bool
		scenario       string
	}{
		{ChurnName("rotate-10-of-100", "optimized") + "-2", true, false, "rotate-10-of-100"},
		{SweepName("renew-1", 1000, "renew-1-of-1000", "naive"), true, true, "renew-1-of-1000"},
		{"Lookup/exact-2", false, false, ""},
		{"Churn/scenario=x-2", false, false, "x"},
	} {
		r := &benchfmt.Result{Name: benchfmt.Name(c.name)}
		if got := IsCertbench(r); got != c.certbench {
			t.Errorf("IsCertbench(%s) = %v", c.name, got)
		}
		if got := IsSweep(r); got != c.swp {
			t.Errorf("IsSweep(%s) = %v", c.name, got)
		}
		if got, _ := NameValue(r.Name, ScenarioKey); got != c.scenario {
			t.Errorf("scenario of %s = %q, want %q", c.name, got, c.scenario)
		}
	}
	if got := SweepName("noop", 100, "noop-100", "optimized"); got != "Sweep/family=noop/size=100/scenario=noop-100/store=optimized" {
		t.Errorf("SweepName = %s", got)
	}
}

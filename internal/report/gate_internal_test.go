package report

import (
	"math"
	"testing"
)

// TestGateChange checks the report's change column: the difference and
// its percent, and a change from zero, which has no percent, named.
func TestGateChange(t *testing.T) {
	for _, c := range []struct {
		base, head, pct float64
		unit, want      string
	}{
		{0, 24, math.Inf(1), "B/op", "+24 B (from 0)"},
		{0, 1, math.NaN(), "allocs/op", "+1 (from 0)"},
		{1191, 1201, 0.8396, "allocs/op", "+10 (+0.84%)"},
		{100e-9, 70.1e-9, -29.9, "sec/op", "-29.9 ns (-29.90%)"},
		{math.NaN(), 3, math.NaN(), "allocs/op", "-"},
	} {
		if got := gateChange(c.base, c.head, c.pct, c.unit); got != c.want {
			t.Errorf("gateChange(%v, %v, %v, %q) = %q, want %q", c.base, c.head, c.pct, c.unit, got, c.want)
		}
	}
}

// TestGateTableValues checks that a regression whose base and head round
// alike at the usual digits reads as two different values in the table.
func TestGateTableValues(t *testing.T) {
	g := &GateResult{Findings: []GateFinding{{Label: "rotate-10-of-100/mystore", Unit: "allocs/op", Status: "regressed",
		Fatal: true, Base: 1328.65, Head: 1329.05, Percent: 0.03}}}
	row := g.gateTable().Rows[0]
	if base, head := row[2].Text, row[3].Text; base == head {
		t.Errorf("base and head read alike: %q, %q", base, head)
	}
}

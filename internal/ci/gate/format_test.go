package gate

import (
	"encoding/json"
	"io"
	"math"
	"testing"

	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// TestFormatValue checks the gate's texts, which are results's one
// number format.
func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		unit string
		v    float64
		want string
	}{
		{results.UnitAllocs, 748.5, "748.5"},
		{results.UnitAllocs, 1194.5, "1,194"},
		{results.UnitAllocs, 1217054, "1.217M"},
		{results.UnitAllocs, 2.5e7, "25M"},
		{results.UnitBytes, 84744, "82.8 KiB"},
		{results.UnitBytes, 9.0729944e+07, "86.5 MiB"},
		{results.UnitRetainedPerCert, 1283.06, "1.25 KiB"},
		{results.UnitRetainedPerCert, -0.272, "-0.272 B"},
		{results.UnitRetained, -11856, "-11.6 KiB"},
		{results.UnitSec, 0.001566, "1.57 ms"},
		{results.UnitSec, 171e-9, "171 ns"},
		{results.UnitGoroutines, 0, "0"},
		{results.UnitAllocs, math.NaN(), "-"},
	} {
		f := &Finding{Unit: tc.unit, Base: tc.v}
		if got := baseText(f); got != tc.want {
			t.Errorf("baseText(%s, %v) = %q, want %q", tc.unit, tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		p    float64
		want string
	}{{0, "0%"}, {0.004, "<+0.01%"}, {-0.004, ">-0.01%"}, {24.75, "+24.75%"}, {math.Inf(1), "+inf%"}} {
		if got := results.FormatPercent(tc.p); got != tc.want {
			t.Errorf("FormatPercent(%v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	if f := (&Finding{Unit: results.UnitAllocs, Base: 0.44, Head: 0.44}); baseText(f) != "0.44" || headText(f) != "0.44" {
		t.Errorf("equal base and head: %q, %q", baseText(f), headText(f))
	}
	if f := (&Finding{Unit: results.UnitAllocs, Base: 1328.65, Head: 1329.05}); baseText(f) == headText(f) {
		t.Errorf("a regressed base and head read alike: %q, %q", baseText(f), headText(f))
	}
}

func TestMinP(t *testing.T) {
	for _, tc := range []struct {
		n1, n2 int
		want   float64
	}{{4, 4, 2.0 / 70}, {6, 6, 2.0 / 924}, {6, 4, 2.0 / 210}, {1, 1, 1}} {
		if got := minP(tc.n1, tc.n2); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("minP(%d, %d) = %v, want %v", tc.n1, tc.n2, got, tc.want)
		}
	}
}

// baseText and headText are a finding's base and head as its table row
// shows them.
func baseText(f *Finding) string { return findingsTable("", []*Finding{f}).Rows[0].Cells[2].Text }
func headText(f *Finding) string { return findingsTable("", []*Finding{f}).Rows[0].Cells[3].Text }

// The renderers as certbench gate calls them.
func writeText(v *Verdict, w io.Writer) error     { return table.WriteText(w, v.Page()) }
func writeMarkdown(v *Verdict, w io.Writer) error { return table.WriteMarkdown(w, v.Page()) }
func writeJSON(v *Verdict, w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v.JSON())
}

// TestChangeFromZero: a regression from no allocation says "new
// allocations", not a percentage of 0.
func TestChangeFromZero(t *testing.T) {
	f := &Finding{Unit: results.UnitBytes, Base: 0, Head: 2.4, Status: Regressed}
	row := findingsTable("Regressed", []*Finding{f}).Rows[0]
	if got, want := row.Cells[4].Text, "+2.4 B (new allocations)"; got != want {
		t.Errorf("change from 0 B/op: %q, want %q", got, want)
	}
}

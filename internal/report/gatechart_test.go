package report

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
	"gonum.org/v1/plot"
)

// TestGateChartHighlightsRegressions: the gate's chart draws each
// finding's change in percent, red and labelled "regressed" exactly where
// the gate found a regression, however small; and in the scenario charts
// of base against head, only the panels of regressed metrics are red.
func TestGateChartHighlightsRegressions(t *testing.T) {
	th := gate.MustThreshold("+0%")
	fs := []*gate.Finding{ // +0.08%, 0, -5%
		{Scenario: "a", Store: "x", Unit: "allocs/op", Status: gate.Regressed, Threshold: th, Base: 100, Head: 100.08, BaseN: 6, HeadN: 6},
		{Scenario: "b", Store: "x", Unit: "allocs/op", Status: gate.Unchanged, Threshold: th, Base: 100, Head: 100, BaseN: 6, HeadN: 6},
		{Scenario: "c", Store: "x", Unit: "allocs/op", Status: gate.Improved, Threshold: th, Base: 100, Head: 95, BaseN: 6, HeadN: 6},
	}
	_, cb := changePlot("allocs/op", fs)
	for i, f := range fs {
		c := cb.vals[len(fs)-1-i] // the first on top
		regressed := f.Status == gate.Regressed
		if red := c.color == regressedColor; red != regressed || strings.Contains(c.text, "regressed") != regressed || c.pct != f.Percent() {
			t.Errorf("%s: drawn %+v; want red and labelled regressed iff the gate says so (%s)", f.Label(), c, f.Status)
		}
	}
	if cb.max != 0 {
		t.Errorf("threshold at %v%%, want the policy's +0%%", cb.max)
	}
	if _, xmax, _, _ := cb.DataRange(); !(xmax > 0.08) {
		t.Errorf("x axis up to %v: the +0.08%% regression is off the panel", xmax)
	}

	data, err := os.ReadFile("../ci/gate/testdata/golden.json.golden")
	if err != nil {
		t.Fatal(err)
	}
	g, err := gate.ReadDocument(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := results.Load("../ci/gate/testdata/base.txt", "../ci/gate/testdata/golden-head.txt")
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Gate: g}
	opts.Compare.Col = results.FileKey
	rep, err := Build(rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.GateChart == nil {
		t.Fatal("no gate chart")
	}
	want := map[string]bool{} // chart title and panel title of each regression
	for _, f := range g.Findings {
		if f.Status == gate.Regressed {
			want["scenario="+f.Scenario+"/store="+f.Store+" "+results.Title(f.Unit)] = true
		}
	}
	red := 0
	for _, ch := range rep.Scenarios {
		for _, p := range ch.panels() {
			title, _, _ := strings.Cut(p.Title.Text, "\n")
			if isRed := p.Title.TextStyle.Color == regressedColor; isRed != want[ch.Title+" "+title] || isRed != strings.Contains(p.Title.Text, "regressed +") {
				t.Errorf("%s %q: red %v, want red and its change iff the gate found it regressed", ch.Title, p.Title.Text, isRed)
			} else if isRed {
				red++
			}
		}
	}
	if len(want) == 0 || red != len(want) {
		t.Errorf("%d red panels, want one per regression (%d)", red, len(want))
	}
}

// TestGateChartLargeChanges: a change the tables write as a factor
// (+1,841.22% is ×19.41) is labelled so, on a logarithmic axis of head /
// base; a panel of percents does not reach below -100%.
func TestGateChartLargeChanges(t *testing.T) {
	th := gate.MustThreshold("+2%")
	fs := []*gate.Finding{ // +1841.22%, -96%
		{Scenario: "a", Store: "x", Unit: "B/op", Status: gate.Regressed, Threshold: th, Base: 100, Head: 1941.22, BaseN: 6, HeadN: 6},
		{Scenario: "b", Store: "x", Unit: "B/op", Status: gate.Improved, Threshold: th, Base: 100, Head: 4, BaseN: 6, HeadN: 6},
	}
	p, cb := changePlot("B/op", fs)
	if got := cb.vals[1].text; got != "×19.41 regressed" || !cb.ratio {
		t.Errorf("+1841.22%%: labelled %q (ratio axis %v), want \"×19.41 regressed\" as the gate's table writes it", got, cb.ratio)
	}
	if xmin, xmax, _, _ := cb.DataRange(); !(xmin > 0 && xmin < 0.04 && xmax > 19.41) {
		t.Errorf("ratio axis %v..%v, want head/base from below ×0.04 to above ×19.41", xmin, xmax)
	}
	if _, ok := p.X.Scale.(plot.LogScale); !ok {
		t.Error("ratio axis not logarithmic")
	}
	fs[0].Head = 900 // +800%
	_, cb = changePlot("B/op", fs)
	if xmin, _, _, _ := cb.DataRange(); cb.ratio || xmin < -100 {
		t.Errorf("-96%% and +800%%: axis from %v%% (ratio %v), want percent, not below -100%%", xmin, cb.ratio)
	}
}

// TestGateChartNewAllocations: a regression from 0 (no percentage of the
// base) is in the chart, labelled "new allocations".
func TestGateChartNewAllocations(t *testing.T) {
	g := &gate.Document{Verdict: &gate.Verdict{Findings: []*gate.Finding{
		{Scenario: "lookup-1000", Store: "x", Unit: "B/op", Status: gate.Regressed, Threshold: gate.MustThreshold("+2%"), Base: 0, Head: 2.4, BaseN: 6, HeadN: 6}}}}
	ch := gateChart(g)
	if ch == nil || ch.Panels() != 1 {
		t.Fatal("a regression from 0 B/op: no panel")
	}
	svg, err := ch.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("new allocations regressed")) {
		t.Error("the panel does not say \"new allocations regressed\"")
	}
}

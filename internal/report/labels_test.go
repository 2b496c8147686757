package report

import (
	"regexp"
	"strconv"
	"testing"
)

var (
	svgBar   = regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)L([0-9.]+),[0-9.]+L[0-9.]+,([0-9.]+)L[0-9.]+,[0-9.]+Z" style="fill:(#[0-9A-F]{6})`)
	svgLabel = regexp.MustCompile(`<text x="([0-9.]+)" y="-([0-9.]+)" transform="scale\(1, -1\)"\s+style="[^"]*">([^<]*)</text>`)
)

// TestBarLabelsAtTheirValue: a bar's value is written at the bar's top,
// beside its whisker when that is long, not above the whisker's end,
// where it would name a value the bar does not have.
func TestBarLabelsAtTheirValue(t *testing.T) {
	vals := []barValue{
		{center: 700, lo: 550, hi: 900, n: 6, color: palette[0]}, // a long whisker
		{center: 40, lo: 39, hi: 41, n: 6, color: palette[1]},    // a short one
	}
	svg := scenarioChartOf(t, barPlot("B/op", []string{"a", "b"}, vals))
	tops := map[string][2]float64{} // by colour: the bar's top and its middle
	for _, m := range svgBar.FindAllStringSubmatch(string(svg), -1) {
		x0, _ := strconv.ParseFloat(m[1], 64)
		x1, _ := strconv.ParseFloat(m[3], 64)
		top, _ := strconv.ParseFloat(m[4], 64)
		tops[m[5]] = [2]float64{top, (x0 + x1) / 2}
	}
	labels := map[string][2]float64{}
	for _, m := range svgLabel.FindAllStringSubmatch(string(svg), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		labels[m[3]] = [2]float64{y, x}
	}
	for i, want := range []string{"700 B", "40 B"} {
		bar, ok := tops[hexColor(palette[i])]
		label, ok2 := labels[want]
		if !ok || !ok2 {
			t.Fatalf("no bar or label %q in the SVG", want)
		}
		if d := label[0] - bar[0]; d < 0 || d > 8 {
			t.Errorf("label %q at y %.1f, bar top at %.1f: want it just above the top", want, label[0], bar[0])
		}
	}
	if l, b := labels["700 B"], tops[hexColor(palette[0])]; l[1] <= b[1] {
		t.Errorf("label 700 B at x %.1f, whisker at %.1f: want it beside the whisker", l[1], b[1])
	}
}

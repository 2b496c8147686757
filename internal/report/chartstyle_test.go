package report

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// svgFill matches a filled path of an SVG written by vgsvg: its path
// data and its fill colour.
var svgFill = regexp.MustCompile(`<path d="([^"]*)" style="fill:(#[0-9A-F]{6})`)

// hexColor formats c as vgsvg writes colours.
func hexColor(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// fills counts the filled shapes of svg by colour: rectangles (path data
// of straight lines only, the bars) and round shapes (with arcs, the
// dots).
func fills(svg []byte) (rects, dots map[string]int) {
	rects, dots = make(map[string]int), make(map[string]int)
	for _, m := range svgFill.FindAllSubmatch(svg, -1) {
		if bytes.ContainsRune(m[1], 'A') {
			dots[string(m[2])]++
		} else {
			rects[string(m[2])]++
		}
	}
	return rects, dots
}

func scenarioChartOf(t *testing.T, panels ...*plot.Plot) []byte {
	t.Helper()
	ch := &Chart{ID: "scenario-x", Title: "x", plots: gridOf(panels, 4), tileW: 230, tileH: 185}
	b, err := ch.SVG()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLogPanelDrawsDots: a panel whose values differ by more than 30x has
// a log axis and shows each store as a dot with a whisker, no bar (a
// bar's length on a log axis means nothing); a linear panel keeps its
// bars from 0.
func TestLogPanelDrawsDots(t *testing.T) {
	stores := []string{"naive", "optimized"}
	orange, teal := hexColor(palette[0]), hexColor(palette[1])

	wide := barPlot("sec/op", stores, []barValue{{center: 57.7e-3, lo: 40e-3, hi: 160e-3, color: palette[0]}, {center: 313e-6, lo: 250e-6, hi: 600e-6, color: palette[1]}})
	if _, ok := wide.Y.Scale.(plot.LogScale); !ok {
		t.Fatal("values 184x apart: y axis is not logarithmic")
	}
	rects, dots := fills(scenarioChartOf(t, wide))
	if rects[orange] != 0 || rects[teal] != 0 {
		t.Errorf("log panel has bar rectangles: %v", rects)
	}
	if dots[orange] != 1 || dots[teal] != 1 {
		t.Errorf("log panel: dots by colour %v, want one per store", dots)
	}

	narrow := barPlot("sec/op", stores, []barValue{{center: 2e-3, lo: 1.9e-3, hi: 2.1e-3, color: palette[0]}, {center: 1e-3, lo: 0.9e-3, hi: 1.1e-3, color: palette[1]}})
	if _, ok := narrow.Y.Scale.(plot.LogScale); ok {
		t.Fatal("values 2x apart: y axis is logarithmic")
	}
	if narrow.Y.Min != 0 {
		t.Errorf("linear panel starts at %v, want 0", narrow.Y.Min)
	}
	rects, dots = fills(scenarioChartOf(t, narrow))
	if rects[orange] != 1 || rects[teal] != 1 || len(dots) != 0 {
		t.Errorf("linear panel: bars %v, dots %v; want one bar per store, no dot", rects, dots)
	}
}

// TestAxisLabelsNameMetric: value axes are labelled with the metric, never
// with "log scale"; that an axis is logarithmic is a note under the
// panel (scenario charts) or under the chart title (growth charts).
func TestAxisLabelsNameMetric(t *testing.T) {
	stores := []string{"naive", "optimized"}
	wide := []barValue{{center: 1000, color: palette[0]}, {center: 1, color: palette[1]}}
	for unit, want := range map[string]string{
		"sec/op":          "time per op",
		"B/op":            "allocated per op (bytes)",
		"allocs/op":       "allocations per op",
		"retained-B/cert": "retained heap per certificate (bytes)",
	} {
		p := barPlot(unit, stores, wide)
		if p.Y.Label.Text != want {
			t.Errorf("%s: y axis label %q, want %q", unit, p.Y.Label.Text, want)
		}
	}

	logPanel := barPlot("sec/op", stores, wide)
	linPanel := barPlot("B/op", stores, []barValue{{center: 1000, color: palette[0]}, {center: 900, color: palette[1]}})
	ch := &Chart{ID: "scenario-x", Title: "x", plots: gridOf([]*plot.Plot{logPanel, linPanel}, 4), tileW: 230, tileH: 185}
	chartNote, panelNotes := ch.notes()
	if chartNote != "" || panelNotes[logPanel] != "y axis logarithmic" || panelNotes[linPanel] != "" {
		t.Errorf("notes: chart %q, log panel %q, linear panel %q", chartNote, panelNotes[logPanel], panelNotes[linPanel])
	}
	svg, err := ch.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("y axis logarithmic")) || bytes.Contains(svg, []byte("log scale")) {
		t.Error("scenario chart: want the note \"y axis logarithmic\" and no \"log scale\" label")
	}

	rep, err := Build(sweepResults(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Growth[0]
	for _, p := range g.panels() {
		if p.X.Label.Text != "certificates in the pool, N" {
			t.Errorf("growth panel %q: x axis label %q", p.Title.Text, p.X.Label.Text)
		}
		if !strings.HasPrefix(p.Y.Label.Text, p.Title.Text) || strings.Contains(p.Y.Label.Text, "log") {
			t.Errorf("growth panel %q: y axis label %q, want the metric", p.Title.Text, p.Y.Label.Text)
		}
	}
	if note, _ := g.notes(); note != "lower is better; both axes logarithmic" {
		t.Errorf("growth chart note %q, want \"lower is better; both axes logarithmic\"", note)
	}
	if !strings.Contains(g.Caption, "both axes logarithmic") {
		t.Errorf("growth caption %q does not say the axes are logarithmic", g.Caption)
	}
}

// TestLegendOutsideDataArea: a growth panel's legend lies under its x
// axis, inside the chart and clear of every panel's data area, and the
// plot gonum/plot draws has no legend of its own.
func TestLegendOutsideDataArea(t *testing.T) {
	rep, err := Build(sweepResults(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range rep.Growth {
		w, h := ch.Size()
		dc := draw.New(vgsvg.New(w, h))
		ls := ch.layout(dc)
		if len(ls) == 0 {
			t.Fatalf("%s: no panels", ch.ID)
		}
		for _, l := range ls {
			if legendHeight(l.bare) != 0 {
				t.Errorf("%s %q: the drawn plot keeps its legend", ch.ID, l.plot.Title.Text)
			}
			if l.legend.Size().Y <= 0 {
				t.Errorf("%s %q: no legend", ch.ID, l.plot.Title.Text)
				continue
			}
			if l.legend.Max.Y > l.data.Min.Y || l.legend.Max.Y > l.area.Min.Y {
				t.Errorf("%s %q: legend %v not under the plot (data %v)", ch.ID, l.plot.Title.Text, l.legend, l.data)
			}
			if l.legend.Min.X < dc.Min.X || l.legend.Min.Y < dc.Min.Y || l.legend.Max.X > dc.Max.X {
				t.Errorf("%s %q: legend %v outside the chart %v", ch.ID, l.plot.Title.Text, l.legend, dc.Rectangle)
			}
			for _, o := range ls {
				if overlaps(l.legend, o.data) {
					t.Errorf("%s: legend of %q overlaps the data of %q", ch.ID, l.plot.Title.Text, o.plot.Title.Text)
				}
			}
		}
	}
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// TestByFileColours: when the columns are input files, bars take the file
// palette, never a store's colour.
func TestByFileColours(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for f, scale := range map[string]float64{"base.txt": 1, "head.txt": 0.9} {
		var b strings.Builder
		for i := range 6 {
			for _, st := range []string{"naive", "optimized"} {
				fmt.Fprintf(&b, "BenchmarkChurn/scenario=renew-1-of-1000/store=%s-2 10 %g ns/op 1000 B/op 10 allocs/op\n", st, scale*(1e6+1e3*float64(i)))
			}
		}
		p := filepath.Join(dir, f)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	rs, err := results.Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{}
	opts.Compare.Col = results.FileKey
	rep, err := Build(rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) != 2 {
		t.Fatalf("%d charts, want one per scenario and store", len(rep.Scenarios))
	}
	storeColours := make(map[string]bool)
	for _, c := range palette {
		storeColours[hexColor(c)] = true
	}
	fileColours := make(map[string]bool)
	for _, c := range filePalette {
		if storeColours[hexColor(c)] {
			t.Errorf("file colour %s is a store colour", hexColor(c))
		}
		fileColours[hexColor(c)] = true
	}
	for _, ch := range rep.Scenarios {
		svg, err := ch.SVG()
		if err != nil {
			t.Fatal(err)
		}
		rects, dots := fills(svg)
		n := 0
		for col, k := range rects {
			if storeColours[col] {
				t.Errorf("%s: a file drawn in store colour %s", ch.ID, col)
			}
			if fileColours[col] {
				n += k
			}
		}
		for col := range dots {
			if storeColours[col] {
				t.Errorf("%s: a file drawn in store colour %s", ch.ID, col)
			}
		}
		if n == 0 {
			t.Errorf("%s: no bar in a file colour", ch.ID)
		}
	}

	// Compared by store, the same results use the store colours.
	rep, err = Build(rs, Options{Compare: compare.Options{Row: "/scenario"}})
	if err != nil {
		t.Fatal(err)
	}
	svg, err := rep.Scenarios[0].SVG()
	if err != nil {
		t.Fatal(err)
	}
	if rects, _ := fills(svg); rects[hexColor(palette[0])] == 0 || rects[hexColor(palette[1])] == 0 {
		t.Errorf("by store: bars %v, want the store colours", rects)
	}
}

// TestTablesGeomeanAndZeroCurves: the comparison tables end with a geomean
// row where every value is positive, and say why not otherwise; the growth
// table names a curve that is 0 at every size as the exponent table does.
func TestTablesGeomeanAndZeroCurves(t *testing.T) {
	var b strings.Builder
	for _, n := range []int{100, 1000, 10000} {
		for i := range 6 {
			d := float64(i)
			fmt.Fprintf(&b, "Benchmark%s-2 1 %g ns/op %d B/op %d allocs/op\n", results.SweepName("noop", n, fmt.Sprintf("noop-%d", n), "naive"), 1e3*float64(n)*(1+0.01*d), 90*n, 3*n)
			fmt.Fprintf(&b, "Benchmark%s-2 1 %g ns/op 0 B/op 0 allocs/op\n", results.SweepName("noop", n, fmt.Sprintf("noop-%d", n), "optimized"), 10*float64(n)*(1+0.01*d))
		}
	}
	for range 6 {
		for _, sc := range []string{"rotate-10-of-100", "lookup-1000"} {
			b.WriteString("BenchmarkChurn/scenario=" + sc + "/store=naive-2 10 4e6 ns/op 4000 B/op 40 allocs/op\n")
			b.WriteString("BenchmarkChurn/scenario=" + sc + "/store=optimized-2 10 1e6 ns/op 0 B/op 0 allocs/op\n")
		}
	}
	rs, err := results.Read(strings.NewReader(b.String()), "results.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	table := func(id string) string {
		i := strings.Index(page, `<table id="`+id+`"`)
		if i < 0 {
			t.Fatalf("no table %s", id)
		}
		j := strings.Index(page[i:], "</table>")
		end := i + j + len("</table>")
		if k := strings.Index(page[end:], "<table"); k >= 0 {
			return page[i : end+k] // with the note after the table
		}
		return page[i:]
	}

	sec := table("table-sec_op")
	// 4 ms vs 1 ms in both rows: geomeans 4 ms and 1 ms, ratio -75%.
	for _, want := range []string{">geomean<", ">4 ms<", ">1 ms<", ">-75.00%<"} {
		if !strings.Contains(sec, want) {
			t.Errorf("sec/op table lacks %s", want)
		}
	}
	if strings.Contains(sec, "no geomean row") {
		t.Error("sec/op table: a note says there is no geomean row")
	}
	bop := table("table-B_op")
	if strings.Contains(bop, ">geomean<") {
		t.Error("B/op table has a geomean row, with zeros in it")
	}
	if !strings.Contains(bop, "no geomean row: a geomean needs two rows with a positive center in every column, and 0 of 2 rows have one") {
		t.Errorf("B/op table does not say why it has no geomean row:\n%s", bop)
	}
	if strings.Contains(page, "geomean leaves out") {
		t.Error("page notes mention a geomean the tables do not show")
	}

	medians := table("medians-noop")
	if strings.Contains(medians, ">?<") {
		t.Error("growth table shows ? for an exponent")
	}
	if n := strings.Count(medians, ">0 at every size<"); n != 4 {
		t.Errorf("growth table: %d cells \"0 at every size\", want 4 (k and last step, B/op and allocs/op)", n)
	}
	if n := strings.Count(table("exponents"), ">0 at every size<"); n != 2 {
		t.Errorf("exponent table: %d cells \"0 at every size\", want 2", n)
	}
}

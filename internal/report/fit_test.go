package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/growth"
	"github.com/certbench/certbench/results"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// peerStores are the stores of a peer run, whose names are long enough
// to touch under bars four panels a row.
var peerStores = []string{"traefik", "certmagic", "optimized", "naive"}

// heldResults returns three samples of each store in a held scenario and
// in the plain one of as many certificates.
func heldResults(t *testing.T, stores []string) *results.Set {
	t.Helper()
	var b strings.Builder
	for _, sc := range []string{"held-100-renew-1-of-1000", "renew-1-of-1000"} {
		for k, st := range stores {
			for i := range 3 {
				fmt.Fprintf(&b, "BenchmarkChurn/scenario=%s/store=%s-2 100 %d ns/op %d B/op 100 allocs/op %d retained-B %d retained-B/cert %d goroutines %d peak-B",
					sc, st, 1e6*(k+1)+i, 1000*(k+1)+i, 1e6*(k+1)+i, 1000*(k+1)+i, 200*k, 1e6*(k+1)+i)
				if strings.HasPrefix(sc, "held") {
					fmt.Fprintf(&b, " %d held-B/gen 0 held-goroutines/gen %d released-held-B", 4000*(k+1)+i, 1000*k+i)
				}
				b.WriteString("\n")
			}
		}
	}
	rs, err := results.Read(strings.NewReader(b.String()), "peers.txt")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// layoutOf lays ch out on a canvas of its size.
func layoutOf(ch *Chart) []panelLayout {
	w, h := ch.Size()
	return ch.layout(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}})
}

// checkFits fails where a panel title is wider than its panel, or a y
// axis label longer than the data area it is centred on (it would run
// into the title), measured with the font's widths; wrapping must lose
// no word.
func checkFits(t *testing.T, ch *Chart) {
	t.Helper()
	tileW := ch.tileW // at most; draw.Tiles takes padding off
	for _, l := range layoutOf(ch) {
		p := l.plot
		for _, line := range strings.Split(l.bare.Title.Text, "\n") {
			if w := p.Title.TextStyle.Width(line); w > tileW {
				t.Errorf("%s: title line %q is %.0f pt wide, the panel %.0f pt", ch.ID, line, w.Points(), tileW.Points())
			}
		}
		for _, line := range strings.Split(l.yText, "\n") {
			if w, h := p.Y.Label.TextStyle.Width(line), l.data.Size().Y; w > h {
				t.Errorf("%s %q: y axis label line %q is %.0f pt long, the data area %.0f pt high", ch.ID, p.Title.Text, line, w.Points(), h.Points())
			}
		}
		if got, want := strings.Fields(l.yText), strings.Fields(p.Y.Label.Text); !slices.Equal(got, want) {
			t.Errorf("%s: y axis label drawn as %q, want the words of %q", ch.ID, l.yText, p.Y.Label.Text)
		}
		if got, want := strings.Fields(l.bare.Title.Text), strings.Fields(p.Title.Text); !slices.Equal(got, want) {
			t.Errorf("%s: title drawn as %q, want the words of %q", ch.ID, l.bare.Title.Text, p.Title.Text)
		}
	}
}

// TestLabelsFitPanels: every unit's panel title and y axis label fit a
// scenario panel and a growth panel.
func TestLabelsFitPanels(t *testing.T) {
	for _, u := range results.Units() {
		vals := make([]barValue, len(peerStores))
		for i := range vals {
			vals[i] = barValue{center: float64(1 + 100*i), color: palette[i]}
		}
		ch := &Chart{ID: "scenario-" + u.Unit, plots: gridOf([]*plot.Plot{barPlot(u.Tidy, peerStores, vals)}, 4), tileW: 230, tileH: 185}
		checkFits(t, ch)

		c := &growth.Curve{Family: "renew", Store: "naive", Unit: u.Tidy, Points: []growth.Point{{Size: 100, Center: 10}, {Size: 1000, Center: 100}}, FitErr: growth.ErrTooFewPoints}
		p, err := growthPlot(u.Tidy, []*growth.Curve{c}, &colors{})
		if err != nil {
			t.Fatal(err)
		}
		checkFits(t, &Chart{ID: "growth-" + u.Unit, plots: gridOf([]*plot.Plot{p}, 2), tileW: 400, tileH: 280})
	}
	rep, err := Build(heldResults(t, peerStores), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range rep.Charts() {
		checkFits(t, ch)
	}
}

// TestTickLabelsApart: the store names under a bar panel's bars
// never touch, however many stores and however long their names, and
// the chart stays as wide as four default panels.
func TestTickLabelsApart(t *testing.T) {
	for _, stores := range [][]string{
		peerStores,
		{"traefik", "certmagic", "optimized", "naive", "caddy-redis-cluster", "envoy-sds"},
	} {
		rep, err := Build(heldResults(t, stores), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Scenarios) != 2 || len(rep.Operators) != 1 {
			t.Fatalf("%d scenario charts and %d operator charts, want 2 and the peak heap's", len(rep.Scenarios), len(rep.Operators))
		}
		for _, ch := range slices.Concat(rep.Scenarios, rep.Operators) {
			if w, _ := ch.Size(); w > 4*230 {
				t.Errorf("%s with %d stores: %.0f pt wide, want at most %d", ch.ID, len(stores), w.Points(), 4*230)
			}
			for _, l := range layoutOf(ch) {
				p := l.plot
				x := func(v float64) vg.Length {
					return l.data.Min.X + vg.Length((v-p.X.Min)/(p.X.Max-p.X.Min))*l.data.Size().X
				}
				right := vg.Length(-1e9)
				prev := ""
				for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
					if tk.Label == "" {
						continue
					}
					half := p.X.Tick.Label.Width(tk.Label) / 2
					if left := x(tk.Value) - half; left < right+2 {
						t.Errorf("%s %q: tick %q (from %.1f pt) touches %q (to %.1f pt)", ch.ID, p.Title.Text, tk.Label, left.Points(), prev, right.Points())
					}
					right, prev = x(tk.Value)+half, tk.Label
				}
			}
		}
	}
}

// TestHeldPanelsSayHeld: in a held scenario the retained heap per
// certificate and goroutines panels say that they include the held
// generations; in a plain one they do not.
func TestHeldPanelsSayHeld(t *testing.T) {
	rep, err := Build(heldResults(t, peerStores), Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, ch := range rep.Scenarios {
		held := strings.Contains(ch.Title, "held-")
		for _, p := range ch.panels() {
			title, _, _ := strings.Cut(p.Title.Text, " (")
			if title != results.Title(results.UnitRetainedPerCert) && title != results.Title(results.UnitGoroutines) {
				continue
			}
			seen++
			if says := strings.Contains(p.Title.Text, "held generations included"); says != held {
				t.Errorf("%s: panel %q; want \"held generations included\" iff a held scenario", ch.ID, p.Title.Text)
			}
		}
	}
	if seen != 4 {
		t.Errorf("%d retained heap per certificate and goroutines panels, want 4", seen)
	}
}

// svgRing matches an unfilled round shape of an SVG: its stroke colour.
var svgRing = regexp.MustCompile(`<path d="M[^"]*A[^"]*" style="fill:none;stroke:(#[0-9A-F]{6})`)

// TestZeroOnLogAxisDrawn: a 0 on a log axis, which has no place for it,
// is a ring on the axis floor with its label, not a label alone.
func TestZeroOnLogAxisDrawn(t *testing.T) {
	vals := []barValue{{center: 202, color: palette[0]}, {center: 1, color: palette[1]}, {center: 0, color: palette[2]}}
	p := barPlot(results.UnitGoroutines, []string{"a", "b", "c"}, vals)
	if _, ok := p.Y.Scale.(plot.LogScale); !ok {
		t.Fatal("values 202x apart: y axis is not logarithmic")
	}
	svg := scenarioChartOf(t, p)
	var rings []string
	for _, m := range svgRing.FindAllSubmatch(svg, -1) {
		rings = append(rings, string(m[1]))
	}
	if want := []string{hexColor(palette[2])}; !slices.Equal(rings, want) {
		t.Errorf("rings of colours %q, want %q: one for the 0", rings, want)
	}
	if _, dots := fills(svg); dots[hexColor(palette[2])] != 0 {
		t.Error("the 0 is drawn as a dot, as if it had a value on the axis")
	}
}

package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
	"gonum.org/v1/plot"
)

// operatorReport builds a report from the handshake run (naive and
// optimized, 3 samples) and peak-B lines of two refresh scenarios: one
// whose stores are within 30× of each other and one whose are not.
func operatorReport(t *testing.T) *Report {
	t.Helper()
	var b strings.Builder
	for i := 0; i < 3; i++ {
		d := float64(i)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=naive-2 10 %g ns/op %g peak-B\n", 1e8+d, 64000+100*d)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=optimized-2 10 %g ns/op %g peak-B\n", 5e5+d, 40000+100*d)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=renew-1-of-10000/store=naive-2 10 %g ns/op %g peak-B\n", 1e8+d, 5e7+100*d)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=renew-1-of-10000/store=optimized-2 10 %g ns/op %g peak-B\n", 5e5+d, 2e4+100*d)
	}
	hs, err := results.Load("testdata/handshake.txt")
	if err != nil {
		t.Fatal(err)
	}
	peak, err := results.Read(strings.NewReader(b.String()), "peak.txt")
	if err != nil {
		t.Fatal(err)
	}
	rs := &results.Set{Series: append(hs.Series, peak.Series...), Files: append(hs.Files, peak.Files...)}
	rep, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestOperatorCharts(t *testing.T) {
	rep := operatorReport(t)
	if len(rep.Operators) != 2 {
		t.Fatalf("%d operator charts, want 2 (handshake latency, peak heap)", len(rep.Operators))
	}
	hs, peak := rep.Operators[0], rep.Operators[1]
	if hs.ID != "operators-handshake-handshake-under-renew-1-of-10000" || peak.ID != "operators-peak-heap" {
		t.Errorf("chart IDs %q, %q", hs.ID, peak.ID)
	}

	// Handshake chart: a percentile curve panel and a calm-vs-churn panel
	// on one logarithmic latency axis.
	ps := hs.panels()
	if len(ps) != 2 {
		t.Fatalf("handshake chart has %d panels, want 2", len(ps))
	}
	for _, p := range ps {
		if _, ok := p.Y.Scale.(plot.LogScale); !ok {
			t.Errorf("panel %q: latency axis not logarithmic", p.Title.Text)
		}
		if p.Y.Min != ps[0].Y.Min || p.Y.Max != ps[0].Y.Max {
			t.Errorf("panel %q: latency axis %v..%v, want the first panel's %v..%v", p.Title.Text, p.Y.Min, p.Y.Max, ps[0].Y.Min, ps[0].Y.Max)
		}
	}
	// Every value drawn lies inside the shared axis: naive's max under
	// churn (71.4 ms) and optimized's p50 (0.83 ms).
	if !(ps[0].Y.Min < 0.827372e-3 && ps[0].Y.Max > 71.422909e-3) {
		t.Errorf("latency axis %v..%v does not hold 0.83 ms..71.4 ms", ps[0].Y.Min, ps[0].Y.Max)
	}
	ticks := ps[0].X.Tick.Marker.Ticks(ps[0].X.Min, ps[0].X.Max)
	var labels []string
	for _, tk := range ticks {
		labels = append(labels, tk.Label)
	}
	if got, want := strings.Join(labels, ","), "p50,p90,p99,p99.9,max"; got != want {
		t.Errorf("percentile axis %q, want %q", got, want)
	}
	// Medians of the 3 samples: naive 17.3 ms → 48.3 ms (×2.681),
	// optimized 2.09 ms → 2.32 ms (×1.066), written over the pairs.
	svg, err := hs.SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"naive under churn", "naive p99 without churn", "optimized under churn", "optimized p99 without churn",
		"17.3 ms → 48.3 ms", "×2.681", "2.09 ms → 2.32 ms", "×1.066"} {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("handshake chart lacks %q", s)
		}
	}
	// Peak chart: one panel per refresh scenario; bars on a linear axis
	// within 30×, dots on a log axis beyond.
	pp := peak.panels()
	if len(pp) != 2 {
		t.Fatalf("peak chart has %d panels, want 2", len(pp))
	}
	for _, c := range []struct {
		title string
		log   bool
	}{{"rotate-10-of-100", false}, {"renew-1-of-10000", true}} {
		i := -1
		for j, p := range pp {
			if p.Title.Text == c.title {
				i = j
			}
		}
		if i < 0 {
			t.Errorf("no peak panel %q", c.title)
			continue
		}
		_, log := pp[i].Y.Scale.(plot.LogScale)
		if log != c.log {
			t.Errorf("peak panel %q: log axis %v, want %v", c.title, log, c.log)
		}
		if !log && pp[i].Y.Min != 0 {
			t.Errorf("peak panel %q: linear axis from %v, want 0", c.title, pp[i].Y.Min)
		}
	}

	// The page has the section, both charts, and the tables of the
	// handshake and peak units.
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, s := range []string{`<section id="operators">`, `href="#operators"`, `id="` + hs.ID + `"`, `id="` + peak.ID + `"`,
		"(calm-handshake-p99-sec)", "(handshake-p99-sec)", "(p99-churn-ratio)", "(peak-B)"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	// The PNGs include the operator charts.
	if got := rep.Charts(); len(got) != len(rep.Growth)+len(rep.Operators)+len(rep.Scenarios) {
		t.Errorf("Charts has %d charts", len(got))
	}
}

// TestOperatorChartsAbsent: results without handshake or peak units get
// no operator charts.
func TestOperatorChartsAbsent(t *testing.T) {
	rep, err := Build(sweepResults(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Operators) != 0 {
		t.Errorf("%d operator charts, want none", len(rep.Operators))
	}
}

// TestPeakNotRead: a store whose refresh's peak was not read (no peak-B)
// is named in the peak panel as not read, with its B/op as the bound.
func TestPeakNotRead(t *testing.T) {
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=naive-2 10 %d ns/op 700000 B/op %d peak-B\n", 100000000+i, 140000+i)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=optimized-2 10 %d ns/op 41370 B/op\n", 500000+i)
	}
	rs, err := results.Read(strings.NewReader(b.String()), "peak.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Operators) != 1 {
		t.Fatalf("%d operator charts, want the peak heap's", len(rep.Operators))
	}
	svg, err := rep.Operators[0].SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"optimized", "not read", "(at most its B/op,", "40.4 KiB)", "137 KiB"} {
		if !bytes.Contains(svg, []byte(s)) {
			t.Errorf("peak chart lacks %q", s)
		}
	}
}

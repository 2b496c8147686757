package report

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
)

// TestChartsSayWhichWayIsBetter: every chart says which way is better,
// once under its title when all its panels agree, else under each panel
// (the refreshes/s panel of handshake-under-churn is higher-is-better
// among lower-is-better ones), and the note is drawn.
func TestChartsSayWhichWayIsBetter(t *testing.T) {
	rep, err := Build(sweepResults(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range rep.Charts() {
		chartNote, panelNotes := ch.notes()
		for _, p := range ch.panels() {
			if !strings.Contains(chartNote, "is better") && !strings.Contains(panelNotes[p], "is better") {
				t.Errorf("%s, panel %q: no \"lower/higher is better\" (chart note %q, panel note %q)", ch.ID, p.Title.Text, chartNote, panelNotes[p])
			}
		}
		svg, err := ch.SVG()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(svg, []byte("is better")) {
			t.Errorf("%s: the note is not drawn", ch.ID)
		}
	}
	var hs *Chart
	for _, ch := range rep.Scenarios {
		if ch.ID == "scenario-handshake-under-churn" {
			hs = ch
		}
	}
	if hs == nil {
		t.Fatal("no handshake-under-churn chart")
	}
	_, panelNotes := hs.notes()
	for _, p := range hs.panels() {
		want := "lower is better"
		if p.Title.Text == results.Title(results.UnitRefreshRate) {
			want = "higher is better"
		}
		if !strings.HasPrefix(panelNotes[p], want) {
			t.Errorf("handshake-under-churn, panel %q: note %q, want %q", p.Title.Text, panelNotes[p], want)
		}
	}
}

// TestTimeUnitsHaveUnits: every time metric certbench writes (CPU time
// and GC CPU per op too, not only sec/op) reads with a unit on the
// charts: "75.3 ms", never a bare "0.0753".
func TestTimeUnitsHaveUnits(t *testing.T) {
	for _, u := range results.Units() {
		if !strings.Contains(u.Tidy, "sec") {
			continue
		}
		if got := formatOf(u.Tidy)(0.0753); got != "75.3 ms" {
			t.Errorf("%s: 0.0753 s reads %q, want 75.3 ms", u.Tidy, got)
		}
	}
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=naive-2 10 %d ns/op %d cpu-ns/op %d gc-cpu-ns/op\n", 75300000+i, 75300000+i, 328000+i)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=rotate-10-of-100/store=optimized-2 10 %d ns/op %d cpu-ns/op %d gc-cpu-ns/op\n", 445000+i, 445000+i, 1000+i)
	}
	rs, err := results.Read(strings.NewReader(b.String()), "cpu.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	svg, err := rep.Scenarios[0].SVG()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">CPU time per op<", ">75.3 ms<", ">GC CPU per op<", ">328 µs<"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("scenario chart lacks %s", want)
		}
	}
}

// TestReportShowsGate: given a gate result, the page opens with the
// verdict, the policy, how significance is decided, and what regressed,
// before anything else, in the gate's own words and figures.
func TestReportShowsGate(t *testing.T) {
	data, err := os.ReadFile("../ci/gate/testdata/golden.json.golden")
	if err != nil {
		t.Fatal(err)
	}
	g, err := gate.ReadDocument(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(sweepResults(t), Options{Gate: g})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	at := strings.Index(page, `<section id="gate" class="gate fail">`)
	if at < 0 || at > strings.Index(page, "<nav>") {
		t.Fatalf("no failed gate section before the contents (at %d, nav at %d)", at, strings.Index(page, "<nav>"))
	}
	gate := page[at : at+strings.Index(page[at:], "</section>")]
	for _, want := range []string{
		"<h2>certbench gate: FAIL: 3 regressions</h2>",
		"base: base.txt, head: head.txt. 12 comparisons: 3 regressed, 1 improved, 8 unchanged.",
		"sec/op +10%, B/op +2%", "goroutines +0",
		"p &lt; 0.05 per metric after Holm&#39;s correction",
		`<td class="num regressed">+248 µs (+24.75%)</td>`, // rotate-10-of-100 sec/op regressed
		`<td class="num better">-30.2 ns (-30.14%)</td>`,   // lookup-1000 sec/op improved
		"warning: 1 benchmark(s) only in head",
	} {
		if !strings.Contains(gate, want) {
			t.Errorf("gate section lacks %s:\n%s", want, gate)
		}
	}

	// Without a gate result, no gate section.
	rep, err = Build(sweepResults(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `id="gate"`) {
		t.Error("a gate section without a gate result")
	}
}

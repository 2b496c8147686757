package report

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/internal/ci/history"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// planted is a history of 30 commits of one benchmark: allocs/op steps
// from 100 to 110 at commit stepAt, sec/op is noise around 1 ms.
const planted, stepAt = 30, 18

// runFile returns a result file as certbench run writes it, allocs/op
// at allocs and sec/op drawn from r.
func runFile(t *testing.T, r *rand.Rand, allocs float64) []byte {
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	cfg := []benchfmt.Config{{Key: "goos", Value: []byte("linux"), File: true}, {Key: results.VersionKey, Value: []byte("v0.0.0-test"), File: true}}
	for range 6 {
		res := &benchfmt.Result{Config: cfg, Name: benchfmt.Name(results.ChurnName("s", "x") + "-2"), Iters: 1, Values: []benchfmt.Value{
			{Value: 1e-3 * (1 + 0.02*r.NormFloat64()), Unit: "sec/op"}, {Value: allocs, Unit: "allocs/op"}}}
		if err := w.WriteResult(res); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// plantedHistory writes the history and a head of allocs/op 111, and
// returns them loaded.
func plantedHistory(t *testing.T) (*history.History, *results.Set) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	st, err := history.Open(filepath.Join(dir, "hist"), "")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	for c := range planted {
		allocs := 100.0
		if c >= stepAt {
			allocs = 110
		}
		path := filepath.Join(dir, "run.txt")
		if err := os.WriteFile(path, runFile(t, r, allocs), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := history.Add(context.Background(), st, fmt.Sprintf("c%06x", c), t0.Add(time.Duration(c)*24*time.Hour), path); err != nil {
			t.Fatal(err)
		}
	}
	h, err := history.Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	head := filepath.Join(dir, "head.txt")
	if err := os.WriteFile(head, runFile(t, r, 111), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := results.Load(head)
	if err != nil {
		t.Fatal(err)
	}
	return h, rs
}

// TestTrendChartMarksChangePoint: the trend chart of a history marks the
// planted step at its commit, named by its hash and size, and nothing in
// the series that is only noise; the head is drawn against the band of
// main's last commits since the step, and every commit is on the axis.
func TestTrendChartMarksChangePoint(t *testing.T) {
	h, rs := plantedHistory(t)
	rep, err := Build(rs, Options{History: h})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Trends) != 1 || rep.Trends[0].ID != "trend-Churn_scenario_s_store_x" {
		t.Fatalf("trend charts %v, want one of Churn/scenario=s/store=x", rep.Trends)
	}
	cps := history.Changes(h, history.Options{})
	step := fmt.Sprintf("c%06x", stepAt)
	if len(cps) != 1 || cps[0].Commit != step {
		t.Fatalf("history finds %v, want the step at %s", cps, step)
	}
	for _, unit := range []string{"allocs/op", "sec/op"} {
		k := history.Key{Benchmark: "Churn/scenario=s/store=x", Unit: unit}
		p, tr := trendPlot(h, k, 0, cps, headValues(rs, rs.Files[0], k))
		if p == nil {
			t.Fatalf("%s: no panel", unit)
		}
		if len(tr.pts) != planted || tr.head == nil || tr.head.n != 6 {
			t.Fatalf("%s: %d points, head %+v; want %d and a head of 6 samples", unit, len(tr.pts), tr.head, planted)
		}
		if unit == "sec/op" {
			if len(tr.marks) != 0 {
				t.Errorf("sec/op: marks %+v on noise", tr.marks)
			}
			continue
		}
		if len(tr.marks) != 1 {
			t.Fatalf("allocs/op: marks %+v, want one", tr.marks)
		}
		m := tr.marks[0]
		if m.x != stepAt-0.5 || m.label != step+" +10.00%" || m.color != regressedColor || m.before != 100 || m.after != 110 {
			t.Errorf("allocs/op: mark %+v, want at %v-0.5, labelled %q, red, 100 -> 110", m, float64(stepAt), step+" +10.00%")
		}
		if b := tr.band; b.lo != 110 || b.hi != 110 || b.x0 < stepAt-0.5 || tr.head.y != 111 {
			t.Errorf("allocs/op: band %+v, head %+v; want the band of the commits after the step at 110, the head at 111", b, tr.head)
		}
		labels := map[float64]string{}
		for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
			labels[tk.Value] = tk.Label
		}
		if !strings.HasPrefix(labels[stepAt], step+"\n") || labels[tr.head.x] != "head" || len(labels) != planted+1 {
			t.Errorf("allocs/op: x ticks %v, want one per commit, the step's labelled %s and date, and the head's", labels, step)
		}
	}
	svg, err := rep.Trends[0].SVG()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(svg), step+" +10.00%"); n != 1 {
		t.Errorf("the chart names the change point %d times, want once", n)
	}
	// A history alone makes a page of trends.
	rep, err = Build(nil, Options{History: h})
	if err != nil || len(rep.Trends) != 1 {
		t.Fatalf("history without results: %v, %v", rep, err)
	}
	var page bytes.Buffer
	if err := rep.WriteHTML(&page); err != nil || !strings.Contains(page.String(), `id="trend-Churn_scenario_s_store_x"`) {
		t.Errorf("page without results: %v, no trend chart", err)
	}
}

package bench_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

func TestHandshakeUnderChurn(t *testing.T) {
	sc := scenario(t, "handshake-under-churn")
	sc.Ops = 2_000_000 // so that the 300 ms bound ends the window
	sc.Pool.Count = 50 // refreshes fast enough under -race
	sc.Duration = 300 * time.Millisecond
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	s, err := bench.Measure(newSimple, "simple", w)
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("sample took %v; it must stop by itself", d)
	}
	if s.Ops <= 0 || s.Ops > sc.Ops {
		t.Errorf("%d lookups, want 1..%d", s.Ops, sc.Ops)
	}
	if s.NsPerOp <= 0 {
		t.Errorf("sec/op %v", s.NsPerOp)
	}
	got := map[string]float64{}
	for _, v := range s.Extra {
		got[v.Unit] = v.Value
	}
	for _, u := range []string{results.UnitP50, results.UnitP99, results.UnitP999} {
		if !(got[u] > 0) {
			t.Errorf("%s = %v, want > 0", u, got[u])
		}
	}
	if !(got[results.UnitP50] <= got[results.UnitP99] && got[results.UnitP99] <= got[results.UnitP999]) {
		t.Errorf("percentiles out of order: %v", got)
	}
	if !(got[results.UnitRefreshRate] > 0) {
		t.Errorf("refreshes/s = %v, want > 0 (the simple store refreshes in milliseconds)", got[results.UnitRefreshRate])
	}

	var buf bytes.Buffer
	wr := bench.NewWriter(&buf)
	if err := wr.Write(s); err != nil {
		t.Fatal(err)
	}
	if err := wr.WriteUnits(); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	if !strings.Contains(text, "Unit p99-ns better=lower") {
		t.Errorf("no direction for p99-ns in\n%s", text)
	}
	r := benchfmt.NewReader(&buf, "churn.txt")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			// The reader tidies p999-ns into p999-sec.
			for _, u := range []string{"sec/op", "p999-sec", results.UnitRefreshRate} {
				if _, ok := res.Value(u); !ok {
					t.Errorf("result has no %s", u)
				}
			}
		}
	}
	if b := r.Units().GetBetter(results.UnitRefreshRate); b != 1 {
		t.Errorf("refreshes/s better = %d, want higher (1)", b)
	}
}

func TestSampleName(t *testing.T) {
	s := bench.Sample{Scenario: "renew-1-of-100", Store: "x", Name: "Sweep/family=renew-1/size=100/scenario=renew-1-of-100/store=x", Ops: 1}
	res := s.Result(nil, 1)
	if got := string(res.Name); got != s.Name {
		t.Errorf("name %q, want %q", got, s.Name)
	}
}

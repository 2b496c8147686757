package sweep

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/compare"
	"github.com/certbench/certbench/scenarios"
)

func TestFitPowerKnown(t *testing.T) {
	sizes := []float64{100, 1000, 10000, 100000}
	for _, tc := range []struct {
		name string
		f    func(n float64) float64
		k, c float64
	}{
		{"3N^2", func(n float64) float64 { return 3 * n * n }, 2, 3},
		{"5N", func(n float64) float64 { return 5 * n }, 1, 5},
		{"constant", func(float64) float64 { return 7 }, 0, 7},
		{"sqrt", func(n float64) float64 { return 0.5 * math.Sqrt(n) }, 0.5, 0.5},
	} {
		ys := make([]float64, len(sizes))
		for i, n := range sizes {
			ys[i] = tc.f(n)
		}
		fit, err := FitPower(sizes, ys)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(fit.Exponent-tc.k) > 1e-9 || math.Abs(fit.Coefficient-tc.c)/tc.c > 1e-9 || math.Abs(fit.R2-1) > 1e-9 || fit.Points != 4 {
			t.Errorf("%s: fit %+v, want k=%v c=%v R2=1 over 4 points", tc.name, fit, tc.k, tc.c)
		}
	}
}

func TestFitPowerLeastSquares(t *testing.T) {
	// Noisy quadratic: the slope stays near 2, and R² drops below 1.
	sizes := []float64{10, 100, 1000, 10000}
	ys := []float64{3 * 100 * 1.2, 3 * 1e4 * 0.9, 3 * 1e6 * 1.1, 3 * 1e8 * 0.95}
	fit, err := FitPower(sizes, ys)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fit.Exponent-2) > 0.05 || fit.R2 >= 1 || fit.R2 < 0.99 {
		t.Errorf("noisy quadratic: %+v", fit)
	}
	// Zero and negative values are left out.
	fit, err = FitPower([]float64{1, 10, 100, 1000}, []float64{0, 20, 200, -1})
	if err != nil || fit.Points != 2 || math.Abs(fit.Exponent-1) > 1e-9 {
		t.Errorf("with non-positive values: %+v, %v", fit, err)
	}
	for _, bad := range [][2][]float64{
		{{100}, {1}},
		{{100, 100}, {1, 2}},
		{{100, 1000}, {0, 5}},
		{nil, nil},
	} {
		if _, err := FitPower(bad[0], bad[1]); !errors.Is(err, ErrTooFewPoints) {
			t.Errorf("FitPower(%v, %v) error %v, want ErrTooFewPoints", bad[0], bad[1], err)
		}
	}
}

func TestSampleCount(t *testing.T) {
	for _, tc := range []struct{ count, size, want int }{
		{6, 100, 6}, {6, 10000, 6}, {6, 20000, 3}, {6, 100000, 3},
		{10, 20000, 5}, {20, 100000, 3}, {40, 100000, 4},
		{2, 100000, 2}, {1, 1000000, 1}, {0, 100, bench.DefaultCount},
	} {
		if got := SampleCount(tc.count, tc.size); got != tc.want {
			t.Errorf("SampleCount(%d, %d) = %d, want %d", tc.count, tc.size, got, tc.want)
		}
	}
}

// synthetic writes sweep results: value = coef * N^k * (1 + small noise)
// for each store, in seconds (ns/op written).
func synthetic(stores map[string]float64, sizes []int, samples int) string {
	var b strings.Builder
	b.WriteString("goos: linux\n")
	for _, n := range sizes {
		for st, k := range stores {
			for i := 0; i < samples; i++ {
				noise := 1 + 0.01*float64(i-samples/2)
				ns := 3 * math.Pow(float64(n), k) * noise
				fmt.Fprintf(&b, "Benchmark%s-2 1 %g ns/op %d B/op 5 allocs/op %g retained-B %g retained-B/cert 0 goroutines\n",
					SampleName("renew-1", n, fmt.Sprintf("renew-1-of-%d", n), st), ns, 100*n, 1000*float64(n), 1000.0)
			}
		}
	}
	b.WriteString("BenchmarkChurn/scenario=lookup-1000/store=fast-2 100 50 ns/op 0 B/op 0 allocs/op 1 retained-B 1 retained-B/cert 0 goroutines\n")
	return b.String()
}

func TestCurves(t *testing.T) {
	text := synthetic(map[string]float64{"slow": 2, "fast": 1}, []int{1000, 100, 10000}, 6)
	rs, err := compare.Read(strings.NewReader(text), "synthetic")
	if err != nil {
		t.Fatal(err)
	}
	sw, other := Split(rs)
	if sw == nil || other == nil || len(other.Results) != 1 {
		t.Fatalf("Split: sweep %v, other %v", sw != nil, other)
	}
	curves, err := Curves(rs)
	if err != nil {
		t.Fatal(err)
	}
	slow := Find(curves, "renew-1", "slow", "sec/op")
	fast := Find(curves, "renew-1", "fast", "sec/op")
	if slow == nil || fast == nil {
		t.Fatalf("curves %+v: no sec/op curve per store", curves)
	}
	if got := slow.Sizes(); len(got) != 3 || got[0] != 100 || got[2] != 10000 {
		t.Errorf("sizes %v, want 100, 1000, 10000 in order", got)
	}
	if math.Abs(slow.Fit.Exponent-2) > 0.01 || math.Abs(fast.Fit.Exponent-1) > 0.01 {
		t.Errorf("exponents slow %.3f, fast %.3f; want 2 and 1", slow.Fit.Exponent, fast.Fit.Exponent)
	}
	if math.Abs(slow.Last.Exponent-2) > 0.01 {
		t.Errorf("last-step exponent %.3f, want 2", slow.Last.Exponent)
	}
	if p := slow.Points[0]; p.N != 6 || !(p.Lo < p.Center && p.Center < p.Hi) {
		t.Errorf("point %+v: want 6 samples and a confidence interval around the median", p)
	}
	if r := Find(curves, "renew-1", "slow", "retained-B"); r == nil || math.Abs(r.Fit.Exponent-1) > 1e-6 {
		t.Errorf("retained-B curve %+v, want exponent 1", r)
	}

	if g := Find(curves, "renew-1", "slow", "goroutines"); g == nil || !AllZero(g) || growthText(g) != "0 at every size" {
		t.Errorf("goroutines curve %+v: want all zero", g)
	}
	if AllZero(slow) {
		t.Error("sec/op curve reported all zero")
	}

	var buf bytes.Buffer
	if err := WriteTable(&buf, curves); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"renew-1", "10,000", "N^2.00", "N^1.00", "slow", "fast", "retained-B"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if lines := Summary(curves, "sec/op"); len(lines) != 1 || !strings.Contains(lines[0], "slow ~ N^2.00") || !strings.Contains(lines[0], "fast ~ N^1.00") {
		t.Errorf("summary %q", lines)
	}
	if _, err := Curves(other); err == nil {
		t.Error("Curves of results without sweep samples gave no error")
	}
}

// tiny is a fast correct-enough store for running sweeps in tests.
type tiny struct {
	cur atomic.Pointer[map[string]*tls.Certificate]
}

func (s *tiny) Update(cfg *certstore.Config) error {
	m := map[string]*tls.Certificate{}
	for i := range cfg.Certificates {
		c := &tls.Certificate{Certificate: [][]byte{cfg.Certificates[i].CertPEM}}
		m[fmt.Sprint(i)] = c
	}
	s.cur.Store(&m)
	return nil
}
func (s *tiny) Current() certstore.Generation { return s }
func (s *tiny) Certificate(string, *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return nil, certstore.ErrNoCertificate
}

func TestRun(t *testing.T) {
	fam, _ := scenarios.FamilyByName("renew-1")
	stores := []certstore.Info{
		{Name: "a", New: func() certstore.Store { return &tiny{} }},
		{Name: "b", New: func() certstore.Store { return &tiny{} }},
	}
	var names []string
	res, err := Run(context.Background(), Options{
		Family:  fam,
		Sizes:   []int{20, 5, 40},
		Stores:  stores,
		Count:   2,
		MaxSize: map[string]int{"b": 20},
	}, func(s bench.Sample) error {
		names = append(names, s.Name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Sweep/family=renew-1/size=5/scenario=renew-1-of-5/store=a",
		"Sweep/family=renew-1/size=5/scenario=renew-1-of-5/store=b",
		"Sweep/family=renew-1/size=5/scenario=renew-1-of-5/store=a",
		"Sweep/family=renew-1/size=5/scenario=renew-1-of-5/store=b",
	}
	for i, w := range want {
		if i >= len(names) || names[i] != w {
			t.Fatalf("samples %q, want to start (interleaved, smallest size first) with %q", names, want)
		}
	}
	if len(names) != 2*2+2*2+2 || res.Samples != len(names) {
		t.Errorf("%d samples (result says %d), want 10 (b skipped at 40)", len(names), res.Samples)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "b skipped at 40") || !strings.Contains(res.Notes[0], "--max-size") {
		t.Errorf("notes %q, want one about b skipped at 40", res.Notes)
	}
}

func TestRunBudget(t *testing.T) {
	fam, _ := scenarios.FamilyByName("noop")
	stores := []certstore.Info{{Name: "a", New: func() certstore.Store { return &tiny{} }}}
	n := 0
	res, err := Run(context.Background(), Options{
		Family: fam, Sizes: []int{5, 50}, Stores: stores, Count: 3, Budget: time.Nanosecond,
	}, func(bench.Sample) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	// Size 5: no estimate yet, so it starts, and stops after one sample
	// over budget; size 50: estimated over budget, skipped.
	if n != 1 {
		t.Errorf("%d samples, want 1", n)
	}
	if len(res.Notes) != 2 || !strings.Contains(res.Notes[0], "stopped after 1 of 3 samples") || !strings.Contains(res.Notes[1], "skipped at 50") {
		t.Errorf("notes %q", res.Notes)
	}
}

func TestEstimate(t *testing.T) {
	h := &history{sizes: []int{100, 1000}, secPerOp: []float64{0.01, 1}, wallPerOp: []float64{0.02, 2}}
	// Quadratic from 100 to 1000: ten times the size costs 100 times.
	est, ok := h.estimate(10000, 1)
	if !ok || math.Abs(est-2*100*2)/400 > 1e-9 {
		t.Errorf("estimate %v, %v; want 400 s (2 s per refresh × 100 × 2 refreshes)", est, ok)
	}
	// Flatter than linear growth is extrapolated as linear.
	h = &history{sizes: []int{100, 1000}, secPerOp: []float64{1, 1.1}, wallPerOp: []float64{1, 1.1}}
	if est, _ := h.estimate(10000, 0); math.Abs(est-11) > 1e-9 {
		t.Errorf("estimate %v, want 11 s (linear)", est)
	}
	if _, ok := (&history{}).estimate(10, 1); ok {
		t.Error("estimate without history")
	}
}

package growth

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
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
					results.SweepName("renew-1", n, fmt.Sprintf("renew-1-of-%d", n), st), ns, 100*n, 1000*float64(n), 1000.0)
			}
		}
	}
	b.WriteString("BenchmarkChurn/scenario=lookup-1000/store=fast-2 100 50 ns/op 0 B/op 0 allocs/op 1 retained-B 1 retained-B/cert 0 goroutines\n")
	return b.String()
}

func TestCurves(t *testing.T) {
	text := synthetic(map[string]float64{"slow": 2, "fast": 1}, []int{1000, 100, 10000}, 6)
	rs, err := results.Read(strings.NewReader(text), "synthetic")
	if err != nil {
		t.Fatal(err)
	}
	sw, other := Split(rs)
	if sw == nil || other == nil || other.Samples() != 1 {
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

// TestSizeName: SizeName says what scenarios says each family's size
// counts (growth does not import scenarios, which makes pools).
func TestSizeName(t *testing.T) {
	if f, err := scenarios.FamilyByName(HeldFamily); err != nil || f.Kind != scenarios.Held {
		t.Fatalf("scenarios has no held family named %q (%v)", HeldFamily, err)
	}
	for _, f := range scenarios.Families {
		if got := SizeName(f.Name); !strings.HasPrefix(got, f.Counts()) {
			t.Errorf("SizeName(%q) = %q, want what scenarios counts, %q", f.Name, got, f.Counts())
		}
	}
}

// TestGrowthTextNoFit: a curve that cannot be fitted says why.
func TestGrowthTextNoFit(t *testing.T) {
	for _, tc := range []struct {
		points []Point
		want   string
	}{
		{[]Point{{Size: 1000, Center: 5e6}}, "no fit at 1 size"},
		{[]Point{{Size: 10, Center: 0}, {Size: 100, Center: 3}}, "0 at 1 of 2 sizes, no fit"},
	} {
		c := Curve{Points: tc.points}
		c.fit()
		if got := growthText(&c); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.points, got, tc.want)
		}
	}
}

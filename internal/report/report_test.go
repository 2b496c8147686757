package report

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
)

// sweepResults makes a results file with a sweep (two stores, three sizes) and
// a run (two scenarios, one with the handshake-under-churn units).
func sweepResults(t *testing.T) *results.Set {
	t.Helper()
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: Test CPU\n")
	for _, n := range []int{100, 1000, 10000} {
		for _, st := range []struct {
			name string
			k    float64
		}{{"naive", 2}, {"optimized", 1}} {
			for i := 0; i < 6; i++ {
				ns := 50 * math.Pow(float64(n), st.k) * (1 + 0.02*float64(i))
				fmt.Fprintf(&b, "Benchmark%s-2 1 %g ns/op %d B/op %d allocs/op %d retained-B 1200 retained-B/cert 0 goroutines\n",
					results.SweepName("renew-1", n, fmt.Sprintf("renew-1-of-%d", n), st.name), ns, 900*n, 12*n, 1200*n)
			}
		}
	}
	for i := 0; i < 6; i++ {
		d := float64(i)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=renew-1-of-1000/store=naive-2 10 %g ns/op 11000000 B/op 140000 allocs/op 4800000 retained-B 4800 retained-B/cert 0 goroutines\n", 3e8+1e6*d)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=renew-1-of-1000/store=optimized-2 10 %g ns/op 150000 B/op 145 allocs/op 1270000 retained-B 1270 retained-B/cert 0 goroutines\n", 2e6+1e4*d)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=handshake-under-churn/store=naive-2 800 %g ns/op 230000 B/op 8600 allocs/op 4800000 retained-B 4800 retained-B/cert 0 goroutines %g p50-ns %g p99-ns %g p999-ns %g refreshes/s\n", 5e6+1e4*d, 6e5+d, 5e7+d, 7e7+d, 0.9+0.01*d)
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=handshake-under-churn/store=optimized-2 4000000 %g ns/op 0 B/op 0 allocs/op 1270000 retained-B 1270 retained-B/cert 0 goroutines %g p50-ns %g p99-ns %g p999-ns %g refreshes/s\n", 500+d, 80+d, 400+d, 900+d, 200+d)
	}
	b.WriteString("Unit p50-ns better=lower\nUnit p99-ns better=lower\nUnit p999-ns better=lower\nUnit refreshes/s better=higher\n")
	rs, err := results.Read(strings.NewReader(b.String()), "results.txt")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestReportHTML(t *testing.T) {
	rep, err := Build(sweepResults(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Growth) != 1 || len(rep.Scenarios) != 2 {
		t.Fatalf("%d growth and %d scenario charts, want 1 and 2", len(rep.Growth), len(rep.Scenarios))
	}
	var buf bytes.Buffer
	if err := rep.WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()

	// Structure: every chart inline, every table present.
	if n := strings.Count(page, "<svg"); n != 3 {
		t.Errorf("%d inline SVGs, want 3", n)
	}
	for _, want := range []string{
		`id="growth-renew-1"`,           // growth chart
		`id="scenario-renew-1-of-1000"`, // bar charts
		`id="scenario-handshake-under-churn"`,
		`id="exponents"`,       // growth exponents table
		`id="medians-renew-1"`, // medians per size
		`id="table-sec_op"`,    // compare's tables
		`id="table-p99-sec"`,
		`id="table-refreshes_s"`,
		"N^2.00", "N^1.00", // fitted exponents
		"time per op", "retained heap", // chart titles
		"lookup latency, p99",
		"refreshes per second",
		"both axes logarithmic", // log axes are noted, not used as labels
		"certificates in the pool, N",
		"naive: N^2.00",      // legend with the exponent
		"Test CPU",           // configuration
		`class="num better"`, // optimized is better
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// refreshes/s is higher-is-better: the optimized store's higher rate
	// must be marked better, not worse.
	i := strings.Index(page, `id="table-refreshes_s"`)
	if i < 0 || !strings.Contains(page[i:i+strings.Index(page[i:], "</table>")], "num better") {
		t.Error("refreshes/s delta not marked better")
	}

	// Self-contained: nothing fetched, no URL at all.
	for _, pat := range []string{
		`(?i)https?://`,
		`(?i)\b(src|href|xlink:href)\s*=\s*["']?\s*(https?:|//|data:|file:)`,
		`(?i)<script`,
		`(?i)<link\b`,
		`(?i)@import`,
		`(?i)url\(`,
		`(?i)<iframe|<object|<embed|<img`,
	} {
		if loc := regexp.MustCompile(pat).FindStringIndex(page); loc != nil {
			t.Errorf("page matches %s: %q", pat, page[max(0, loc[0]-40):min(len(page), loc[1]+40)])
		}
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "#") {
			t.Errorf("link to %q, want only in-page anchors", m[1])
		}
	}
	if strings.Contains(page, "<?xml") {
		t.Error("inline SVG keeps its XML prolog")
	}
}

func TestReportPNGs(t *testing.T) {
	rep, err := Build(sweepResults(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := rep.WritePNGs(dir, 72)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Fatalf("%d images, want 3", len(paths))
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 150 {
			t.Errorf("%s: %v, too small", p, b)
		}
	}

}

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		f    func(float64) string
		v    float64
		want string
	}{
		{formatSeconds, 0.0025, "2.5 ms"}, {formatSeconds, 52.1, "52.1 s"}, {formatSeconds, 8.3e-8, "83 ns"},
		{formatSeconds, 1.234567e-5, "12.3 µs"}, {formatSeconds, 0, "0 s"},
		{formatBytes, 512, "512 B"}, {formatBytes, 1536, "1.5 KiB"}, {formatBytes, 12 << 20, "12 MiB"},
		{formatCount, 140, "140"}, {formatCount, 141000, "141k"}, {formatCount, 1.2e6, "1.2M"}, {formatCount, 1234, "1,234"},
	} {
		if got := tc.f(tc.v); got != tc.want {
			t.Errorf("format(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	var labels []string
	for _, tk := range (logTicker{format: formatCount}).Ticks(50, 20000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "100 1,000 10k" {
		t.Errorf("log ticks labelled %q, want 100 1,000 10k", got)
	}
	labels = nil
	for _, tk := range (logTicker{format: formatBytes, bytes: true}).Ticks(500, 5e6) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "1 KiB 10 KiB 100 KiB 1 MiB" {
		t.Errorf("byte log ticks labelled %q", got)
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := Build(&results.Set{}, Options{}); err == nil {
		t.Error("Build of no results gave no error")
	}
}

package gate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
)

// sixRounds renders one side of an interleaved run at count 6: three
// scenarios on two stores, every unit certbench writes for a refresh,
// values that wander by round so that nothing is significant.
func sixRounds(t *testing.T, name string, seed int) *results.Set {
	t.Helper()
	var b strings.Builder
	b.WriteString("goos: linux\ngoarch: amd64\ncpu: AMD EPYC\n")
	x := uint32(seed)
	wobble := func() float64 { // within ±10%
		x = x*1664525 + 1013904223
		return 0.9 + 0.2*float64(x>>8)/float64(1<<24)
	}
	for r := 1; r <= 6; r++ {
		fmt.Fprintf(&b, "round: %d\n", r)
		for _, sc := range []string{"rotate-10-of-100", "renew-1-of-1000", "lookup-1000"} {
			for _, st := range []string{"naive", "optimized"} {
				f := wobble()
				fmt.Fprintf(&b, "BenchmarkChurn/scenario=%s/store=%s-2 10 %.0f ns/op %.0f cpu-ns/op 1184 B/op 12 allocs/op %.0f retained-B 0 goroutines "+
					"%.0f gc-cpu-ns/op 0.01 gc-cpu-fraction 0.2 gc-cycles/op %.0f peak-B\n",
					sc, st, 310000*f, 300000*f, 50000*wobble(), 1000*f, 9000*f)
			}
		}
	}
	rs, err := results.Read(strings.NewReader(b.String()), name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestWarningsOncePerKind: at count 6 the signed-rank test cannot reach
// p < 0.05 after Holm's correction, so every time and heap comparison
// falls back to the U test; the summary says so once, naming the metrics
// and benchmarks, not once per comparison. certbench's own units (GC,
// peak heap) are not called unknown, and a policy may gate them.
func TestWarningsOncePerKind(t *testing.T) {
	base, head := sixRounds(t, "base.txt", 1), sixRounds(t, "head.txt", 2)
	v, err := Evaluate(base, head, DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	var md, txt bytes.Buffer
	if err := writeMarkdown(v, &md); err != nil {
		t.Fatal(err)
	}
	if err := writeText(v, &txt); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "text": txt.String()} {
		if n := strings.Count(out, "cannot reach p"); n != 1 {
			t.Errorf("%s: the reason for not pairing is given %d times, want once:\n%s", name, n, out)
		}
		if strings.Contains(out, "unknown unit") {
			t.Errorf("%s: certbench's own units called unknown:\n%s", name, out)
		}
		want := "12 comparison(s) not paired by round, U test instead (6 non-zero pairs cannot reach p &lt; 0.05 after holm's correction for 6 tests): " +
			"sec/op, retained-B of rotate-10-of-100/naive, rotate-10-of-100/optimized, renew-1-of-1000/naive, renew-1-of-1000/optimized, lookup-1000/naive, lookup-1000/optimized"
		if name == "text" {
			want = strings.ReplaceAll(want, "&lt;", "<")
		}
		if !strings.Contains(out, want) {
			t.Errorf("%s: no warning %q:\n%s", name, want, out)
		}
	}
	if !strings.Contains(txt.String(), "not gated (no threshold): cpu-sec/op, peak-B, gc-cpu-sec/op, gc-cpu-fraction, gc-cycles/op\n") {
		t.Errorf("text: not-gated warning:\n%s", txt.String())
	}

	p := DefaultPolicy()
	p.SetMax("peak-B", MustThreshold("+5%"))
	p.SetMax("gc-cycles/op", MustThreshold("+50%"))
	v, err = Evaluate(base, head, p)
	if err != nil {
		t.Fatal(err)
	}
	gated := map[string]int{}
	for _, f := range v.Findings {
		gated[f.Unit]++
	}
	if gated["peak-B"] != 6 || gated["gc-cycles/op"] != 6 {
		t.Errorf("peak-B and gc-cycles/op gated %d and %d times, want 6 each", gated["peak-B"], gated["gc-cycles/op"])
	}
}

// TestCorrectionSaid: the gate's outputs say which correction for
// multiple comparisons applied, and why certbench compare (which applies
// none) can disagree; without a correction they say that instead.
func TestCorrectionSaid(t *testing.T) {
	base, head := sixRounds(t, "base.txt", 1), sixRounds(t, "head.txt", 2)
	for _, tc := range []struct {
		correction Correction
		want       string
	}{
		{Holm, "p < 0.05 per metric after Holm's correction for the number of benchmarks tested on it (up to 6); certbench compare and benchstat correct for nothing, so they can call significant a change the gate finds unchanged"},
		{NoCorrection, "each comparison at p < 0.05 on its own, no correction for multiple comparisons (as certbench compare and benchstat)"},
	} {
		p := DefaultPolicy()
		p.Correction = tc.correction
		v, err := Evaluate(base, head, p)
		if err != nil {
			t.Fatal(err)
		}
		var md, txt bytes.Buffer
		if err := writeMarkdown(v, &md); err != nil {
			t.Fatal(err)
		}
		if err := writeText(v, &txt); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(txt.String(), "\ntests: "+tc.want+"\n") {
			t.Errorf("%s: text lacks the line %q:\n%s", tc.correction, tc.want, txt.String())
		}
		if !strings.Contains(md.String(), "\n\ntests: "+strings.ReplaceAll(tc.want, "<", "&lt;")+"\n\n") {
			t.Errorf("%s: markdown lacks %q:\n%s", tc.correction, tc.want, md.String())
		}
	}
}

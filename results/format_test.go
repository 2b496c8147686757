package results

import (
	"math"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{0.05774, UnitSec, "57.7 ms"},
		{57.74e6, UnitNsPerOp, "57.7 ms"},
		{850e-9, UnitSec, "850 ns"},
		{1.2, UnitSec, "1.2 s"},
		{0.001003, UnitSec, "1 ms"},
		{12, UnitBytes, "12 B"},
		{0, UnitSec, "0 s"},
		{86323, UnitBytes, "84.3 KiB"},
		{512, UnitRetainedPerCert, "512 B"},
		{0, UnitBytes, "0 B"},
		{0.5, UnitBytes, "0.5 B"},
		{1536, "bytes", "1.5 KiB"},
		{3 << 20, UnitRetained, "3 MiB"},
		{1184, UnitAllocs, "1,184"},
		{1184.4, UnitAllocs, "1,184"},
		{748.5, UnitAllocs, "748.5"},
		{9999.4, UnitAllocs, "9,999"},
		{9999.6, UnitAllocs, "10k"},
		{25455.8, UnitAllocs, "25.46k"},
		{148333.4, UnitAllocs, "148.3k"},
		{999960, UnitAllocs, "1M"},
		{1217054, UnitAllocs, "1.217M"},
		{2.5e7, UnitAllocs, "25M"},
		{-0.272, UnitRetainedPerCert, "-0.272 B"},
		{-11856, UnitRetained, "-11.6 KiB"},
		{9.0729944e+07, UnitBytes, "86.5 MiB"},
		{171e-9, UnitSec, "171 ns"},
		{99.96, UnitAllocs, "99.96"},
		{99.996, UnitAllocs, "100"},
		{0.2, UnitAllocs, "0.2"},
		{12.54, "count", "12.54"},
		{0.00125, UnitAllocs, "0.00125"},
		{1e-7, UnitAllocs, "0.0000001"},
		{-1234567, UnitGoroutines, "-1.235M"},
		{0.9, UnitRefreshRate, "0.9/s"},
		{2500, UnitRefreshRate, "2,500/s"},
		{0.44, UnitAllocs, "0.44"},
		{80e-9, UnitP50Sec, "80 ns"},
		{80, UnitP50, "80 ns"},
		{2.5, UnitMBPerSec, "2.38 MiB/s"},
		{0.06194, UnitGCFraction, "6.19%"},
		{0.004292, UnitGCFraction, "0.429%"},
		{0, UnitGCFraction, "0%"},
		{1, UnitGCFraction, "100%"},
		{math.NaN(), UnitSec, "-"},
		{math.Inf(1), UnitBytes, "+Inf"},
	} {
		if got := Format(c.v, c.unit); got != c.want {
			t.Errorf("Format(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
	if got := FormatSigned(1536, UnitBytes); got != "+1.5 KiB" {
		t.Errorf("FormatSigned = %q", got)
	}
	if got := FormatSigned(-3, UnitAllocs); got != "-3" {
		t.Errorf("FormatSigned = %q", got)
	}
	if got := FormatSigned(0, UnitAllocs); got != "0" {
		t.Errorf("FormatSigned(0) = %q", got)
	}
	if got := FormatInt(100000); got != "100,000" {
		t.Errorf("FormatInt = %q", got)
	}
	for p, want := range map[float64]string{5: "+5.00%", -93.514: "-93.51%", 35639: "×357.4", 999.99: "+999.99%", 1000: "×11", 0.001: "<+0.01%", 0: "0%", math.NaN(): "?"} {
		if got := FormatPercent(p); got != want {
			t.Errorf("FormatPercent(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestFormatPair(t *testing.T) {
	for _, c := range []struct {
		a, b   float64
		unit   string
		wa, wb string
	}{
		{1328.65, 1329.05, UnitAllocs, "1,328.7", "1,329"},
		{1184, 1201, UnitAllocs, "1,184", "1,201"},
		{1265, 1265, UnitAllocs, "1,265", "1,265"},
		{0.05774, 0.05771, UnitSec, "57.74 ms", "57.71 ms"},
		{86323, 86330, UnitBytes, "84.3 KiB", "84.31 KiB"},
		{1, 1 + 1e-12, UnitAllocs, "1", "1"},
	} {
		if a, b := FormatPair(c.a, c.b, c.unit); a != c.wa || b != c.wb {
			t.Errorf("FormatPair(%v, %v, %q) = %q, %q, want %q, %q", c.a, c.b, c.unit, a, b, c.wa, c.wb)
		}
	}
}

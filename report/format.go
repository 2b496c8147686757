package report

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// unitInfo says how a unit is titled and its values formatted.
type unitInfo struct {
	title  string
	format func(float64) string
	bytes  bool // values are bytes
}

// infoOf returns the title and value format of a (tidied) unit.
func infoOf(unit string) unitInfo {
	switch unit {
	case "sec/op":
		return unitInfo{"time per op", formatSeconds, false}
	case "B/op":
		return unitInfo{"allocated per op", formatBytes, true}
	case "allocs/op":
		return unitInfo{"allocations per op", formatCount, false}
	case "retained-B":
		return unitInfo{"retained heap", formatBytes, true}
	case "retained-B/cert":
		return unitInfo{"retained heap per certificate", formatBytes, true}
	case "goroutines":
		return unitInfo{"goroutines left running", formatCount, false}
	case "p50-sec":
		return unitInfo{"lookup latency, median (p50)", formatSeconds, false}
	case "p99-sec":
		return unitInfo{"lookup latency, p99", formatSeconds, false}
	case "p999-sec":
		return unitInfo{"lookup latency, p99.9", formatSeconds, false}
	case "refreshes/s":
		return unitInfo{"refreshes per second", func(v float64) string { return formatCount(v) + "/s" }, false}
	}
	switch {
	case strings.HasPrefix(unit, "sec/") || strings.HasSuffix(unit, "-sec"):
		return unitInfo{unit, formatSeconds, false}
	case strings.HasPrefix(unit, "B/") || strings.HasSuffix(unit, "-B"):
		return unitInfo{unit, formatBytes, true}
	}
	return unitInfo{unit, formatCount, false}
}

// sig formats v with up to three significant digits, without trailing
// zeros.
func sig(v float64) string {
	if v == 0 {
		return "0"
	}
	digits := 3 - int(math.Floor(math.Log10(math.Abs(v)))) - 1
	digits = max(digits, 0)
	s := strconv.FormatFloat(v, 'f', digits, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// formatSeconds formats a duration in seconds: "850 ns", "1.2 ms", "52 s".
func formatSeconds(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a < 1e-6:
		return sig(v*1e9) + " ns"
	case a < 1e-3:
		return sig(v*1e6) + " µs"
	case a < 1:
		return sig(v*1e3) + " ms"
	}
	return sig(v) + " s"
}

// formatBytes formats a byte count with binary prefixes: "512 B",
// "1.5 KiB", "12 MiB".
func formatBytes(v float64) string {
	a := math.Abs(v)
	switch {
	case a < 1024:
		return sig(v) + " B"
	case a < 1<<20:
		return sig(v/1024) + " KiB"
	case a < 1<<30:
		return sig(v/(1<<20)) + " MiB"
	}
	return sig(v/(1<<30)) + " GiB"
}

// formatCount formats a count with SI suffixes: "140", "1.4k", "1.2M".
func formatCount(v float64) string {
	a := math.Abs(v)
	switch {
	case a < 1e3:
		return sig(v)
	case a < 1e6:
		return sig(v/1e3) + "k"
	case a < 1e9:
		return sig(v/1e6) + "M"
	}
	return sig(v/1e9) + "G"
}

// labelTicker relabels another ticker's labelled ticks with format.
type labelTicker struct {
	ticker plot.Ticker
	format func(float64) string
}

// Ticks returns the ticks of the wrapped ticker, relabelled.
func (t labelTicker) Ticks(min, max float64) []plot.Tick {
	ticks := t.ticker.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = t.format(ticks[i].Value)
		}
	}
	return ticks
}

// bytesTicker marks a linear axis of byte values at round numbers of the
// binary unit the axis reaches (KiB, MiB, ...), not at round numbers of
// bytes.
type bytesTicker struct{}

// Ticks returns ticks between min and max.
func (bytesTicker) Ticks(min, max float64) []plot.Tick {
	div := 1.0
	for div*1024 <= math.Max(math.Abs(min), math.Abs(max)) && div < 1<<40 {
		div *= 1024
	}
	name := map[float64]string{1: "B", 1 << 10: "KiB", 1 << 20: "MiB", 1 << 30: "GiB", 1 << 40: "TiB"}[div]
	ticks := plot.DefaultTicks{}.Ticks(min/div, max/div)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = sig(ticks[i].Value) + " " + name
			if ticks[i].Value == 0 {
				ticks[i].Label = "0"
			}
		}
		ticks[i].Value *= div
	}
	return ticks
}

// logTicker marks a logarithmic axis: a labelled tick at every power of
// ten, unlabelled ones at 2..9 times it, and labels at 2 and 5 times too
// when the axis spans less than two powers of ten.
type logTicker struct {
	format func(float64) string
	// bytes puts the powers of ten in binary units: 1, 10, 100 B, 1, 10,
	// 100 KiB, 1 MiB, ...
	bytes bool
}

// Ticks returns the ticks between min and max (both > 0).
func (t logTicker) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	if t.bytes {
		return t.byteTicks(min, max)
	}
	lo := math.Floor(math.Log10(min))
	hi := math.Ceil(math.Log10(max))
	var majors int
	for e := lo; e <= hi; e++ {
		if v := math.Pow(10, e); v >= min && v <= max {
			majors++
		}
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		p := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := p * float64(m)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || (majors < 2 && (m == 2 || m == 5)) {
				tk.Label = t.format(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// byteTicks is Ticks for byte values.
func (t logTicker) byteTicks(min, max float64) []plot.Tick {
	var majors []float64
	for p := 1.0; p <= 1<<50; p *= 1024 {
		majors = append(majors, p, 10*p, 100*p)
	}
	inRange := 0
	for _, v := range majors {
		if v >= min && v <= max {
			inRange++
		}
	}
	var ticks []plot.Tick
	for _, major := range majors {
		for m := 1; m < 10; m++ {
			v := major * float64(m)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || (inRange < 2 && (m == 2 || m == 5)) {
				tk.Label = t.format(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

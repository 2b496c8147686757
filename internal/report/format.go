package report

import (
	"math"

	"github.com/certbench/certbench/results"
	"gonum.org/v1/plot"
)

// formatOf returns results.Format for the values of a (tidied) unit.
func formatOf(unit string) func(float64) string {
	return func(v float64) string { return results.Format(v, unit) }
}

// The formats of seconds ("1.2 ms"), bytes ("1.5 KiB") and counts
// ("141,000").
func formatSeconds(v float64) string { return results.Format(v, results.UnitSec) }
func formatBytes(v float64) string   { return results.Format(v, results.UnitBytes) }
func formatCount(v float64) string   { return results.Format(v, "") }

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

// bytesTicker marks a linear byte axis at round numbers of the binary
// unit it reaches (KiB, MiB).
type bytesTicker struct{}

// Ticks returns ticks between min and max.
func (bytesTicker) Ticks(min, max float64) []plot.Tick {
	div := 1.0
	for div*1024 <= math.Max(math.Abs(min), math.Abs(max)) && div < 1<<40 {
		div *= 1024
	}
	ticks := plot.DefaultTicks{}.Ticks(min/div, max/div)
	for i := range ticks {
		ticks[i].Value *= div
		if ticks[i].Label != "" {
			ticks[i].Label = formatBytes(ticks[i].Value)
		}
	}
	return ticks
}

// logTicker marks a log axis at every power of ten (1, 10, 100 of each
// binary unit if bytes), with unlabelled ticks at 2..9 times it.
type logTicker struct {
	format func(float64) string
	bytes  bool
}

// Ticks returns the ticks between min and max (both > 0).
func (t logTicker) Ticks(min, max float64) []plot.Tick {
	if !(min > 0) || !(max > min) {
		return nil
	}
	var majors []float64
	if t.bytes {
		for p := 1.0; p <= 1<<50; p *= 1024 {
			majors = append(majors, p, 10*p, 100*p)
		}
	} else {
		for e := math.Floor(math.Log10(min)); e <= math.Ceil(math.Log10(max)); e++ {
			majors = append(majors, math.Pow(10, e))
		}
	}
	return t.ticksAt(majors, min, max)
}

// ticksAt marks each major and its 2..9 multiples in [min, max],
// labelling the majors, and 2 and 5 too if fewer than two majors show.
func (t logTicker) ticksAt(majors []float64, min, max float64) []plot.Tick {
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

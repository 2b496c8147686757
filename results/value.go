package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"
)

// valueDigits is the significant digits formatValue keeps: enough that
// per-op counts one allocation apart print differently.
const valueDigits = 9

// formatValue writes a value in plain decimals, never an exponent
// (benchfmt's %v writes 4.14266755e+07, which regexp-based readers
// reject): integers as integers, others with valueDigits significant
// digits, from 10^valueDigits up rounded to an integer.
func formatValue(v float64) string {
	switch {
	case v == 0:
		return "0" // also for -0
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case v == math.Trunc(v) || math.Abs(v) >= math.Pow10(valueDigits):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', valueDigits-1, 64), 64)
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// formatResult returns res as one result line in its units as written,
// failing on a non-finite value and a name or unit with spaces.
func formatResult(res *benchfmt.Result) ([]byte, error) {
	name := string(res.Name)
	if strings.IndexFunc(name, unicode.IsSpace) >= 0 {
		return nil, fmt.Errorf("results: benchmark name %q has spaces", name)
	}
	if res.Iters < 0 {
		return nil, fmt.Errorf("results: %s: negative iteration count %d", name, res.Iters)
	}
	b := make([]byte, 0, 64+len(name)+24*len(res.Values))
	b = append(b, "Benchmark"...)
	b = append(b, name...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(res.Iters), 10)
	for _, v := range res.Values {
		val, unit := writtenValue(v)
		if math.IsNaN(val) || math.IsInf(val, 0) {
			return nil, fmt.Errorf("results: %s: %s is %v, not a measurement", name, unit, val)
		}
		if unit == "" || strings.IndexFunc(unit, unicode.IsSpace) >= 0 {
			return nil, fmt.Errorf("results: %s: unit %q: empty or has spaces", name, unit)
		}
		b = append(b, ' ')
		b = append(b, formatValue(val)...)
		b = append(b, ' ')
		b = append(b, unit...)
	}
	return append(b, '\n'), nil
}

// writtenValue is the value and unit as written.
func writtenValue(v benchfmt.Value) (float64, string) {
	if v.OrigUnit != "" {
		return v.OrigValue, v.OrigUnit
	}
	return v.Value, v.Unit
}

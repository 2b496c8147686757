package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"
)

// valueDigits is the number of significant digits formatValue keeps in a
// value that is not an integer: enough that two per-op counts whose
// totals differ by one allocation over a sample print differently, and
// that ns/op keeps far more precision than timing noise.
const valueDigits = 9

// formatValue formats a measurement the way the testing package's result
// lines can be read by any tool: plain decimal notation, never an
// exponent. An integer value prints as an integer (41426675, 0); any
// other value keeps valueDigits significant digits, with trailing zeros
// dropped (49.44, 0.2, 0.00125), except that values of 10^valueDigits or
// more are rounded to an integer. Zero prints as "0" only for an exact
// zero: 0.00001 allocs/op prints as 0.00001, not 0.
//
// benchfmt.Writer formats values with %v, which writes 41426675.5 as
// 4.14266755e+07; regular-expression based readers of benchmark output
// (github-action-benchmark, for one) do not accept that.
func formatValue(v float64) string {
	switch {
	case v == 0:
		return "0" // also for -0
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'g', -1, 64)
	case v == math.Trunc(v) || math.Abs(v) >= math.Pow10(valueDigits):
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	// Round to valueDigits significant digits, then print the shortest
	// decimal that reads back as the rounded value.
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'e', valueDigits-1, 64), 64)
	if err != nil { // cannot happen: FormatFloat's output parses
		r = v
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// formatResult returns res as one Go benchmark result line (with its
// newline, without configuration lines), each value formatted by
// formatValue. Values read from a file keep their original unit (ns/op,
// not the sec/op benchfmt's reader turns it into), as benchfmt.Writer
// does. It fails on a value that is not a finite number and on names or
// units the format cannot hold (with spaces; an empty name reads back as
// one).
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

// writtenValue is the value and unit as they are written: the original
// ones of a value benchfmt's reader tidied.
func writtenValue(v benchfmt.Value) (float64, string) {
	if v.OrigUnit != "" {
		return v.OrigValue, v.OrigUnit
	}
	return v.Value, v.Unit
}

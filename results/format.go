package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
)

// certbench's one number format for people: every renderer shows values
// through Format, so one value reads the same everywhere.

// A measure is what a unit's values count, and so how they are scaled.
type measure int

const (
	countMeasure    measure = iota // plain numbers: "1,184", "0.2"
	timeMeasure                    // seconds, SI prefixes: "57.7 ms"
	bytesMeasure                   // bytes, binary prefixes: "84.3 KiB"
	fractionMeasure                // shares of a whole, in percent: "6.19%"
)

// measureOf returns how a tidied unit scales, and its symbol.
func measureOf(unit string) (measure, string) {
	per := ""
	if strings.HasSuffix(unit, "/s") {
		per = "/s"
	}
	switch {
	case unit == "sec" || strings.HasPrefix(unit, "sec/") || strings.HasSuffix(unit, "-sec") || strings.Contains(unit, "-sec/"):
		return timeMeasure, "s"
	case benchunit.ClassOf(unit) == benchunit.Binary:
		return bytesMeasure, "B" + per
	case strings.HasSuffix(unit, "-fraction"):
		return fractionMeasure, "%"
	}
	return countMeasure, per
}

// IsBytes reports whether Format shows unit as byte sizes.
func IsBytes(unit string) bool {
	_, unit = benchunit.Tidy(1, unit)
	m, _ := measureOf(unit)
	return m == bytesMeasure
}

// Format returns v, a value of unit (either spelling), for people, each
// value scaled on its own: times with SI prefixes ("57.7 ms"), sizes with
// binary ones ("84.3 KiB"), three significant digits; counts with four,
// in full below 10,000 ("1,184", "0.2"), then k, M, G ("25.46k");
// fractions in percent ("6.19%"). NaN is "-", infinities "+Inf", "-Inf".
func Format(v float64, unit string) string { return formatDigits(v, unit, 0) }

// FormatPair is Format of two values with up to three more digits, as
// many as make different values read differently.
func FormatPair(a, b float64, unit string) (string, string) {
	for extra := 0; ; extra++ {
		sa, sb := formatDigits(a, unit, extra), formatDigits(b, unit, extra)
		if sa != sb || a == b || extra == 3 {
			return sa, sb
		}
	}
}

// formatDigits is Format with extra more significant digits.
func formatDigits(v float64, unit string, extra int) string {
	if s, ok := nonFinite(v, "-", "Inf"); ok {
		return s
	}
	v, unit = benchunit.Tidy(v, unit)
	m, symbol := measureOf(unit)
	var num string
	switch m {
	case timeMeasure:
		num = scaled(v, benchunit.Decimal, extra)
	case bytesMeasure:
		num = scaled(v, benchunit.Binary, extra)
	case fractionMeasure:
		num = trimZeros(strconv.FormatFloat(100*v, 'g', 3+extra, 64))
		if strings.Contains(num, "e") {
			num = trimZeros(strconv.FormatFloat(100*v, 'f', -1, 64))
		}
	default:
		num = count(v, countDigits+extra)
	}
	return num + symbol
}

// FormatSigned is Format with a sign: "+1.2 KiB", "-3"; zero has none.
func FormatSigned(v float64, unit string) string {
	s := Format(v, unit)
	if v > 0 && !math.IsInf(v, 0) {
		return "+" + s
	}
	return s
}

// FormatInt formats n with thousands separators: "100,000".
func FormatInt(n int) string {
	return thousands(strconv.Itoa(n))
}

// FormatPercent formats a change signed, two decimals ("+5.00%"); too
// small is "<+0.01%" or ">-0.01%", undefined "?", and 1,000% or more the
// factor ("×357.4").
func FormatPercent(p float64) string {
	if s, ok := nonFinite(p, "?", "inf%"); ok {
		return s
	}
	switch {
	case p == 0:
		return "0%"
	case p >= 1000:
		return "×" + count(1+p/100, countDigits)
	case math.Abs(p) < 0.01:
		if p > 0 {
			return "<+0.01%"
		}
		return ">-0.01%"
	}
	return fmt.Sprintf("%+.2f%%", p)
}

// FromZero is a change of unit up from 0, where no percentage can say it:
// "new allocations" for B/op and allocs/op, else "from 0".
func FromZero(unit string) string {
	if unit == UnitBytes || unit == UnitAllocs {
		return "new allocations"
	}
	return "from 0"
}

// nonFinite returns nan or signed inf for a non-finite v.
func nonFinite(v float64, nan, inf string) (string, bool) {
	switch {
	case math.IsNaN(v):
		return nan, true
	case math.IsInf(v, 1):
		return "+" + inf, true
	case math.IsInf(v, -1):
		return "-" + inf, true
	}
	return "", false
}

// scaled formats v in CommonScale's prefix, three digits plus extra,
// then a space: "57.7 m", "512 ".
func scaled(v float64, cls benchunit.Class, extra int) string {
	if v == 0 {
		return "0 "
	}
	s := benchunit.CommonScale([]float64{v}, cls)
	// CommonScale keeps four significant digits (123.4, 12.34, 1.234):
	// one fewer reads better outside a table.
	if s.Prec > 0 {
		s.Prec--
	}
	return trimZeros(strconv.FormatFloat(v/s.Factor, 'f', max(s.Prec+extra, 0), 64)) + " " + s.Prefix
}

// countDigits is one more than a time's: exact counts are gated to the
// allocation, and a change of a fraction of one should show.
const countDigits = 4

// countPrefixes scale counts from 10,000 up, as benchstat does.
var countPrefixes = []string{"", "k", "M", "G", "T", "P", "E"}

// count formats a count with countDigits digits: "8,000", "748.5",
// "25.46k", "1.217M".
func count(v float64, countDigits int) string {
	if v == 0 {
		return "0"
	}
	// Each scale rounds first, so that a value that rounds up to 10,000
	// (or to 1,000 of a prefix) takes the next prefix.
	prefix := 0
	for {
		r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', countDigits, 64), 64)
		limit := 1000.0
		if prefix == 0 {
			limit = 10000
		}
		if math.Abs(r) < limit || prefix == len(countPrefixes)-1 {
			v = r
			break
		}
		v /= 1000
		prefix++
	}
	digits := max(countDigits-1-int(math.Floor(math.Log10(math.Abs(v)))), 0)
	whole, frac, _ := strings.Cut(trimZeros(strconv.FormatFloat(v, 'f', digits, 64)), ".")
	if frac != "" {
		frac = "." + frac
	}
	return thousands(whole) + frac + countPrefixes[prefix]
}

// trimZeros drops a fraction's trailing zeros: "1.50" -> "1.5", "2.00" -> "2".
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// thousands separates digits: "-1234567" -> "-1,234,567".
func thousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

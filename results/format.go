package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchunit"
)

// This file is certbench's one number format for people: every renderer
// (compare's notes, gate, profile, growth, report and its charts) shows a
// value of a unit through Format, so that one value reads the same
// everywhere. Machine formats (result files, CSV, JSON) do not use it.

// A measure is what a unit's values count, and so how they are scaled.
type measure int

const (
	countMeasure measure = iota // plain numbers: "1,184", "0.2"
	timeMeasure                 // seconds, SI prefixes: "57.7 ms"
	bytesMeasure                // bytes, binary prefixes: "84.3 KiB"
)

// measureOf returns how values of a (tidied) unit are scaled, and the
// symbol written after the scaled number ("s", "B", "B/s", "/s" or "").
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
	}
	return countMeasure, per
}

// IsBytes reports whether Format shows values of unit as byte sizes
// (B/op, retained-B, pprof's bytes, ...), with binary prefixes.
func IsBytes(unit string) bool {
	_, unit = benchunit.Tidy(1, unit)
	m, _ := measureOf(unit)
	return m == bytesMeasure
}

// Format returns v, a value of unit, for people: times in seconds with SI
// prefixes ("57.7 ms", "850 ns", "1.2 s"), byte sizes with binary
// prefixes ("84.3 KiB", "512 B"), both with three significant digits in
// the scale benchunit.CommonScale picks, trailing zeros dropped; counts in full with thousands
// separators ("1,184"), fractional ones with one decimal from 100 up
// ("1,194.5") and three significant digits below ("0.2", "12.5"); rates with
// "/s" ("0.9/s"). unit may be spelled as a file writes it ("ns/op": v is
// then in nanoseconds) or as benchfmt tidies it ("sec/op"); pprof's
// "bytes" and "count" are understood too. NaN formats as "-", infinities
// as "+Inf" and "-Inf".
func Format(v float64, unit string) string {
	if s, ok := nonFinite(v, "-", "Inf"); ok {
		return s
	}
	v, unit = benchunit.Tidy(v, unit)
	m, symbol := measureOf(unit)
	var num string
	switch m {
	case timeMeasure:
		num = scaled(v, benchunit.Decimal)
	case bytesMeasure:
		num = scaled(v, benchunit.Binary)
	default:
		num = count(v)
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

// FormatPercent formats a change in percent with its sign and two
// decimals ("+5.00%", "-93.51%"); changes too small to show are "<+0.01%"
// or ">-0.01%", an undefined one "?".
func FormatPercent(p float64) string {
	if s, ok := nonFinite(p, "?", "inf%"); ok {
		return s
	}
	switch {
	case p == 0:
		return "0%"
	case math.Abs(p) < 0.01:
		if p > 0 {
			return "<+0.01%"
		}
		return ">-0.01%"
	}
	return fmt.Sprintf("%+.2f%%", p)
}

// nonFinite returns the text of v if it is not a finite number: nan for
// NaN, inf signed for an infinity.
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

// scaled formats v with the prefix benchunit.CommonScale picks for it and
// three significant digits, trailing zeros dropped, then a space:
// "57.7 m", "1 m", "1.5 Ki", "512 ".
func scaled(v float64, cls benchunit.Class) string {
	if v == 0 {
		return "0 "
	}
	s := benchunit.CommonScale([]float64{v}, cls)
	// CommonScale keeps four significant digits (123.4, 12.34, 1.234):
	// one fewer reads better outside a table.
	if s.Prec > 0 {
		s.Prec--
	}
	return trimZeros(strconv.FormatFloat(v/s.Factor, 'f', s.Prec, 64)) + " " + s.Prefix
}

// count formats a count: whole numbers in full with thousands separators;
// fractions (medians of two samples, per-op ratios) with one decimal from
// 100 up, so that a change of a fraction of an allocation per op still
// shows, and with three significant digits below.
func count(v float64) string {
	a := math.Abs(v)
	switch {
	case v == math.Trunc(v):
		return thousands(strconv.FormatFloat(v, 'f', 0, 64))
	case a >= 99.95:
		s := trimZeros(strconv.FormatFloat(v, 'f', 1, 64))
		whole, frac, _ := strings.Cut(s, ".")
		if frac != "" {
			frac = "." + frac
		}
		return thousands(whole) + frac
	}
	digits := max(3-int(math.Floor(math.Log10(a)))-1, 0)
	return trimZeros(strconv.FormatFloat(v, 'f', digits, 64))
}

// trimZeros drops the trailing zeros of a decimal fraction, and the point
// if nothing is left after it: "1.50" -> "1.5", "2.00" -> "2".
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// thousands puts separators into a string of digits with an optional
// sign: "-1234567" -> "-1,234,567".
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

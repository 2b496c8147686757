package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// A valueError is a measurement that no statistic can use: not a finite
// number, or negative (a time, a count or a size below zero).
type valueError struct {
	File  string  // input name
	Line  int     // line number in File, from 1
	Unit  string  // the unit as written in the file, e.g. "ns/op"
	Value float64 // the value as written in the file
}

// Error returns "FILE:LINE: UNIT value V: why".
func (e *valueError) Error() string {
	why := "negative, a measurement cannot be below zero"
	if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
		why = "not a finite number"
	}
	return fmt.Sprintf("%s:%d: %s value %s: %s", e.File, e.Line, e.Unit,
		strconv.FormatFloat(e.Value, 'g', -1, 64), why)
}

// An iterationsError is a benchmark line whose iteration count is below
// one.
type iterationsError struct {
	File  string // input name
	Line  int    // line number in File, from 1
	Iters int    // the iteration count as written
}

// Error returns "FILE:LINE: iteration count N: want at least 1".
func (e *iterationsError) Error() string {
	return fmt.Sprintf("%s:%d: iteration count %d: want at least 1", e.File, e.Line, e.Iters)
}

// CheckResult reports the first measurement of r that statistics cannot
// use, as a *valueError (a NaN or infinite value, or a negative one), or
// an iteration count below one as an *iterationsError. Load and Read call
// it on every result they read, before any statistics; code that builds
// results itself can call it too. Statistics on NaN do not terminate (the
// Mann-Whitney U test of x/perf's benchmath loops on it).
func CheckResult(r *benchfmt.Result) error {
	file, line := r.Pos()
	if r.Iters < 1 {
		return &iterationsError{File: file, Line: line, Iters: r.Iters}
	}
	for _, v := range r.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) || v.Value < 0 {
			unit, value := v.Unit, v.Value
			if v.OrigUnit != "" {
				unit, value = v.OrigUnit, v.OrigValue
			}
			return &valueError{File: file, Line: line, Unit: unit, Value: value}
		}
	}
	return nil
}

// An unknownUnitWarning says that an input uses a unit certbench does not
// know (a typo, a custom metric, or a truncated line). It is a warning:
// the values are read and compared like any other.
type unknownUnitWarning struct {
	File  string // input name
	Line  int    // first line using the unit
	Unit  string // the unit as written
	Lines int    // number of lines using it
}

// Error returns "FILE:LINE: unknown unit "U" ...".
func (w *unknownUnitWarning) Error() string {
	more := ""
	if w.Lines > 1 {
		more = fmt.Sprintf(" (and %d more lines)", w.Lines-1)
	}
	return fmt.Sprintf("%s:%d: unit %q is not one certbench knows%s; known units: %s",
		w.File, w.Line, w.Unit, more, strings.Join(KnownUnits(), ", "))
}

// maxUnitWarnings bounds the unknown-unit warnings of one input; the
// rest are counted in one last warning.
const maxUnitWarnings = 10

// maxOtherUnits bounds the distinct units counted beyond maxUnitWarnings.
const maxOtherUnits = 1000

// unitWarnings collects the unknown-unit warnings of one input, one per
// unit, at most maxUnitWarnings of them.
type unitWarnings struct {
	file   string
	byUnit map[string]*unknownUnitWarning
	list   []*unknownUnitWarning
	others int // further distinct units not listed
	seen   map[string]bool
}

func (u *unitWarnings) add(line int, unit string) {
	if w, ok := u.byUnit[unit]; ok {
		w.Lines++
		return
	}
	if len(u.list) >= maxUnitWarnings {
		if u.seen == nil {
			u.seen = make(map[string]bool)
		}
		if !u.seen[unit] && len(u.seen) < maxOtherUnits {
			u.seen[unit] = true
			u.others++
		}
		return
	}
	if u.byUnit == nil {
		u.byUnit = make(map[string]*unknownUnitWarning)
	}
	w := &unknownUnitWarning{File: u.file, Line: line, Unit: unit, Lines: 1}
	u.byUnit[unit] = w
	u.list = append(u.list, w)
}

func (u *unitWarnings) errors() []error {
	var errs []error
	for _, w := range u.list {
		errs = append(errs, w)
	}
	switch {
	case u.others >= maxOtherUnits:
		errs = append(errs, fmt.Errorf("%s: over %d more units certbench does not know", u.file, maxOtherUnits))
	case u.others > 0:
		errs = append(errs, fmt.Errorf("%s: %d more units certbench does not know", u.file, u.others))
	}
	return errs
}

// origUnit returns the unit of v as the file wrote it.
func origUnit(v benchfmt.Value) string {
	if v.OrigUnit != "" {
		return v.OrigUnit
	}
	return v.Unit
}

// A MissingEndWarning says that a file written by a certbench that
// closes its files (it has a "# certbench-version" comment line) lacks
// the closing line after its last result: the run was cut short, or the
// file was cut at a line boundary. Its results are read.
type MissingEndWarning struct {
	File    string // input name
	Line    int    // the file's last line
	Results int    // results read
}

// Error returns "FILE: no closing line ...".
func (w *MissingEndWarning) Error() string {
	return fmt.Sprintf("%s: no closing %q line after its last result (line %d): the file looks truncated; %d results read",
		w.File, CommentPrefix+EndKey, w.Line, w.Results)
}

// An EndCountWarning says that a closing line counts other results than
// the file holds before it (since the start or the previous closing
// line): results were lost or added in between.
type EndCountWarning struct {
	File    string // input name
	Line    int    // the closing line
	Want    string // its count, as written
	Results int    // results read before it
}

// Error returns "FILE:LINE: closing line says ...".
func (w *EndCountWarning) Error() string {
	return fmt.Sprintf("%s:%d: closing line says %q, but %d results precede it: the file was changed after it was written",
		w.File, w.Line, w.Want, w.Results)
}

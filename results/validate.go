package results

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// A valueError is a measurement no statistic can use: not finite, or
// negative.
type valueError struct {
	File  string
	Line  int
	Unit  string  // as written
	Value float64 // as written
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

// An iterationsError is an iteration count below one.
type iterationsError struct {
	File  string
	Line  int
	Iters int
}

// Error returns "FILE:LINE: iteration count N: want at least 1".
func (e *iterationsError) Error() string {
	return fmt.Sprintf("%s:%d: iteration count %d: want at least 1", e.File, e.Line, e.Iters)
}

// CheckResult reports r's first unusable value or iteration count, before
// any statistics: benchmath's U test loops on NaN.
func CheckResult(r *benchfmt.Result) error {
	file, line := r.Pos()
	if r.Iters < 1 {
		return &iterationsError{File: file, Line: line, Iters: r.Iters}
	}
	for _, v := range r.Values {
		if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) || v.Value < 0 {
			value, unit := writtenValue(v)
			return &valueError{File: file, Line: line, Unit: unit, Value: value}
		}
	}
	return nil
}

// An unknownUnitWarning says an input uses a unit certbench does not know
// (a typo, a custom metric, a truncated line); its values are read.
type unknownUnitWarning struct {
	File  string
	Line  int // the first using it
	Unit  string
	Lines int // using it
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

// maxUnitWarnings bounds one input's unknown-unit warnings, and
// maxOtherUnits the further units counted in one last warning.
const maxUnitWarnings, maxOtherUnits = 10, 1000

// unitWarnings collects one input's unknown-unit warnings, one per unit.
type unitWarnings struct {
	file   string
	seen   map[string]*unknownUnitWarning // nil for the units past maxUnitWarnings
	list   []*unknownUnitWarning
	others int // further distinct units not listed
}

func (u *unitWarnings) add(line int, unit string) {
	if w, ok := u.seen[unit]; ok {
		if w != nil {
			w.Lines++
		}
		return
	}
	if u.seen == nil {
		u.seen = make(map[string]*unknownUnitWarning)
	}
	if len(u.list) >= maxUnitWarnings {
		if u.others < maxOtherUnits {
			u.seen[unit] = nil
			u.others++
		}
		return
	}
	w := &unknownUnitWarning{File: u.file, Line: line, Unit: unit, Lines: 1}
	u.seen[unit] = w
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

// A MissingEndWarning says a file that has a "# certbench-version" line
// lacks the closing line after its last result: it was cut short. Its
// results are read.
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

// Cut returns the first warning of s that says a file lost results (a
// MissingEndWarning or an EndCountWarning), or nil: what a gate or a
// history must not take as the whole file.
func (s *Set) Cut() error {
	for _, w := range s.Warnings {
		var me *MissingEndWarning
		var ce *EndCountWarning
		if errors.As(w, &me) || errors.As(w, &ce) {
			return w
		}
	}
	return nil
}

// An EndCountWarning says a closing line counts other results than
// precede it: results were lost or added.
type EndCountWarning struct {
	File    string
	Line    int
	Want    string // its count, as written
	Results int
}

// Error returns "FILE:LINE: closing line says ...".
func (w *EndCountWarning) Error() string {
	return fmt.Sprintf("%s:%d: closing line says %q, but %d results precede it: the file was changed after it was written",
		w.File, w.Line, w.Want, w.Results)
}

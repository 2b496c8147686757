package profile

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	pprofile "github.com/google/pprof/profile"
)

// A Site is a place in code whose value (bytes or objects allocated, or
// another cost) changed between two profiles: a function, or a line of
// one. It is the one shape of a site in certbench: comparisons of heap
// profiles and of callgrind files, and the gate's findings, name sites
// with it.
type Site struct {
	// Function is the function's name as ShortName gives it.
	Function string `json:"function"`
	// File and Line, when known, are the line of Function the site is
	// (Line 0 when unknown): everything charged to that line, including
	// what the library code it calls cost.
	File string `json:"file,omitempty"`
	Line int64  `json:"line,omitempty"`
	// Base and Head are the site's value on each side, per op when the
	// comparison is.
	Base float64 `json:"base"`
	Head float64 `json:"head"`
	// Callees, for a line, are the functions it called directly whose
	// share changed, largest growth first.
	Callees []Site `json:"callees,omitempty"`
}

// Growth returns Head - Base.
func (s Site) Growth() float64 { return s.Head - s.Base }

// Where returns "file.go:123" (the base name of File), or "" when the
// site has no line.
func (s Site) Where() string {
	if s.File == "" || s.Line <= 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
}

// Label returns the function and, when known, its line:
// "stores/optimized.(*Store).Update (update.go:107)".
func (s Site) Label() string {
	if w := s.Where(); w != "" {
		return s.Function + " (" + w + ")"
	}
	return s.Function
}

// sortSites sorts sites by growth, largest first, then by function and
// line.
func sortSites(sites []Site) {
	slices.SortFunc(sites, func(x, y Site) int {
		if r := cmp.Compare(y.Growth(), x.Growth()); r != 0 {
			return r
		}
		if r := strings.Compare(x.Function, y.Function); r != 0 {
			return r
		}
		return cmp.Compare(x.Line, y.Line)
	})
}

// moved returns up to n (all when n <= 0) of sites (sorted by sortSites)
// that grew (sign 1) or shrank (sign -1), the largest change first.
func moved(sites []Site, n int, sign float64) []Site {
	var out []Site
	for _, s := range sites {
		if s.Growth()*sign > 0 {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(x, y Site) int { return cmp.Compare(y.Growth()*sign, x.Growth()*sign) })
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// Sides says what a comparison of two profiles compared: the sample type
// and its unit, what each profile was taken of, whether values are per op,
// and each side's total. Comparison and Boundary embed it.
type Sides struct {
	// SampleType and Unit name the values compared.
	SampleType string `json:"sample_type"`
	Unit       string `json:"unit"`
	// Base and Head are what each profile was taken of.
	Base Info `json:"base"`
	Head Info `json:"head"`
	// PerOp reports that each side's values are divided by its own ops;
	// it is false, and values are totals, unless both profiles record
	// their ops.
	PerOp bool `json:"per_op"`
	// BaseTotal and HeadTotal are each side's sum over every sample.
	BaseTotal float64 `json:"base_total"`
	HeadTotal float64 `json:"head_total"`
}

// newSides checks that base and head can be compared in sampleType and
// returns the Sides (without totals), the sample type's index in each and
// each side's divisor (its ops when both record theirs, else 1).
func newSides(base, head *pprofile.Profile, sampleType string) (s Sides, bi, hi int, bd, hd float64, err error) {
	if err = CheckComparable(base, head); err != nil {
		return
	}
	if bi, err = sampleIndex(base, sampleType); err != nil {
		return
	}
	if hi, err = sampleIndex(head, sampleType); err != nil {
		return
	}
	s = Sides{SampleType: sampleType, Unit: head.SampleType[hi].Unit, Base: InfoOf(base), Head: InfoOf(head)}
	bd, hd = 1, 1
	if s.Base.Ops > 0 && s.Head.Ops > 0 {
		s.PerOp = true
		bd, hd = float64(s.Base.Ops), float64(s.Head.Ops)
	}
	return s, bi, hi, bd, hd, nil
}

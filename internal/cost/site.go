package cost

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// A Site is a function, or a line of one, whose value changed between two
// profiles: certbench's one shape of a site (heap profiles, callgrind
// files and the gate's findings name sites with it).
type Site struct {
	Function string `json:"function"` // as ShortName gives it
	// File and Line, when known (Line > 0), are the line the site is,
	// charged with what the library code it calls cost.
	File string  `json:"file,omitempty"`
	Line int64   `json:"line,omitempty"`
	Base float64 `json:"base"` // per op when the comparison is
	Head float64 `json:"head"`
	// Callees, for a line, are the functions it called directly whose
	// share changed, sorted as sortSites.
	Callees []Site `json:"callees,omitempty"`
}

// Growth returns Head - Base.
func (s Site) Growth() float64 { return s.Head - s.Base }

// Where returns "file.go:123" (File's base name), or "" without a line.
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

// sortSites sorts sites by growth, largest first, then function and line.
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

// Sides says what a comparison of two profiles compared; Comparison and
// Boundary embed it.
type Sides struct {
	SampleType string `json:"sample_type"`
	Unit       string `json:"unit"`
	Base       Info   `json:"base"`
	Head       Info   `json:"head"`
	// PerOp reports that each side's values are divided by its own ops
	// (only when both profiles record them).
	PerOp     bool    `json:"per_op"`
	BaseTotal float64 `json:"base_total"` // sum over every sample
	HeadTotal float64 `json:"head_total"`
}

// newSides checks that base and head can be compared in sampleType and
// returns the Sides (without totals), the sample type's index in each and
// each side's divisor.
func newSides(base, head *profile.Profile, sampleType string) (s Sides, bi, hi int, bd, hd float64, err error) {
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

// MarshalJSON writes a site with its growth; a value that is not finite
// is null.
func (s Site) MarshalJSON() ([]byte, error) {
	type plain Site
	finite := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		plain
		Base   *float64 `json:"base"`
		Head   *float64 `json:"head"`
		Growth *float64 `json:"growth"`
	}{plain(s), finite(s.Base), finite(s.Head), finite(s.Growth())})
}

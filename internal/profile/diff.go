package profile

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	pprofile "github.com/google/pprof/profile"
)

// Delta is one function's values in two profiles (per op when the
// Comparison is) and how they changed.
type Delta struct {
	// Function is the function's name as ShortName gives it.
	Function string `json:"function"`
	// Flat and Cum are head minus base: positive when the function
	// costs more in head.
	Flat float64 `json:"flat"`
	Cum  float64 `json:"cum"`
	// BaseFlat, BaseCum, HeadFlat and HeadCum are the values on each side.
	BaseFlat float64 `json:"base_flat"`
	BaseCum  float64 `json:"base_cum"`
	HeadFlat float64 `json:"head_flat"`
	HeadCum  float64 `json:"head_cum"`
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

// Comparison is what changed per function between two profiles, in one
// sample type.
type Comparison struct {
	Sides
	// Deltas holds every function whose flat or cumulative value changed,
	// sorted by Flat, largest growth first and largest shrink last (ties:
	// by Cum, then by name).
	Deltas []Delta `json:"deltas"`
}

// Grew returns up to n (all when n <= 0) functions whose value grew,
// largest growth first, ranked by flat or cumulative change.
func (c *Comparison) Grew(n int, by Order) []Delta {
	return c.pick(n, by, 1)
}

// Shrank returns up to n (all when n <= 0) functions whose value shrank,
// largest shrink first, ranked by flat or cumulative change.
func (c *Comparison) Shrank(n int, by Order) []Delta {
	return c.pick(n, by, -1)
}

func (c *Comparison) pick(n int, by Order, sign float64) []Delta {
	key := func(d Delta) float64 {
		if by == ByCum {
			return d.Cum * sign
		}
		return d.Flat * sign
	}
	var out []Delta
	for _, d := range c.Deltas {
		if key(d) > 0 {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(x, y Delta) int { return cmp.Compare(key(y), key(x)) })
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// SampleTypeError reports two profiles whose sample types differ, so they
// cannot be compared.
type SampleTypeError struct {
	// Base and Head list each profile's sample types as "type/unit".
	Base, Head []string
}

// Error lists both sides' sample types.
func (e *SampleTypeError) Error() string {
	return fmt.Sprintf("profiles have different sample types: base has %s, head has %s",
		strings.Join(e.Base, ", "), strings.Join(e.Head, ", "))
}

func sampleTypes(p *pprofile.Profile) []string {
	var ts []string
	for _, st := range p.SampleType {
		if st == nil {
			ts = append(ts, "?")
			continue
		}
		ts = append(ts, st.Type+"/"+st.Unit)
	}
	return ts
}

// CheckComparable returns a *SampleTypeError unless base and head have the
// same sample types in the same order.
func CheckComparable(base, head *pprofile.Profile) error {
	if base == nil || head == nil {
		return fmt.Errorf("profile: nil profile")
	}
	b, h := sampleTypes(base), sampleTypes(head)
	if !slices.Equal(b, h) {
		return &SampleTypeError{Base: b, Head: h}
	}
	return nil
}

// Compare returns, per function, how the named sample type changed from
// base to head, each side per op when both record their ops.
func Compare(base, head *pprofile.Profile, sampleType string) (*Comparison, error) {
	if err := CheckComparable(base, head); err != nil {
		return nil, err
	}
	ab, err := aggregate(base, sampleType)
	if err != nil {
		return nil, err
	}
	ah, err := aggregate(head, sampleType)
	if err != nil {
		return nil, err
	}
	c := &Comparison{Sides: Sides{SampleType: sampleType, Unit: ah.unit, Base: InfoOf(base), Head: InfoOf(head)}}
	bd, hd := 1.0, 1.0
	if c.Base.Ops > 0 && c.Head.Ops > 0 {
		c.PerOp = true
		bd, hd = float64(c.Base.Ops), float64(c.Head.Ops)
	}
	c.BaseTotal, c.HeadTotal = float64(ab.total)/bd, float64(ah.total)/hd
	names := map[string]bool{}
	for name := range ab.cum {
		names[name] = true
	}
	for name := range ah.cum {
		names[name] = true
	}
	for name := range names {
		d := Delta{
			Function: name,
			BaseFlat: float64(ab.flat[name]) / bd, BaseCum: float64(ab.cum[name]) / bd,
			HeadFlat: float64(ah.flat[name]) / hd, HeadCum: float64(ah.cum[name]) / hd,
		}
		d.Flat, d.Cum = d.HeadFlat-d.BaseFlat, d.HeadCum-d.BaseCum
		if d.Flat != 0 || d.Cum != 0 {
			c.Deltas = append(c.Deltas, d)
		}
	}
	slices.SortFunc(c.Deltas, func(x, y Delta) int {
		if r := cmp.Compare(y.Flat, x.Flat); r != 0 {
			return r
		}
		if r := cmp.Compare(y.Cum, x.Cum); r != 0 {
			return r
		}
		return strings.Compare(x.Function, y.Function)
	})
	return c, nil
}

// Diff returns a profile of head minus base, as pprof -diff_base builds
// it: base's samples are negated, scaled to head's op count when both
// record theirs, and labelled pprof::base=true, so "go tool pprof" reads
// the result as a diff (percentages relative to base). The result records
// head's ops; base and head are not modified.
func Diff(base, head *pprofile.Profile) (*pprofile.Profile, error) {
	if err := CheckComparable(base, head); err != nil {
		return nil, err
	}
	bi, hi := InfoOf(base), InfoOf(head)
	ratio := -1.0
	if bi.Ops > 0 && hi.Ops > 0 {
		ratio = -float64(hi.Ops) / float64(bi.Ops)
	}
	b, h := base.Copy(), head.Copy()
	for _, p := range []*pprofile.Profile{b, h} {
		p.RemoveNumLabel("bytes")
		if p.PeriodType == nil {
			p.PeriodType = &pprofile.ValueType{}
		}
	}
	if !equalPeriodType(b.PeriodType, h.PeriodType) {
		b.PeriodType = &pprofile.ValueType{Type: h.PeriodType.Type, Unit: h.PeriodType.Unit}
	}
	b.Scale(ratio)
	b.SetLabel("pprof::base", []string{"true"})
	b.Comments, h.Comments = nil, nil
	d, err := pprofile.Merge([]*pprofile.Profile{h, b})
	if err != nil {
		return nil, fmt.Errorf("profile: diff: %w", err)
	}
	SetInfo(d, hi)
	d.Comments = append(d.Comments,
		"certbench diff: head minus base; base: "+strings.TrimPrefix(bi.comment(), infoComment+" "),
		"head: "+strings.TrimPrefix(hi.comment(), infoComment+" "))
	d.DefaultSampleType = head.DefaultSampleType
	return d, nil
}

func equalPeriodType(a, b *pprofile.ValueType) bool {
	return a.Type == b.Type && a.Unit == b.Unit
}

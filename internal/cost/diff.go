package cost

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// Comparison is what changed per function between two profiles, in one
// sample type.
type Comparison struct {
	Sides
	// Flat and Cum hold every function whose flat or cumulative value
	// changed, sorted as sortSites.
	Flat []Site `json:"flat"`
	Cum  []Site `json:"cum"`
}

// Grew returns up to n (all when n <= 0) functions whose value grew,
// largest growth first, by flat or cumulative value.
func (c *Comparison) Grew(n int, by Order) []Site { return moved(c.sites(by), n, 1) }

// Shrank returns up to n (all when n <= 0) functions whose value shrank,
// largest shrink first, by flat or cumulative value.
func (c *Comparison) Shrank(n int, by Order) []Site { return moved(c.sites(by), n, -1) }

// Top returns c with only the n functions (all when n <= 0) that grew and
// the n that shrank most, by flat and by cumulative value.
func (c *Comparison) Top(n int) *Comparison {
	top := func(by Order) []Site {
		shrank := c.Shrank(n, by)
		slices.Reverse(shrank)
		return append(append([]Site{}, c.Grew(n, by)...), shrank...)
	}
	t := *c
	t.Flat, t.Cum = top(ByFlat), top(ByCum)
	return &t
}

func (c *Comparison) sites(by Order) []Site {
	if by == ByCum {
		return c.Cum
	}
	return c.Flat
}

// SampleTypeError reports two profiles whose sample types differ.
type SampleTypeError struct {
	Base, Head []string // each profile's sample types as "type/unit"
}

// Error lists both sides' sample types.
func (e *SampleTypeError) Error() string {
	return fmt.Sprintf("profiles have different sample types: base has %s, head has %s",
		strings.Join(e.Base, ", "), strings.Join(e.Head, ", "))
}

func sampleTypes(p *profile.Profile) []string {
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
func CheckComparable(base, head *profile.Profile) error {
	if base == nil || head == nil {
		return fmt.Errorf("profile: nil profile")
	}
	b, h := sampleTypes(base), sampleTypes(head)
	if !slices.Equal(b, h) {
		return &SampleTypeError{Base: b, Head: h}
	}
	return nil
}

// Changes returns, per function, how the named sample type changed from
// base to head, each side per op when both record their ops.
func Changes(base, head *profile.Profile, sampleType string) (*Comparison, error) {
	sides, _, _, bd, hd, err := newSides(base, head, sampleType)
	if err != nil {
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
	c := &Comparison{Sides: sides}
	c.BaseTotal, c.HeadTotal = float64(ab.total)/bd, float64(ah.total)/hd
	c.Flat, c.Cum = changed(ab.flat, ah.flat, bd, hd), changed(ab.cum, ah.cum, bd, hd)
	return c, nil
}

// changed returns the functions whose value differs between base and
// head, each side divided by its divisor, sorted by sortSites.
func changed(base, head map[string]int64, bd, hd float64) []Site {
	var out []Site
	names := maps.Clone(head) // the keys of both
	maps.Copy(names, base)
	for name := range names {
		if s := (Site{Function: name, Base: float64(base[name]) / bd, Head: float64(head[name]) / hd}); s.Base != s.Head {
			out = append(out, s)
		}
	}
	sortSites(out)
	return out
}

// Diff returns a profile of head minus base, as pprof -diff_base builds
// it (base negated, scaled to head's ops, labelled pprof::base=true); it
// records head's ops and modifies neither input.
func Diff(base, head *profile.Profile) (*profile.Profile, error) {
	if err := CheckComparable(base, head); err != nil {
		return nil, err
	}
	bi, hi := InfoOf(base), InfoOf(head)
	ratio := -1.0
	if bi.Ops > 0 && hi.Ops > 0 {
		ratio = -float64(hi.Ops) / float64(bi.Ops)
	}
	b, h := base.Copy(), head.Copy()
	for _, p := range []*profile.Profile{b, h} {
		p.RemoveNumLabel("bytes")
		if p.PeriodType == nil {
			p.PeriodType = &profile.ValueType{}
		}
	}
	if b.PeriodType.Type != h.PeriodType.Type || b.PeriodType.Unit != h.PeriodType.Unit {
		b.PeriodType = &profile.ValueType{Type: h.PeriodType.Type, Unit: h.PeriodType.Unit}
	}
	b.Scale(ratio)
	b.SetLabel("pprof::base", []string{"true"})
	b.Comments, h.Comments = nil, nil
	d, err := profile.Merge([]*profile.Profile{h, b})
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

package cost

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// Func is one function's share of one sample type of a profile.
type Func struct {
	// Function is the function's name as ShortName gives it.
	Function string `json:"function"`
	// Flat is the value of the samples whose innermost frame is the
	// function; Cum of those it is anywhere on the stack of (once per sample).
	Flat float64 `json:"flat"`
	Cum  float64 `json:"cum"`
}

// Order says how sites are ranked.
type Order string

// The orders sites are ranked in; ties are broken by the other value,
// then by name.
const (
	ByFlat Order = "flat"
	ByCum  Order = "cum"
)

// Top is the top functions of one sample type of a profile.
type Top struct {
	SampleType string  `json:"sample_type"` // "alloc_space"
	Unit       string  `json:"unit"`        // "bytes"
	Order      Order   `json:"order"`
	PerOp      bool    `json:"per_op"` // values divided by the profile's ops
	Total      float64 `json:"total"`  // over every sample: percentages' denominator
	Funcs      []Func  `json:"funcs"`  // largest first

}

// TopSites returns the n (all when n <= 0) functions with the largest
// values of the named sample type of p, ranked by order (ByFlat when
// empty), per op when perOp (an error when p records no ops).
func TopSites(p *profile.Profile, sampleType string, n int, order Order, perOp bool) (*Top, error) {
	a, err := aggregate(p, sampleType)
	if err != nil {
		return nil, err
	}
	div := 1.0
	if perOp {
		ops := InfoOf(p).Ops
		if ops <= 0 {
			return nil, fmt.Errorf("profile: no op count recorded in the profile, cannot divide per op")
		}
		div = float64(ops)
	}
	return a.table(n, order, div, perOp), nil
}

// aggregated is one sample type of a profile summed per function.
type aggregated struct {
	sampleType, unit string
	total            int64
	flat, cum        map[string]int64
}

// sampleIndex returns the index of the named sample type of p.
func sampleIndex(p *profile.Profile, sampleType string) (int, error) {
	if p == nil {
		return 0, fmt.Errorf("profile: nil profile")
	}
	var have []string
	for i, st := range p.SampleType {
		if st != nil && st.Type == sampleType {
			return i, nil
		}
		if st != nil {
			have = append(have, st.Type)
		}
	}
	return 0, fmt.Errorf("profile: no sample type %q (the profile has %s)", sampleType, strings.Join(have, ", "))
}

// aggregate sums the named sample type of p per function, flat and
// cumulative.
func aggregate(p *profile.Profile, sampleType string) (*aggregated, error) {
	idx, err := sampleIndex(p, sampleType)
	if err != nil {
		return nil, err
	}
	a := &aggregated{
		sampleType: sampleType,
		unit:       p.SampleType[idx].Unit,
		flat:       map[string]int64{},
		cum:        map[string]int64{},
	}
	names := map[*profile.Location][]string{}
	seen := map[string]bool{}
	for _, s := range p.Sample {
		if s == nil || idx >= len(s.Value) {
			continue
		}
		v := s.Value[idx]
		a.total += v
		if v == 0 {
			continue
		}
		clear(seen)
		first := true
		for _, loc := range s.Location {
			if loc == nil {
				continue
			}
			ns, ok := names[loc]
			if !ok {
				ns = locationNames(loc)
				names[loc] = ns
			}
			for _, name := range ns {
				if first {
					a.flat[name] += v
					first = false
				}
				if !seen[name] {
					seen[name] = true
					a.cum[name] += v
				}
			}
		}
	}
	return a, nil
}

// locationNames returns the short names of a location's functions,
// innermost first, or its address when unsymbolized.
func locationNames(loc *profile.Location) []string {
	var ns []string
	for _, line := range loc.Line {
		if line.Function != nil && line.Function.Name != "" {
			ns = append(ns, ShortName(line.Function.Name))
		}
	}
	if len(ns) == 0 {
		ns = append(ns, fmt.Sprintf("0x%x", loc.Address))
	}
	return ns
}

// table ranks the aggregated functions.
func (a *aggregated) table(n int, order Order, div float64, perOp bool) *Top {
	if order != ByCum {
		order = ByFlat
	}
	t := &Top{SampleType: a.sampleType, Unit: a.unit, Order: order, PerOp: perOp, Total: float64(a.total) / div}
	fs := make([]Func, 0, len(a.cum))
	for name, cum := range a.cum {
		fs = append(fs, Func{Function: name, Flat: float64(a.flat[name]), Cum: float64(cum)})
	}
	rank(fs, order)
	if n > 0 && len(fs) > n {
		fs = fs[:n]
	}
	for i := range fs {
		fs[i].Flat /= div
		fs[i].Cum /= div
	}
	t.Funcs = fs
	return t
}

// rank sorts fs largest first by order, then by the other value, then name.
func rank(fs []Func, order Order) {
	slices.SortFunc(fs, func(x, y Func) int {
		kx, ky := x.Flat, y.Flat
		ox, oy := x.Cum, y.Cum
		if order == ByCum {
			kx, ky, ox, oy = ox, oy, kx, ky
		}
		if c := cmp.Compare(ky, kx); c != 0 {
			return c
		}
		if c := cmp.Compare(oy, ox); c != 0 {
			return c
		}
		return strings.Compare(x.Function, y.Function)
	})
}

// Summary is what a profile says, ready to render.
type Summary struct {
	Info
	File string `json:"file,omitempty"` // read from or written to
	// Totals are each sample type's sum over the samples: per op (when
	// Ops is known) but for inuse_* (what the store holds afterwards).
	Totals []Sum `json:"totals"`
	// Tables are the top sites by flat and cum of each per-op sample
	// type, and of inuse_space by flat.
	Tables []*Top `json:"tables"`
}

// Sum is one sample type's sum over a profile's samples.
type Sum struct {
	SampleType string  `json:"sample_type"`
	Unit       string  `json:"unit"`
	Value      float64 `json:"value"`
	PerOp      bool    `json:"per_op"`
}

// Summarize returns the totals and the top n sites of every table of a
// Summary.
func Summarize(p *profile.Profile, n int) (*Summary, error) {
	if p == nil || len(p.SampleType) == 0 {
		return nil, fmt.Errorf("profile: no sample types")
	}
	sum := &Summary{Info: InfoOf(p)}
	for _, st := range p.SampleType {
		a, err := aggregate(p, st.Type)
		if err != nil {
			return nil, err
		}
		d, perOp := 1.0, !strings.HasPrefix(st.Type, "inuse_") && sum.Ops > 0
		if perOp {
			d = float64(sum.Ops)
		}
		sum.Totals = append(sum.Totals, Sum{SampleType: st.Type, Unit: st.Unit, Value: float64(a.total) / d, PerOp: perOp})
		orders := []Order{ByFlat, ByCum}
		switch st.Type {
		case InuseSpace:
			orders = orders[:1]
		case InuseObjects:
			orders = nil
		}
		for _, o := range orders {
			sum.Tables = append(sum.Tables, a.table(n, o, d, perOp))
		}
	}
	return sum, nil
}

// Total returns the summary's total of a sample type, or 0.
func (s *Summary) Total(sampleType string) float64 {
	for _, t := range s.Totals {
		if t.SampleType == sampleType {
			return t.Value
		}
	}
	return 0
}

package growth

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// Fit is a power law value ≈ Coefficient · N^Exponent fitted to a curve.
type Fit struct {
	Exponent    float64 // the least-squares slope of log(value) on log(N)
	Coefficient float64 // the value at N = 1
	R2          float64 // in log-log space
	Points      int
}

// ErrTooFewPoints is FitPower's error without two positive points at
// distinct sizes.
var ErrTooFewPoints = errors.New("growth: need two or more positive points at distinct sizes to fit")

// FitPower fits value ≈ c·N^k by least squares on log(value) against
// log(N), over the points where both are positive.
func FitPower(sizes, values []float64) (Fit, error) {
	var lx, ly []float64
	for i := range min(len(sizes), len(values)) {
		if sizes[i] > 0 && values[i] > 0 && !math.IsInf(values[i], 0) {
			lx = append(lx, math.Log(sizes[i]))
			ly = append(ly, math.Log(values[i]))
		}
	}
	n := float64(len(lx))
	if len(lx) < 2 {
		return Fit{}, ErrTooFewPoints
	}
	var mx, my float64
	for i := range lx {
		mx += lx[i]
		my += ly[i]
	}
	mx /= n
	my /= n
	var sxx, sxy, syy float64
	for i := range lx {
		dx, dy := lx[i]-mx, ly[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return Fit{}, ErrTooFewPoints
	}
	k := sxy / sxx
	f := Fit{Exponent: k, Coefficient: math.Exp(my - k*mx), Points: len(lx), R2: 1}
	if syy > 0 {
		f.R2 = sxy * sxy / (sxx * syy)
	}
	return f, nil
}

// Point is one pool size of a Curve.
type Point struct {
	Size int // certificates
	// Center is compare's center (the median; the mode for exact units),
	// Lo and Hi its confidence interval (infinite with too few samples).
	Center, Lo, Hi float64
	N              int // samples
}

// Curve is how one unit of one store grows with pool size in one family.
type Curve struct {
	Family, Store, Unit string
	Better              int     // -1 lower is better, 1 higher, 0 unknown
	Points              []Point // ascending size
	// Fit is fitted over every point, Last through the two largest sizes
	// (the local exponent); FitErr and LastErr are ErrTooFewPoints when no
	// fit could be made.
	Fit, Last       Fit
	FitErr, LastErr error
}

// Sizes returns the curve's sizes.
func (c *Curve) Sizes() []int {
	s := make([]int, len(c.Points))
	for i, p := range c.Points {
		s[i] = p.Size
	}
	return s
}

// Split divides results into sweep samples and the rest (with the same
// units and files), either of which may be nil when empty.
func Split(rs *results.Set) (sweep, other *results.Set) {
	for _, s := range rs.Series {
		dst := &other
		if results.IsSweep(s.Result()) {
			dst = &sweep
		}
		if *dst == nil {
			*dst = &results.Set{Units: rs.Units, Files: rs.Files}
		}
		(*dst).Series = append((*dst).Series, s)
	}
	return sweep, other
}

// Curves returns the growth curves of the sweep samples in rs: one per
// family, store and unit, families and stores in the order first seen,
// units in compare's order.
func Curves(rs *results.Set) ([]Curve, error) {
	sw, _ := Split(rs)
	if sw == nil {
		return nil, errors.New("growth: no sweep results (names with /family= and /size=)")
	}
	type fs struct{ family, store string }
	var order []fs
	first := map[string]int{} // a family's first index in order
	for _, r := range sw.Series {
		family, _ := results.NameValue(r.Name, results.FamilyKey)
		store, _ := results.NameValue(r.Name, results.StoreKey)
		if k := (fs{family, store}); !slices.Contains(order, k) {
			first[family] = cmp.Or(first[family], len(order)+1)
			order = append(order, k)
		}
	}
	// Families first seen first, then stores in order.
	slices.SortStableFunc(order, func(a, b fs) int { return first[a.family] - first[b.family] })
	var curves []Curve
	for _, k := range order {
		rep, err := compare.Build(sw, compare.Options{Row: "/size", Col: "/store",
			Filter: fmt.Sprintf("/family:%q /store:%q", k.family, k.store)})
		if err != nil {
			return nil, fmt.Errorf("growth: family %s, store %s: %w", k.family, k.store, err)
		}
		for _, t := range rep.Tables {
			c := Curve{Family: k.family, Store: k.store, Unit: t.Unit, Better: t.Better}
			for _, row := range t.Rows {
				if size, err := strconv.Atoi(row.Label); err == nil && row.Cells[0] != nil {
					cell := row.Cells[0]
					c.Points = append(c.Points, Point{Size: size, Center: cell.Summary.Center, Lo: cell.Summary.Lo, Hi: cell.Summary.Hi, N: cell.N()})
				}
			}
			slices.SortFunc(c.Points, func(a, b Point) int { return a.Size - b.Size })
			c.fit()
			curves = append(curves, c)
		}
	}
	return curves, nil
}

func (c *Curve) fit() {
	xs := make([]float64, len(c.Points))
	ys := make([]float64, len(c.Points))
	for i, p := range c.Points {
		xs[i], ys[i] = float64(p.Size), p.Center
	}
	c.Fit, c.FitErr = FitPower(xs, ys)
	n := len(xs)
	if n >= 2 {
		c.Last, c.LastErr = FitPower(xs[n-2:], ys[n-2:])
	} else {
		c.LastErr = ErrTooFewPoints
	}
}

// HeldFamily is the sweep family whose size N counts the generations held
// at once (scenarios' held family), not the certificates in the pool.
const HeldFamily = "held"

// SizeName says what a family's size N counts, for axes and titles.
func SizeName(family string) string {
	if family == HeldFamily {
		return "held generations"
	}
	return "certificates in the pool"
}

// Find returns the curve of a family, store and unit, or nil.
func Find(curves []Curve, family, store, unit string) *Curve {
	for i := range curves {
		c := &curves[i]
		if c.Family == family && c.Store == store && c.Unit == unit {
			return c
		}
	}
	return nil
}

// TableUnits are the units WriteTable shows, in order, when present
// (the held units only in the held family's samples).
var TableUnits = []string{results.UnitSec, results.UnitBytes, results.UnitAllocs, results.UnitRetained, results.UnitRetainedPerCert,
	results.UnitHeldPerGen, results.UnitHeldGoroutinesPerGen}

// WriteTable writes, per family, the medians per pool size (FamilyTable),
// then the exponents' summary (ExponentTable).
func WriteTable(w io.Writer, curves []Curve) error {
	families, _ := Order(curves)
	p := &table.Page{}
	for _, fam := range families {
		p.Tables = append(p.Tables, FamilyTable(curves, fam))
	}
	p.Tables = append(p.Tables, ExponentTable(curves))
	return table.WriteText(w, p)
}

// ExponentTable is the exponents' summary of curves: a row per family and
// unit, a column per store (growthText).
func ExponentTable(curves []Curve) *table.Table {
	families, stores := Order(curves)
	cols := []table.Column{{Name: "family"}, {Name: "unit"}}
	for _, st := range stores {
		cols = append(cols, table.Column{Name: st, Align: table.Right})
	}
	t := table.New("Growth exponents k (value ≈ c·N^k)", cols...)
	t.Notes = []string{"k: least-squares slope of log(median) on log(N) over every size measured, with its R²; in parentheses, the slope between the two largest sizes."}
	for _, fam := range families {
		for _, unit := range TableUnits {
			cells := []table.Cell{{Text: fam}, {Text: unit}}
			found := false
			for _, st := range stores {
				cell := "-"
				if c := Find(curves, fam, st, unit); c != nil {
					cell, found = growthText(c), true
				}
				cells = append(cells, table.Cell{Text: cell})
			}
			if found {
				t.Add(cells...)
			}
		}
	}
	return t
}

// WriteReport writes what certbench sweep prints after a sweep: WriteTable,
// the sec/op Summary, the sweep's notes and how long it took.
func WriteReport(w io.Writer, rs *results.Set, notes []string, took time.Duration) error {
	curves, err := Curves(rs)
	if err != nil {
		return err
	}
	if err := WriteTable(w, curves); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, line := range Summary(curves, results.UnitSec) {
		fmt.Fprintln(w, line)
	}
	for _, n := range notes {
		fmt.Fprintln(w, "note:", n)
	}
	_, err = fmt.Fprintf(w, "sweep took %s\n", took.Round(time.Second))
	return err
}

// Order returns the families and the stores of curves in the order first
// seen.
func Order(curves []Curve) (families, stores []string) {
	for _, c := range curves {
		if !slices.Contains(families, c.Family) {
			families = append(families, c.Family)
		}
		if !slices.Contains(stores, c.Store) {
			stores = append(stores, c.Store)
		}
	}
	return families, stores
}

// FamilyTable is a family's medians with their 95% interval and sample
// count at each pool size, a row per unit and store, and the fitted
// exponents.
func FamilyTable(curves []Curve, fam string) *table.Table {
	_, stores := Order(curves)
	var sizes []int
	for _, c := range curves {
		if c.Family == fam {
			sizes = append(sizes, c.Sizes()...)
		}
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	cols := []table.Column{{Name: "unit"}, {Name: "store"}}
	for _, s := range sizes {
		cols = append(cols, table.Column{Name: "N = " + results.FormatInt(s), Align: table.Right})
	}
	cols = append(cols, table.Column{Name: "k", Align: table.Right}, table.Column{Name: "k (last step)", Align: table.Right})
	t := table.New(fam+": median [95% CI] (samples) at each N, "+SizeName(fam)+"; k: exponent of value ≈ c·N^k fitted over all sizes, and between the two largest sizes", cols...)
	for _, unit := range TableUnits {
		for _, st := range stores {
			c := Find(curves, fam, st, unit)
			if c == nil {
				continue
			}
			cells := []table.Cell{{Text: unit}, {Text: st}}
			for _, s := range sizes {
				i := slices.IndexFunc(c.Points, func(p Point) bool { return p.Size == s })
				if i < 0 {
					cells = append(cells, t.Note(table.Cell{Text: "-"}, "not measured (skipped or over budget)"))
					continue
				}
				p := c.Points[i]
				text := fmt.Sprintf("%s (%d)", results.Format(p.Center, unit), p.N)
				if !math.IsInf(p.Lo, 0) && !math.IsInf(p.Hi, 0) && !math.IsNaN(p.Lo) && !math.IsNaN(p.Hi) {
					text = fmt.Sprintf("%s [%s, %s] (%d)", results.Format(p.Center, unit), results.Format(p.Lo, unit), results.Format(p.Hi, unit), p.N)
				}
				cells = append(cells, table.Cell{Text: text})
			}
			for _, f := range []struct {
				fit Fit
				err error
			}{{c.Fit, c.FitErr}, {c.Last, c.LastErr}} {
				switch {
				case AllZero(c):
					cells = append(cells, table.Cell{Text: "0 at every size"})
				case f.err != nil:
					cells = append(cells, t.Note(table.Cell{Text: "-"}, f.err.Error()))
				default:
					cells = append(cells, table.Cell{Text: ExponentText(f.fit.Exponent)})
				}
			}
			t.Add(cells...)
		}
	}
	return t
}

// AllZero reports whether every point of the curve is zero: nothing to
// fit, and nothing grows.
func AllZero(c *Curve) bool {
	for _, p := range c.Points {
		if p.Center != 0 {
			return false
		}
	}
	return len(c.Points) > 0
}

// growthText formats a curve's growth: "N^1.02 (N^1.31 at 10,000-100,000)",
// "0 at every size", "0 at 3 of 4 sizes, no fit", or "no fit at 1 size".
func growthText(c *Curve) string {
	if AllZero(c) {
		return "0 at every size"
	}
	if c.FitErr != nil {
		zeros := 0
		for _, p := range c.Points {
			if p.Center <= 0 {
				zeros++
			}
		}
		if zeros == 0 {
			return fmt.Sprintf("no fit at %d size", len(c.Points))
		}
		return fmt.Sprintf("0 at %d of %d sizes, no fit", zeros, len(c.Points))
	}
	s := fmt.Sprintf("N^%s R²=%.3f", ExponentText(c.Fit.Exponent), c.Fit.R2)
	if len(c.Points) >= 3 && c.LastErr == nil {
		n := len(c.Points)
		s += fmt.Sprintf(" (N^%s at %s-%s)", ExponentText(c.Last.Exponent), results.FormatInt(c.Points[n-2].Size), results.FormatInt(c.Points[n-1].Size))
	}
	return s
}

// Summary returns a line per family with unit: "renew-1 sec/op: naive ~
// N^1.24 (...), optimized ~ N^1.27 (...)".
func Summary(curves []Curve, unit string) []string {
	var lines []string
	families, _ := Order(curves)
	for _, fam := range families {
		var parts []string
		for _, c := range curves {
			if c.Family == fam && c.Unit == unit && c.FitErr == nil {
				parts = append(parts, fmt.Sprintf("%s ~ %s", c.Store, growthText(&c)))
			}
		}
		if len(parts) > 0 {
			lines = append(lines, fmt.Sprintf("%s %s: %s", fam, unit, strings.Join(parts, ", ")))
		}
	}
	return lines
}

// ExponentText formats an exponent with two decimals, without "-0.00".
func ExponentText(k float64) string {
	if math.Abs(k) < 0.005 {
		k = 0
	}
	return strconv.FormatFloat(k, 'f', 2, 64)
}

package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// Defaults of Build: DefaultRow and DefaultCol for certbench results, NameRow and NameCol for others.
const (
	DefaultRow        = "/scenario"
	DefaultCol        = "/store"
	NameRow           = ".fullname"
	NameCol           = results.FileKey
	DefaultFilter     = "*"
	DefaultAlpha      = 0.05
	DefaultConfidence = 0.95
)

// ErrNothingInCommon is Build's error when no row is in the baseline and another column.
var ErrNothingInCommon = errors.New("no benchmarks in common")

// ErrNoResults is Build's error when the filter leaves no result.
var ErrNoResults = errors.New("no benchmark results")

// Options configures Build. The zero value compares stores within one
// run (certbench results) or files (other results).
type Options struct {
	// Row and Col are benchproc projections (benchstat's -row and -col).
	// Empty Row means the certbench name keys Col leaves (NameRow for
	// plain results); empty Col means DefaultCol, or ".file" if Row uses
	// /store (NameCol for plain results).
	Row string `json:"row"`
	Col string `json:"col"`
	// Filter is a benchproc filter (benchstat's -filter), applied before Row and Col.
	Filter string `json:"filter"`
	// Columns, if set, lists the column labels to show, baseline first.
	Columns    []string `json:"columns"`
	Alpha      float64  `json:"alpha"`      // of the U test
	Confidence float64  `json:"confidence"` // of each center's interval
}

// FileOptions returns the Options that compare input files: one column per file.
func FileOptions() Options {
	return Options{Col: results.FileKey}
}

func (o Options) withDefaults() (Options, error) {
	o.Filter = cmp.Or(o.Filter, DefaultFilter)
	o.Alpha = cmp.Or(o.Alpha, DefaultAlpha)
	o.Confidence = cmp.Or(o.Confidence, DefaultConfidence)
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return o, fmt.Errorf("alpha must be in (0, 1), got %v", o.Alpha)
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		return o, fmt.Errorf("confidence must be in (0, 1), got %v", o.Confidence)
	}
	return o, nil
}

// Tables are the result of Build: one comparison Table per unit.
type Tables struct {
	Options Options `json:"options"` // with defaults filled in
	// Config is the file configuration, less the scenario-hash lines.
	Config  []Config `json:"config"`
	Columns []Column `json:"columns"` // of every table, baseline first
	// Tables holds one table per unit, in unitOrder, then as first seen.
	Tables []*Table `json:"tables"`
	// Warnings lists every distinct warning, of the report and its cells.
	Warnings []string `json:"warnings"`
}

// A Config is a file configuration key and its distinct values.
type Config struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

// A Column is one column of Tables: a distinct value of Options.Col.
type Column struct {
	Label string        `json:"label"`
	Key   benchproc.Key `json:"-"`
}

// A Row is one row of a Table: a distinct value of Options.Row.
type Row struct {
	Label string        `json:"label"`
	Key   benchproc.Key `json:"-"`
	// Cells holds one cell per column; nil where the column has no results.
	Cells []*Cell `json:"cells"`
}

// A Table compares the measurements of one unit across rows and columns.
type Table struct {
	// Unit is tidied by benchfmt (ns/op is sec/op).
	Unit       string               `json:"unit"`
	Assumption benchmath.Assumption `json:"-"`
	// Better is -1 if lower is better, 1 if higher, 0 if unknown.
	Better  int      `json:"better"`
	Columns []Column `json:"-"`
	Rows    []*Row   `json:"rows"`
	// Geomean summarizes each column over the rows positive in every column.
	Geomean []Geomean `json:"geomean"`
	// NoGeomean says why Geomean is nil, for every renderer to show.
	NoGeomean string `json:"no_geomean,omitempty"`
	// Hidden says why the table carries no information (text and Markdown omit it).
	Hidden string `json:"hidden,omitempty"`
}

// A Cell summarizes the sample of one row and column.
type Cell struct {
	// Sample holds the values, sorted; maybe the results.Set's own (read-only).
	Sample  *benchmath.Sample `json:"-"`
	Summary benchmath.Summary `json:"-"`
	// Delta compares the cell with its row's baseline cell, if any.
	Delta    *Delta   `json:"delta"`
	Warnings []string `json:"warnings"`
}

// N returns the number of samples in c.
func (c *Cell) N() int { return len(c.Sample.Values) }

// Center returns the center of c's summary.
func (c *Cell) Center() float64 { return c.Summary.Center }

// A Delta compares a cell with the baseline cell of its row.
type Delta struct {
	// Comparison is benchmath's test (P is 0 for exact units).
	Comparison benchmath.Comparison `json:"-"`
	Base       float64              `json:"base"`  // the baseline cell's center
	Value      float64              `json:"value"` // this cell's
	// Ratio is Value/Base: 1 if both are 0, +Inf if only Base is.
	Ratio float64 `json:"ratio"`
	// Significant is P < Alpha, or for exact units, centers that differ.
	Significant bool     `json:"significant"`
	Warnings    []string `json:"warnings"`
	unit        string
}

// Percent returns the change from Base to Value in percent.
func (d *Delta) Percent() float64 { return (d.Ratio - 1) * 100 }

// String formats d like benchstat: "~", a signed percent change or
// "0.00%"; up from 0, results.FromZero ("new allocations"), where
// benchstat says "?".
func (d *Delta) String() string {
	switch {
	case !d.Significant:
		return "~"
	case d.Base == d.Value:
		return "0.00%"
	case d.Base == 0:
		return results.FromZero(d.unit)
	}
	return results.FormatPercent(d.Percent())
}

// A Geomean summarizes one column of a Table.
type Geomean struct {
	Center float64 `json:"center"` // of the column's centers
	// Ratio is the geomean of the column's Delta ratios; NaN in the baseline column.
	Ratio    float64  `json:"ratio"`
	Rows     int      `json:"rows"`     // the geomean is taken over
	Warnings []string `json:"warnings"` // on the rows left out
}

// Table returns the table for unit (tidied: "ns/op" finds "sec/op"), or nil.
func (r *Tables) Table(unit string) *Table {
	if unit == results.UnitNsPerOp {
		unit = results.UnitSec
	}
	for _, t := range r.Tables {
		if t.Unit == unit {
			return t
		}
	}
	return nil
}

// rawCell accumulates the values of one (unit, row, column) cell.
type rawCell struct {
	parts   [][]float64 // the sorted values of each series in the cell
	residue []benchproc.Key
	files   []string
}

// values returns the sorted values: the one series' own (shared) or a sorted copy.
func (c *rawCell) values() []float64 {
	if len(c.parts) == 1 {
		return c.parts[0]
	}
	return slices.Sorted(slices.Values(slices.Concat(c.parts...)))
}

type cellKey struct {
	unit     string
	row, col benchproc.Key
}

// warnings is an ordered set of messages.
type warnings []string

func (w *warnings) add(msgs ...string) {
	for _, m := range msgs {
		*w = appendNew(*w, m)
	}
}

// appendNew appends v to s unless s has it.
func appendNew[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// Build groups the results of set into tables of summaries, deltas and geomeans.
func Build(set *results.Set, opts Options) (*Tables, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	filter, err := benchproc.NewFilter(opts.Filter)
	if err != nil {
		return nil, fmt.Errorf("filter %q: %w", opts.Filter, err)
	}
	b := &builder{opts: opts, filter: filter, units: set.Units, names: make(map[string]bool)}
	for _, s := range set.Series {
		// Kept if the filter keeps it or any of its units; not modified.
		res := s.Result()
		if m, _ := filter.Match(res); !m.Any() {
			continue
		}
		b.kept = append(b.kept, kept{s, res})
		if name := string(res.Name); !b.names[name] {
			b.names[name] = true
			if !results.IsCertbench(res) {
				b.plain = append(b.plain, name)
			}
		}
	}
	return b.report()
}

// A builder holds the series Build keeps and makes their Tables.
type builder struct {
	opts   Options
	filter *benchproc.Filter
	units  benchfmt.UnitMetadataMap

	kept  []kept
	names map[string]bool // distinct benchmark names kept
	plain []string        // those that are not certbench's
}

// kept is a series the filter keeps, with the result benchproc projects.
type kept struct {
	series *results.Series
	res    *benchfmt.Result
}

func (b *builder) report() (*Tables, error) {
	opts := b.opts
	if len(b.kept) == 0 {
		if opts.Filter == DefaultFilter {
			return nil, ErrNoResults
		}
		return nil, fmt.Errorf("%w match filter %q", ErrNoResults, opts.Filter)
	}
	auto := opts.Row == "" || opts.Col == ""
	opts.Row, opts.Col = projections(opts.Row, opts.Col, len(b.plain) > 0)
	g, err := b.group(opts)
	if err != nil {
		return nil, err
	}
	columns := make([]Column, len(g.colKeys))
	for i, k := range g.colKeys {
		columns[i] = Column{Label: keyLabel(k), Key: k}
	}
	if len(opts.Columns) > 0 {
		if columns, err = selectColumns(columns, opts.Columns); err != nil {
			return nil, err
		}
	}
	rep := &Tables{Options: opts, Config: g.config, Columns: columns}
	var general, cellWarnings warnings
	if auto && len(b.plain) > 0 && len(b.plain) < len(b.names) {
		general.add(fmt.Sprintf("%d of %d benchmarks are not certbench's (no /%s= and /%s= in the name, such as %q): "+
			"results are grouped as benchstat groups them, rows by %s and columns by %s",
			len(b.plain), len(b.names), results.ScenarioKey, results.StoreKey, b.plain[0], opts.Row, opts.Col))
	}
	general.add(g.keyWarnings(opts, columns)...)

	th := &benchmath.Thresholds{CompareAlpha: opts.Alpha}
	common := make([]int, len(columns)) // rows shared with the baseline, per column
	for _, unit := range g.units {
		t := g.table(unit, b.units, columns, th, opts, common, &general)
		if len(t.Rows) == 0 {
			continue // only in columns left out by opts.Columns
		}
		cellWarnings.add(t.warnings()...)
		rep.Tables = append(rep.Tables, t)
	}
	if len(columns) > 1 {
		if !slices.ContainsFunc(common[1:], func(n int) bool { return n > 0 }) {
			return nil, nothingInCommon(columns, g.rowKeys, g.pairs)
		}
		for j := 1; j < len(columns); j++ {
			if common[j] == 0 {
				general.add(fmt.Sprintf("column %q has no benchmarks in common with baseline %q", columns[j].Label, columns[0].Label))
			}
		}
	}
	general.add(cellWarnings...)
	rep.Warnings = general
	return rep, nil
}

// grid is the kept results grouped by unit, row and column.
type grid struct {
	units            []string // in table order
	rowKeys, colKeys []benchproc.Key
	cells            map[cellKey]*rawCell
	pairs            map[[2]benchproc.Key]bool // (row, col) with any result
	config           []Config
}

func (b *builder) group(opts Options) (*grid, error) {
	var parser benchproc.ProjectionParser
	rowBy, err := parser.Parse(opts.Row, b.filter)
	if err != nil {
		return nil, fmt.Errorf("row projection %q: %w", opts.Row, err)
	}
	colBy, err := parser.Parse(opts.Col, b.filter)
	if err != nil {
		return nil, fmt.Errorf("column projection %q: %w", opts.Col, err)
	}
	residueBy := parser.Residue()
	g := &grid{cells: make(map[cellKey]*rawCell), pairs: make(map[[2]benchproc.Key]bool)}
	var matched []*results.Series
	for _, k := range b.kept {
		// Projections with an explicit order ("/store@(a b)") add to the filter.
		m, _ := b.filter.Match(k.res)
		if !m.Any() {
			continue
		}
		matched = append(matched, k.series)
		row, col, residue := rowBy.Project(k.res), colBy.Project(k.res), residueBy.Project(k.res)
		file := k.series.GetConfig(results.FileKey)
		g.rowKeys, g.colKeys = appendNew(g.rowKeys, row), appendNew(g.colKeys, col)
		g.pairs[[2]benchproc.Key{row, col}] = true
		for i, metric := range k.series.Metrics {
			if !m.Test(i) {
				continue
			}
			g.units = appendNew(g.units, metric.Unit)
			g.add(cellKey{metric.Unit, row, col}, metric.Values, residue, file)
		}
	}
	if len(g.cells) == 0 {
		return nil, fmt.Errorf("%w match filter %q and the values listed in Row %q and Col %q", ErrNoResults, opts.Filter, opts.Row, opts.Col)
	}
	g.config = ConfigOf(matched, false)
	benchproc.SortKeys(g.rowKeys)
	benchproc.SortKeys(g.colKeys)
	slices.SortStableFunc(g.units, func(a, b string) int { return results.Rank(a) - results.Rank(b) })
	return g, nil
}

// ConfigOf returns the file configuration of series, with scenario hashes if hashes.
func ConfigOf(series []*results.Series, hashes bool) []Config {
	var cfg []Config
	var last *benchfmt.Config
	for _, s := range series {
		if len(s.Config) == 0 || &s.Config[0] == last {
			continue // series of one configuration share it
		}
		last = &s.Config[0]
		for _, c := range s.Config {
			if !c.File || (!hashes && strings.HasPrefix(c.Key, results.ScenarioHashPrefix)) {
				continue
			}
			i := slices.IndexFunc(cfg, func(x Config) bool { return x.Key == c.Key })
			if i < 0 {
				i = len(cfg)
				cfg = append(cfg, Config{Key: c.Key})
			}
			cfg[i].Values = appendNew(cfg[i].Values, string(c.Value))
		}
	}
	return cfg
}

func (g *grid) add(k cellKey, values []float64, residue benchproc.Key, file string) {
	c := g.cells[k]
	if c == nil {
		c = new(rawCell)
		g.cells[k] = c
	}
	c.parts = append(c.parts, values)
	c.residue, c.files = appendNew(c.residue, residue), appendNew(c.files, file)
}

// keyWarnings says what the projections leave unclear.
func (g *grid) keyWarnings(opts Options, columns []Column) []string {
	var w warnings
	if len(columns) == 1 {
		w.add(fmt.Sprintf("only one column (%q for Col %q); nothing to compare", columns[0].Label, opts.Col))
	}
	for _, f := range []struct {
		keys       []benchproc.Key
		name, proj string
	}{{g.rowKeys, "Row", opts.Row}, {g.colKeys, "Col", opts.Col}} {
		for _, k := range f.keys {
			for _, fld := range k.Projection().FlattenedFields() {
				if k.Get(fld) == "" {
					w.add(fmt.Sprintf("some results have no %s (%s %q)", fld.Name, f.name, f.proj))
				}
			}
		}
	}
	return w
}

// table makes unit's table, counting rows shared with the baseline in common.
func (g *grid) table(unit string, units benchfmt.UnitMetadataMap, columns []Column, th *benchmath.Thresholds, opts Options, common []int, general *warnings) *Table {
	assumption := units.GetAssumption(unit)
	t := &Table{Unit: unit, Assumption: assumption, Better: better(units, unit), Columns: columns}
	for _, rk := range g.rowKeys {
		row := &Row{Label: keyLabel(rk), Key: rk, Cells: make([]*Cell, len(columns))}
		found := false
		for j, col := range columns {
			if raw := g.cells[cellKey{unit, rk, col.Key}]; raw != nil {
				found = true
				row.Cells[j] = newCell(raw, assumption, th, opts.Confidence)
			}
		}
		if !found {
			continue
		}
		if base := row.Cells[0]; base != nil {
			for j := 1; j < len(columns); j++ {
				if c := row.Cells[j]; c != nil {
					common[j]++
					c.Delta = newDelta(base, c, unit, assumption, opts.Alpha)
				}
			}
		}
		for j, c := range row.Cells {
			switch {
			case c != nil:
			case !g.pairs[[2]benchproc.Key{rk, columns[j].Key}]:
				general.add(fmt.Sprintf("%q has no results in column %q", row.Label, columns[j].Label))
			default:
				general.add(fmt.Sprintf("%q has no %s results in column %q", row.Label, unit, columns[j].Label))
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) > 0 {
		t.Geomean, t.NoGeomean = geomeans(t)
		t.Hidden = g.hidden(t, columns)
	}
	return t
}

// hidden says why table t carries no information, or "".
func (g *grid) hidden(t *Table, columns []Column) string {
	zero := true
	for _, row := range t.Rows {
		for _, c := range row.Cells {
			if c != nil {
				zero = zero && !slices.ContainsFunc(c.Sample.Values, func(v float64) bool { return v != 0 })
			}
		}
	}
	if zero {
		return "0 in every sample"
	}
	if t.Unit != results.UnitMaxRSS || len(columns) < 2 {
		return ""
	}
	// Peak RSS tells columns apart only if they ran in different files.
	for _, row := range t.Rows {
		var files []string
		for j, c := range row.Cells {
			if c == nil {
				continue
			}
			raw := g.cells[cellKey{t.Unit, row.Key, columns[j].Key}]
			switch {
			case files == nil:
				files = raw.files
			case !slices.Equal(files, raw.files):
				return ""
			}
		}
	}
	return "the process's peak RSS, and the columns of each row come from one file, whose stores certbench run measures in one process"
}

func (t *Table) warnings() []string {
	var w warnings
	for _, row := range t.Rows {
		for _, c := range row.Cells {
			if c == nil {
				continue
			}
			w.add(c.Warnings...)
			if c.Delta != nil {
				w.add(c.Delta.Warnings...)
			}
		}
	}
	for _, g := range t.Geomean {
		w.add(g.Warnings...)
	}
	return w
}

func newCell(raw *rawCell, assumption benchmath.Assumption, th *benchmath.Thresholds, confidence float64) *Cell {
	// Sorted already; benchmath.NewSample would sort the series' values.
	s := &benchmath.Sample{Values: raw.values(), Thresholds: th}
	c := &Cell{Sample: s, Summary: assumption.Summary(s, confidence)}
	c.Warnings = appendErrors(nil, slices.Concat(s.Warnings, c.Summary.Warnings))
	var vary []string
	for _, f := range benchproc.NonSingularFields(raw.residue) {
		vary = append(vary, f.Name)
	}
	if len(raw.files) > 1 {
		vary = append(vary, results.FileKey)
	}
	if len(vary) > 0 {
		c.Warnings = append(c.Warnings, "benchmarks vary in "+strings.Join(vary, ", "))
	}
	return c
}

func newDelta(base, c *Cell, unit string, assumption benchmath.Assumption, alpha float64) *Delta {
	cmp := assumption.Compare(base.Sample, c.Sample)
	cmp.Alpha = alpha // AssumeExact leaves Alpha unset.
	d := &Delta{Comparison: cmp, Base: base.Center(), Value: c.Center(), unit: unit}
	switch {
	case d.Base == d.Value:
		d.Ratio = 1
	case d.Base == 0:
		d.Ratio = math.Inf(1)
	default:
		d.Ratio = d.Value / d.Base
	}
	if assumption == benchmath.AssumeExact {
		d.Significant = d.Base != d.Value
	} else {
		d.Significant = cmp.P < alpha
	}
	d.Warnings = appendErrors(nil, cmp.Warnings)
	return d
}

// geomeans computes t's summary row, or says why there is none.
func geomeans(t *Table) ([]Geomean, string) {
	if len(t.Rows) < 2 {
		return nil, ""
	}
	var used []*Row
	missing, zero := 0, 0
	for _, row := range t.Rows {
		switch {
		case slices.Contains(row.Cells, nil):
			missing++
		case slices.ContainsFunc(row.Cells, func(c *Cell) bool { return !(c.Center() > 0) }):
			zero++
		default:
			used = append(used, row)
		}
	}
	var warn []string
	if missing > 0 {
		warn = append(warn, fmt.Sprintf("geomean leaves out %d of %d rows, missing in some column", missing, len(t.Rows)))
	}
	if zero > 0 {
		warn = append(warn, fmt.Sprintf("geomean leaves out %d of %d rows, with a zero or negative center", zero, len(t.Rows)))
	}
	if len(used) < 2 {
		return nil, fmt.Sprintf("a geomean needs two rows with a positive center in every column, and %d of %d rows have one (%d with a zero or negative center, %d missing in some column)",
			len(used), len(t.Rows), zero, missing)
	}
	gs := make([]Geomean, len(t.Columns))
	for j := range gs {
		var centers, ratios []float64
		for _, row := range used {
			c := row.Cells[j]
			centers = append(centers, c.Center())
			if c.Delta != nil {
				ratios = append(ratios, c.Delta.Ratio)
			}
		}
		gs[j] = Geomean{Center: geomean(centers), Ratio: math.NaN(), Rows: len(used), Warnings: slices.Clone(warn)}
		if j > 0 {
			gs[j].Ratio = geomean(ratios)
		}
	}
	return gs, ""
}

// geomean is NaN if xs is empty or a value is not positive and finite.
func geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return math.NaN()
		}
		sum += math.Log(x)
	}
	return math.Exp(sum / float64(len(xs)))
}

func appendErrors(dst []string, errs []error) []string {
	for _, e := range errs {
		dst = append(dst, e.Error())
	}
	return dst
}

func selectColumns(columns []Column, order []string) ([]Column, error) {
	var out []Column
	for _, name := range order {
		i := slices.IndexFunc(columns, func(c Column) bool { return c.Label == name })
		if i < 0 {
			have := make([]string, len(columns))
			for i, c := range columns {
				have[i] = c.Label
			}
			return nil, fmt.Errorf("unknown column %q (have %s)", name, strings.Join(have, ", "))
		}
		if slices.ContainsFunc(out, func(c Column) bool { return c.Label == name }) {
			return nil, fmt.Errorf("column %q listed twice", name)
		}
		out = append(out, columns[i])
	}
	return out, nil
}

// better is the direction of unit: its metadata, else results', else benchfmt's.
func better(units benchfmt.UnitMetadataMap, unit string) int {
	if units.Get(unit, "better") == nil {
		if b := results.Better(unit); b != 0 {
			return b
		}
	}
	return units.GetBetter(unit)
}

// projections fills in an empty Row or Col; plain says some results are not certbench's.
func projections(row, col string, plain bool) (string, string) {
	if row != "" && col != "" {
		return row, col
	}
	if plain {
		return cmp.Or(row, NameRow), cmp.Or(col, NameCol)
	}
	switch {
	case row == "" && col == "":
		return DefaultRow, DefaultCol
	case row == "":
		// The certbench name keys that the columns leave over.
		used := projectionKeys(col)
		var keys []string
		for _, k := range []string{"/" + results.ScenarioKey, "/" + results.StoreKey} {
			if !slices.Contains(used, k) {
				keys = append(keys, k)
			}
		}
		if len(keys) == 0 {
			return NameRow, col
		}
		return strings.Join(keys, ","), col
	default:
		if slices.Contains(projectionKeys(row), "/"+results.StoreKey) {
			return row, results.FileKey
		}
		return row, DefaultCol
	}
}

// projectionKeys returns the keys a projection names; nil if it does not parse.
func projectionKeys(proj string) []string {
	var parser benchproc.ProjectionParser
	filter, _ := benchproc.NewFilter(DefaultFilter) // "*" always parses
	p, err := parser.Parse(proj, filter)
	if err != nil {
		return nil
	}
	var keys []string
	for _, f := range p.FlattenedFields() {
		keys = append(keys, f.Name)
	}
	return keys
}

// nothingInCommon is ErrNothingInCommon naming a few rows of each column.
func nothingInCommon(columns []Column, rows []benchproc.Key, pairs map[[2]benchproc.Key]bool) error {
	const shown = 3
	var sides []string
	for _, col := range columns {
		var have []string
		n := 0
		for _, rk := range rows {
			if !pairs[[2]benchproc.Key{rk, col.Key}] {
				continue
			}
			if n++; n <= shown {
				have = append(have, keyLabel(rk))
			}
		}
		side := fmt.Sprintf("%q has %s", col.Label, strings.Join(have, ", "))
		if n > shown {
			side += fmt.Sprintf(" and %d more", n-shown)
		}
		if n == 0 {
			side = fmt.Sprintf("%q has none", col.Label)
		}
		sides = append(sides, side)
	}
	return fmt.Errorf("%w: %s", ErrNothingInCommon, strings.Join(sides, "; "))
}

// keyLabel formats a projected key: a bare value, or key=value parts joined by "/".
func keyLabel(k benchproc.Key) string {
	fields := k.Projection().FlattenedFields()
	if len(fields) == 1 {
		return k.Get(fields[0])
	}
	parts := make([]string, len(fields))
	for i, f := range fields {
		if f.Name == ".name" || f.Name == ".fullname" {
			parts[i] = k.Get(f)
			continue
		}
		parts[i] = strings.TrimLeft(f.Name, "./") + "=" + k.Get(f)
	}
	return strings.Join(parts, "/")
}

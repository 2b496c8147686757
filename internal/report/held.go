package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// The price of atomicity (issue 29): what a store pays for every
// generation a live connection still holds, set against the whole
// configuration and against one certificate's entry. A store that shares
// unchanged entries between generations pays only what changed; one that
// rebuilds everything pays the whole configuration per held generation.

// heldPrice is one store's price in one held scenario, each figure a
// median compare computed, taken once.
type heldPrice struct {
	scenario, store string
	base            string  // the plain scenario the configuration is measured in
	perGen          float64 // held-B/gen
	config          float64 // base's retained-B: the whole configuration
	entry           float64 // base's retained-B/cert: one certificate's entry
	goroutines      float64 // held-goroutines/gen
}

// share is perGen as a part of the configuration: 1 is the whole of it.
func (p heldPrice) share() float64 { return heldRatio(p.perGen, p.config) }

// entries is perGen in certificate entries: 1 is one certificate, what a
// renew-1 refresh changes.
func (p heldPrice) entries() float64 { return heldRatio(p.perGen, p.entry) }

// heldRatio is a/b, NaN where b is not a positive finite number.
func heldRatio(a, b float64) float64 {
	if !(b > 0) || !finite(a) || !finite(b) {
		return math.NaN()
	}
	return a / b
}

// heldPrices returns the price of every store in every scenario with
// held-B/gen, in compare's row and column order. A held sample's own
// retained-B includes the generations it holds, so the configuration is
// that of the same store in the plain renew-1 scenario on as many
// certificates (the catalogue's renew-1-of-N), NaN if it was not run.
func (r *Report) heldPrices() []heldPrice {
	if r.Compare == nil {
		return nil
	}
	t := r.Compare.Table(results.UnitHeldPerGen)
	if t == nil {
		return nil
	}
	var out []heldPrice
	for _, row := range t.Rows {
		for j, c := range row.Cells {
			if c == nil {
				continue
			}
			st := t.Columns[j].Label
			p := heldPrice{scenario: row.Label, store: st, perGen: c.Summary.Center,
				goroutines: r.heldMedian(results.UnitHeldGoroutinesPerGen, row.Label, st)}
			// retained-B/cert is retained-B over the certificates, sample
			// by sample, and so are their medians.
			if certs := heldRatio(r.heldMedian(results.UnitRetained, row.Label, st), r.heldMedian(results.UnitRetainedPerCert, row.Label, st)); finite(certs) {
				p.base = fmt.Sprintf("renew-1-of-%d", int(math.Round(certs)))
			}
			p.config = r.heldMedian(results.UnitRetained, p.base, st)
			p.entry = r.heldMedian(results.UnitRetainedPerCert, p.base, st)
			out = append(out, p)
		}
	}
	return out
}

// heldMedian returns compare's center of unit in a row and column, NaN if
// there is none.
func (r *Report) heldMedian(unit, row, col string) float64 {
	t := r.Compare.Table(unit)
	if t == nil {
		return math.NaN()
	}
	i := slices.IndexFunc(t.Rows, func(rw *compare.Row) bool { return rw.Label == row })
	j := slices.IndexFunc(t.Columns, func(c compare.Column) bool { return c.Label == col })
	if i < 0 || j < 0 || j >= len(t.Rows[i].Cells) || t.Rows[i].Cells[j] == nil {
		return math.NaN()
	}
	return t.Rows[i].Cells[j].Summary.Center
}

// heldShareUnit formats a part of a whole as a percentage (results.Format's
// fractions).
const heldShareUnit = "configuration-fraction"

// HeldTable is the price-of-atomicity table: per held scenario and store,
// the bytes a held generation costs, against the whole configuration and
// against one certificate's entry; nil without held-B/gen results.
func (r *Report) HeldTable() *table.Table {
	prices := r.heldPrices()
	if len(prices) == 0 {
		return nil
	}
	right := func(name string) table.Column { return table.Column{Name: name, Align: table.Right} }
	t := table.New("What each held generation costs",
		table.Column{Name: "scenario"}, table.Column{Name: "store"},
		right("per held generation"), right("configuration"), right("share of the configuration"),
		right("certificate entries"), right("goroutines per held generation"))
	t.ID = "held-price"
	t.Notes = []string{
		"per held generation: the held scenario's held-B/gen, the heap each generation a connection still holds keeps alive, above the store holding only its current one. " +
			"configuration: the same store's retained-B in the plain renew-1-of-N run on as many certificates, no generation held (named in a footnote); " +
			"share: per held generation divided by configuration (100%: a held generation costs the whole configuration).",
		"certificate entries: per held generation divided by the retained-B/cert of that same plain renew-1-of-N run (not the held scenario's own, which counts the generations it holds): one certificate's entry. " +
			"A renew-1 refresh changes one certificate, so 1 is only what changed and N the whole configuration. Medians of the samples.",
	}
	cell := func(v float64, unit string, why ...string) table.Cell {
		if !finite(v) {
			return t.Note(table.Cell{Text: "-"}, why...)
		}
		return table.Cell{Text: results.Format(v, unit)}
	}
	for _, p := range prices {
		missing := "not measured"
		if p.base != "" {
			missing = "no " + p.base + " in these results (run it beside the held scenarios)"
		}
		config, entries := cell(p.config, results.UnitRetained, missing), cell(p.entries(), "", missing)
		if finite(p.config) {
			config = t.Note(config, "retained-B in "+p.base)
		}
		if finite(p.entries()) {
			entries = t.Note(entries, "held-B/gen divided by retained-B/cert in "+p.base)
		}
		t.Add(table.Cell{Text: p.scenario}, table.Cell{Text: p.store},
			cell(p.perGen, results.UnitHeldPerGen, "not measured"), config,
			cell(p.share(), heldShareUnit, missing), entries,
			cell(p.goroutines, results.UnitHeldGoroutinesPerGen, "not measured"))
	}
	return t
}

package callgrind

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// A Top is the costliest functions of one window, per op.
type Top struct {
	File          string   `json:"file,omitempty"`  // the window's, when read from one
	Label         string   `json:"label,omitempty"` // "scenario=... store=... ops=N"
	Metric        string   `json:"metric"`          // "instructions"
	Ops           int      `json:"ops"`             // the divisor (1 when the label has none)
	Total         float64  `json:"total"`           // per op
	StorePackages []string `json:"store_packages"`
	// Self are the functions of largest own cost; Inclusive of largest
	// cost with what they call (recursion, real or mistaken at a goroutine
	// switch, counts some costs more than once).
	Self      []FuncCost `json:"self"`
	Inclusive []FuncCost `json:"inclusive"`
}

// FuncCost is one function's cost per op.
type FuncCost struct {
	Function string  `json:"function"`
	Cost     float64 `json:"cost"`
	Share    float64 `json:"share"`           // of the window's total
	Store    bool    `json:"store,omitempty"` // in one of the store's packages
}

// Summarize returns the n costliest functions of p by own and by
// inclusive cost on metric m, per op.
func Summarize(p *Profile, m Metric, n int) (*Top, error) {
	of, err := m.of(p)
	if err != nil {
		return nil, err
	}
	ops := p.Ops()
	if ops <= 0 {
		ops = 1
	}
	label, _ := p.Label()
	t := &Top{Label: label, Metric: m.Name, Ops: ops, StorePackages: StorePackages(p)}
	self, incl := map[string]float64{}, map[string]float64{}
	for _, f := range p.Functions {
		name := FunctionName(f.Name)
		self[name] += of(f.Self)
		incl[name] += of(f.Inclusive())
		t.Total += of(f.Self)
	}
	t.Total /= float64(ops)
	top := func(costs map[string]float64) []FuncCost {
		var out []FuncCost
		for name, c := range costs {
			fc := FuncCost{Function: name, Cost: c / float64(ops), Store: slices.Contains(t.StorePackages, PackageOf(name))}
			if t.Total > 0 {
				fc.Share = fc.Cost / t.Total
			}
			out = append(out, fc)
		}
		slices.SortFunc(out, func(x, y FuncCost) int {
			if c := cmp.Compare(y.Cost, x.Cost); c != 0 {
				return c
			}
			return strings.Compare(x.Function, y.Function)
		})
		return out[:min(n, len(out))]
	}
	t.Self, t.Inclusive = top(self), top(incl)
	return t, nil
}

// SummarizeFile returns Summarize's Top of every part of the callgrind
// file path, each with its File set.
func SummarizeFile(path string, m Metric, n int) ([]*Top, error) {
	ps, err := ParseFile(path)
	if err != nil {
		return nil, err
	}
	var tops []*Top
	for _, p := range ps {
		t, err := Summarize(p, m, n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		t.File = path
		tops = append(tops, t)
	}
	return tops, nil
}

// WriteTops writes tops as text ("text"), Markdown ("markdown") or JSON
// ("json", an array).
func WriteTops(w io.Writer, format string, tops []*Top) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if tops == nil {
			tops = []*Top{}
		}
		return enc.Encode(tops)
	case "markdown":
		return table.WriteMarkdown(w, topsPage(tops))
	case "text", "":
		return table.WriteText(w, topsPage(tops))
	}
	return fmt.Errorf("unknown format %q (want text, markdown or json)", format)
}

// topsPage makes a table of own and one of inclusive costs per Top.
func topsPage(tops []*Top) *table.Page {
	p := &table.Page{}
	for _, t := range tops {
		for i, part := range []struct {
			title string
			fs    []FuncCost
		}{{"own", t.Self}, {"inclusive", t.Inclusive}} {
			tb := table.New("", table.Column{Name: part.title + " per op", Align: table.Right}, table.Column{Name: "share", Align: table.Right}, table.Column{Name: "function"})
			if i == 0 {
				tb.Title = fmt.Sprintf("%s: %s %s per op (%d ops)%s", cmp.Or(t.File, t.Label), formatCount(t.Total), t.Metric, t.Ops, storeNote(t))
			}
			for _, f := range part.fs {
				tb.Add(table.Cell{Text: formatCount(f.Cost)}, table.Cell{Text: fmt.Sprintf("%.1f%%", 100*f.Share)}, table.Cell{Text: f.Function + storeMark(f)})
			}
			p.Tables = append(p.Tables, tb)
		}
	}
	return p
}

func storeNote(t *Top) string {
	if len(t.StorePackages) == 0 {
		return ""
	}
	return "; store: " + strings.Join(t.StorePackages, ", ") + " (marked *)"
}

func storeMark(f FuncCost) string {
	if f.Store {
		return " *"
	}
	return ""
}

// formatCount writes a count with thousands separators, to one decimal
// below 1,000.
func formatCount(v float64) string {
	if v < 1000 && v > -1000 {
		return fmt.Sprintf("%.1f", v)
	}
	return results.FormatInt(int(math.Round(v)))
}

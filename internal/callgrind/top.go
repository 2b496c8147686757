package callgrind

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

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
		for _, t := range tops {
			fmt.Fprintf(w, "### %s\n\n%s per op: %s (%d ops)%s\n\n", cmp.Or(t.File, t.Label), t.Metric, formatCount(t.Total), t.Ops, storeNote(t))
			for _, part := range []struct {
				title string
				fs    []FuncCost
			}{{"own", t.Self}, {"inclusive", t.Inclusive}} {
				fmt.Fprintf(w, "| function | %s per op | share |\n| :-- | --: | --: |\n", part.title)
				for _, f := range part.fs {
					fmt.Fprintf(w, "| `%s`%s | %s | %.1f%% |\n", strings.ReplaceAll(f.Function, "`", "'"), storeMark(f), formatCount(f.Cost), 100*f.Share)
				}
				fmt.Fprintln(w)
			}
		}
		return nil
	case "text", "":
		for i, t := range tops {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s: %s %s per op (%d ops)%s\n", cmp.Or(t.File, t.Label), formatCount(t.Total), t.Metric, t.Ops, storeNote(t))
			for _, part := range []struct {
				title string
				fs    []FuncCost
			}{{"own", t.Self}, {"inclusive", t.Inclusive}} {
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
				fmt.Fprintf(tw, "  %s per op\tshare\t\t%s\n", part.title, "function")
				for _, f := range part.fs {
					fmt.Fprintf(tw, "  %s\t%.1f%%\t\t%s%s\n", formatCount(f.Cost), 100*f.Share, f.Function, storeMark(f))
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return fmt.Errorf("unknown format %q (want text, markdown or json)", format)
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

package cost

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/certbench/certbench/results"
	"github.com/google/pprof/profile"
)

// A Flame is a differential flame graph of one sample type: the head's
// stacks, root first, each frame with what it cost on each side.
type Flame struct {
	Sides
	StorePackages []string // frames of these packages are the store's
	// HeadRoot and BaseRoot are the roots of the call trees drawn sized
	// by each side (a frame per function and caller path), each frame
	// with both sides' values, inclusive.
	HeadRoot, BaseRoot *Frame
}

// A Frame is a function at one path of callers, with its value on both
// sides (totals over every op; see Flame.PerOp) and its callees.
type Frame struct {
	Function   string
	Head, Base int64 // inclusive
	Store      bool  // a store package's function
	Callees    []*Frame
}

// NewFlame returns the flame graph of sampleType of head against base:
// stacks merged per function along each path, as pprof's flame graph
// merges them (so a frame's total, summed over the frames of a function
// that are not below another of its frames, is pprof's cum).
func NewFlame(base, head *profile.Profile, sampleType string) (*Flame, error) {
	sides, bi, hi, _, _, err := newSides(base, head, sampleType)
	if err != nil {
		return nil, err
	}
	f := &Flame{Sides: sides, StorePackages: StorePackages(base, head)}
	f.HeadRoot, f.BaseRoot = &Frame{Function: "all"}, &Frame{Function: "all"}
	for i, side := range []struct {
		p   *profile.Profile
		idx int
	}{{head, hi}, {base, bi}} {
		for _, s := range side.p.Sample {
			if side.idx >= len(s.Value) || s.Value[side.idx] == 0 {
				continue
			}
			v := s.Value[side.idx]
			// Both trees get both values: the head's tree says what the
			// base cost at the same frames, and the other way round.
			for _, t := range []*Frame{f.HeadRoot, f.BaseRoot} {
				n := t
				n.add(i, v)
				for j := len(s.Location) - 1; j >= 0; j-- {
					loc := s.Location[j]
					if loc == nil {
						continue
					}
					for k := len(loc.Line) - 1; k >= 0; k-- {
						n = n.callee(frameName(loc.Line[k]), f.StorePackages)
						n.add(i, v)
					}
				}
			}
		}
	}
	f.BaseTotal, f.HeadTotal = float64(f.HeadRoot.Base), float64(f.HeadRoot.Head)
	return f, nil
}

func (n *Frame) add(side int, v int64) {
	if side == 0 {
		n.Head += v
	} else {
		n.Base += v
	}
}

func (n *Frame) callee(name string, store []string) *Frame {
	for _, c := range n.Callees {
		if c.Function == name {
			return c
		}
	}
	c := &Frame{Function: name, Store: slices.Contains(store, packageOf(name)) || slices.Contains(store, packageOf(modulePrefix+name))}
	n.Callees = append(n.Callees, c)
	return c
}

// Flame graph geometry, in pixels.
const (
	flameWidth = 1200
	flameRow   = 18
	flameChar  = 6.6 // the average width of a character of the frames' font
)

// flameLegend says how to read the flame graphs, once.
const flameLegend = "Each frame is a function at one path of callers, root at the top; width: its cost with its callees; " +
	"colour: red grew, blue shrank, the stronger the more; outlined: the store's code; hover a frame for its figures."

// WriteFlames writes the flame graphs as one self-contained file: an SVG
// (format "svg"), or an HTML page around it ("html"). Per flame, the
// head's tree is sized by the head's cost, and the base's by the base's
// (what shrank or went away shows there); frames are coloured by their
// change and the store's are outlined; each frame's tooltip has its
// figures per op and the totals they come from.
func WriteFlames(w io.Writer, format string, title string, flames []*Flame) error {
	var body strings.Builder
	y := 10.0
	if format == "svg" {
		fmt.Fprintf(&body, `<text x="0" y="%.0f" class="h">%s</text>`+"\n", y+14, html.EscapeString(title))
		fmt.Fprintf(&body, `<text x="0" y="%.0f">%s</text>`+"\n", y+32, html.EscapeString(flameLegend))
		y += 44
	}
	for _, f := range flames {
		per := ""
		if f.PerOp {
			per = " per op"
		}
		for _, panel := range []struct {
			root  *Frame
			head  bool
			title string
		}{
			{f.HeadRoot, true, "head (" + side(f.Sides.Head) + "): width is the head's cost, colour its change against the base"},
			{f.BaseRoot, false, "base (" + side(f.Sides.Base) + "): width is the base's cost, so what shrank or went away shows, colour the change to the head"},
		} {
			fmt.Fprintf(&body, `<text x="0" y="%.0f" class="h">%s%s — %s</text>`+"\n", y+14, html.EscapeString(f.SampleType), per, html.EscapeString(panel.title))
			y += 22
			total := panel.root.value(panel.head)
			if total <= 0 {
				fmt.Fprintf(&body, `<text x="0" y="%.0f">no samples</text>`+"\n", y+12)
				y += flameRow + 8
				continue
			}
			scale := float64(flameWidth) / float64(total)
			f.frame(&body, panel.root, 0, y, float64(flameWidth))
			depth := f.draw(&body, panel.root, panel.head, 0, y+flameRow, scale)
			y += float64(depth+1)*flameRow + 16
		}
	}
	svg := fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" viewBox="0 0 %d %.0f" font-family="sans-serif" font-size="11">
<style>text.h{font-size:13px;font-weight:bold} g:hover rect{stroke:#000;stroke-width:1}</style>
%s</svg>
`, flameWidth, y, flameWidth, y, body.String())
	switch format {
	case "svg":
		_, err := io.WriteString(w, svg)
		return err
	case "html":
		_, err := fmt.Fprintf(w, `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>%s</title>
<style>body{font-family:sans-serif;margin:16px} p{max-width:1200px}</style></head>
<body><h1>%s</h1><p>%s</p>
%s</body></html>
`, html.EscapeString(title), html.EscapeString(title), html.EscapeString(flameLegend), svg)
		return err
	}
	return fmt.Errorf("flame graph format %q: want svg or html", format)
}

// value is a frame's value on the panel's side.
func (n *Frame) value(head bool) int64 {
	if head {
		return n.Head
	}
	return n.Base
}

// draw draws n's callees (largest first) from x at row y, scale pixels a
// unit, and returns the depth drawn below y.
func (f *Flame) draw(w *strings.Builder, n *Frame, head bool, x, y, scale float64) int {
	cs := slices.Clone(n.Callees)
	slices.SortStableFunc(cs, func(a, b *Frame) int { return cmp.Compare(b.value(head), a.value(head)) })
	depth := 0
	for _, c := range cs {
		width := float64(c.value(head)) * scale
		if width < 0.5 {
			break
		}
		f.frame(w, c, x, y, width)
		depth = max(depth, 1+f.draw(w, c, head, x, y+flameRow, scale))
		x += width
	}
	return depth
}

// frame draws one frame.
func (f *Flame) frame(w *strings.Builder, n *Frame, x, y, width float64) {
	stroke := ""
	if n.Store {
		stroke = ` stroke="#111" stroke-width="1.5"`
	}
	fmt.Fprintf(w, `<g><title>%s</title><rect x="%.2f" y="%.0f" width="%.2f" height="%d" fill="%s"%s/>`,
		html.EscapeString(f.tooltip(n)), x, y, max(width-0.3, 0.2), flameRow-1, changeColour(n.Base, n.Head), stroke)
	if chars := int((width - 6) / flameChar); chars >= 3 {
		label := ShortName(n.Function)
		if len(label) > chars {
			label = label[:chars-2] + ".."
		}
		fmt.Fprintf(w, `<text x="%.2f" y="%.0f">%s</text>`, x+3, y+12, html.EscapeString(label))
	}
	w.WriteString("</g>\n")
}

// tooltip is a frame's figures: per op on each side, the change, and the
// totals they are made of.
func (f *Flame) tooltip(n *Frame) string {
	bd, hd := float64(max(f.Sides.Base.Ops, 1)), float64(max(f.Sides.Head.Ops, 1))
	b, h := float64(n.Base)/bd, float64(n.Head)/hd
	change := "new"
	if b != 0 {
		change = fmt.Sprintf("%+.2f%%", (h-b)/b*100)
	}
	store := ""
	if n.Store {
		store = " (the store's code)"
	}
	per := "per op"
	if !f.PerOp {
		per, bd, hd = "in all", 1, 1
	}
	return fmt.Sprintf("%s%s\nhead %s %s %s, base %s (%s %s, %s)\ntotals: head %d over %d ops, base %d over %d ops",
		n.Function, store, results.Format(h, f.Unit), f.SampleType, per, results.Format(b, f.Unit),
		results.FormatSigned(h-b, f.Unit), per, change, n.Head, f.Sides.Head.Ops, n.Base, f.Sides.Base.Ops)
}

// changeColour is a frame's colour: neutral when both sides cost the same,
// redder the more it grew, bluer the more it shrank.
func changeColour(base, head int64) string {
	if base == head {
		return "#e8e2cf"
	}
	r := float64(head-base) / float64(max(head, base))
	t := math.Sqrt(math.Abs(r)) // small changes still show
	mix := func(from, to int) int { return from + int(math.Round(float64(to-from)*t)) }
	if r > 0 {
		return fmt.Sprintf("#%02x%02x%02x", mix(0xe8, 0xd6), mix(0xe2, 0x27), mix(0xcf, 0x28))
	}
	return fmt.Sprintf("#%02x%02x%02x", mix(0xe8, 0x1f), mix(0xe2, 0x77), mix(0xcf, 0xb4))
}

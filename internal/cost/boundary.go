package cost

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// Boundary is what changed between two profiles at the boundary of the
// store under test: every sample is charged to the deepest frame of its
// stack in the store's packages, so what only moved between library
// functions below one store line cancels out, and a store line that grew
// is where the store's own code changed.
type Boundary struct {
	Sides
	StorePackages []string `json:"store_packages"` // see StorePackages
	// BaseOutside and HeadOutside are the values of the samples with no
	// store frame (the runtime's background work).
	BaseOutside float64 `json:"base_outside"`
	HeadOutside float64 `json:"head_outside"`
	// Lines holds every store line whose value changed, with the library
	// functions it called directly whose share changed, sorted as sortSites.
	Lines []Site `json:"lines"`
}

// Grew returns up to n (all when n <= 0) store lines whose value grew,
// largest growth first.
func (b *Boundary) Grew(n int) []Site { return moved(b.Lines, n, 1) }

// Shrank returns up to n (all when n <= 0) store lines whose value
// shrank, largest shrink first.
func (b *Boundary) Shrank(n int) []Site { return moved(b.Lines, n, -1) }

// ErrNoStore is returned (wrapped) by CompareBoundary when neither profile
// has a frame that can be taken for the store's.
var ErrNoStore = errors.New("no store frames in the profiles")

// CompareBoundary compares the named sample type of base and head, per op
// when both record their ops, at the boundary of the store under test
// (see [Boundary]), the store's packages found in both profiles. Store
// lines are matched per function by the library functions they call, so
// that a line added in head is the line that grew, not the lines it moved.
func CompareBoundary(base, head *profile.Profile, sampleType string) (*Boundary, error) {
	return CompareWindows([]*profile.Profile{base}, []*profile.Profile{head}, sampleType)
}

// CompareWindows is CompareBoundary of several windows a side (profiles of
// one benchmark at one op count): a store line's value on a side is its
// median over the side's windows, so that a cost that one window charged
// elsewhere, or that only one window had, does not show as a change.
func CompareWindows(bases, heads []*profile.Profile, sampleType string) (*Boundary, error) {
	if len(bases) == 0 || len(heads) == 0 {
		return nil, errors.New("profile: no windows to compare")
	}
	sides, bi, hi, bd, hd, err := newSides(bases[0], heads[0], sampleType)
	if err != nil {
		return nil, err
	}
	for _, ws := range [][]*profile.Profile{bases, heads} {
		for _, w := range ws[1:] {
			if err := CheckComparable(ws[0], w); err != nil {
				return nil, err
			}
			if InfoOf(w).Ops != InfoOf(ws[0]).Ops {
				return nil, fmt.Errorf("profile: windows of %d and %d ops", InfoOf(ws[0]).Ops, InfoOf(w).Ops)
			}
		}
	}
	pkgs := StorePackages(append(slices.Clone(bases), heads...)...)
	if len(pkgs) == 0 {
		return nil, ErrNoStore
	}
	in := map[string]bool{}
	for _, p := range pkgs {
		in[p] = true
	}
	b := &Boundary{Sides: sides, StorePackages: pkgs}
	charge := func(ws []*profile.Profile, idx int) *charged {
		var cs []*charged
		for _, w := range ws {
			cs = append(cs, chargeLines(w, idx, in))
		}
		return medianCharged(cs)
	}
	bs, hs := charge(bases, bi), charge(heads, hi)
	b.BaseTotal, b.HeadTotal = float64(bs.total)/bd, float64(hs.total)/hd
	b.BaseOutside, b.HeadOutside = float64(bs.outside)/bd, float64(hs.outside)/hd

	fns := maps.Clone(bs.lines) // the keys of both sides
	maps.Copy(fns, hs.lines)
	for fn := range fns {
		bl, hl := sortedLines(bs.lines[fn]), sortedLines(hs.lines[fn])
		for _, pr := range alignLines(bl, hl, bd, hd) {
			l := storeLine(fn, pr[0], pr[1], bd, hd)
			if l.Base != l.Head {
				b.Lines = append(b.Lines, l)
			}
		}
	}
	sortSites(b.Lines)
	return b, nil
}

// medianCharged returns one side's charges over its windows: each total,
// line and callee at its median over them (0 in a window without it).
func medianCharged(cs []*charged) *charged {
	if len(cs) == 1 {
		return cs[0]
	}
	med := func(v func(c *charged) int64) int64 {
		vals := make([]int64, len(cs))
		for i, c := range cs {
			vals[i] = v(c)
		}
		slices.Sort(vals)
		return (vals[(len(vals)-1)/2] + vals[len(vals)/2]) / 2
	}
	out := &charged{total: med(func(c *charged) int64 { return c.total }), outside: med(func(c *charged) int64 { return c.outside }),
		lines: map[string]map[int64]*chargedLine{}}
	for _, c := range cs {
		for fn, byLine := range c.lines {
			if out.lines[fn] == nil {
				out.lines[fn] = map[int64]*chargedLine{}
			}
			for line, cl := range byLine {
				if out.lines[fn][line] == nil {
					out.lines[fn][line] = &chargedLine{file: cl.file, line: line, callees: map[string]int64{}}
				}
				for callee := range cl.callees {
					out.lines[fn][line].callees[callee] = 0
				}
			}
		}
	}
	for fn, byLine := range out.lines {
		for line, ml := range byLine {
			get := func(c *charged) *chargedLine {
				if cl := c.lines[fn][line]; cl != nil {
					return cl
				}
				return &chargedLine{}
			}
			if ml.total = med(func(c *charged) int64 { return get(c).total }); ml.total == 0 {
				delete(byLine, line)
				continue
			}
			for callee := range ml.callees {
				if ml.callees[callee] = med(func(c *charged) int64 { return get(c).callees[callee] }); ml.callees[callee] == 0 {
					delete(ml.callees, callee)
				}
			}
		}
	}
	return out
}

// chargedLine is what the samples charged to one store line add up to.
type chargedLine struct {
	file    string
	line    int64
	total   int64
	callees map[string]int64 // by library function called; the store's own under ""
}

// charged is one side of a boundary comparison.
type charged struct {
	total, outside int64
	lines          map[string]map[int64]*chargedLine // by function and line
}

// chargeLines charges every sample of p with a value at index idx to the
// deepest of its frames whose package is in store.
func chargeLines(p *profile.Profile, idx int, store map[string]bool) *charged {
	c := &charged{lines: map[string]map[int64]*chargedLine{}}
	var frames []profile.Line
	for _, s := range p.Sample {
		if s == nil || idx >= len(s.Value) || s.Value[idx] == 0 {
			continue
		}
		v := s.Value[idx]
		c.total += v
		frames = frames[:0]
		for _, loc := range s.Location { // leaf first
			if loc != nil {
				frames = append(frames, loc.Line...) // innermost inlined call first
			}
		}
		at := slices.IndexFunc(frames, func(l profile.Line) bool {
			return l.Function != nil && store[packageOf(l.Function.Name)]
		})
		if at < 0 {
			c.outside += v
			continue
		}
		f := frames[at]
		fn := ShortName(f.Function.Name)
		byLine := c.lines[fn]
		if byLine == nil {
			byLine = map[int64]*chargedLine{}
			c.lines[fn] = byLine
		}
		cl := byLine[f.Line]
		if cl == nil {
			cl = &chargedLine{file: f.Function.Filename, line: f.Line, callees: map[string]int64{}}
			byLine[f.Line] = cl
		}
		cl.total += v
		callee := ""
		if at > 0 {
			callee = frameName(frames[at-1])
		}
		cl.callees[callee] += v
	}
	return c
}

// frameName returns the short name of a frame's function, or "?" for an
// unsymbolized one.
func frameName(l profile.Line) string {
	if l.Function == nil || l.Function.Name == "" {
		return "?"
	}
	return ShortName(l.Function.Name)
}

func sortedLines(m map[int64]*chargedLine) []*chargedLine {
	return slices.SortedFunc(maps.Values(m), func(x, y *chargedLine) int { return cmp.Compare(x.line, y.line) })
}

// alignLines pairs the lines of one store function in base and head, in
// line order, as a diff aligns two versions of a file: the most lines
// that call the same library functions (or one in common), and among
// equally good pairings the one whose pairs allocate most alike. An
// unpaired line comes back with nil for the other side.
func alignLines(bl, hl []*chargedLine, bd, hd float64) [][2]*chargedLine {
	type score struct {
		match int     // 2 per pair with the same callees, 1 per pair with some in common
		cost  float64 // sum over pairs of how differently they allocate, each in [0, 1]
	}
	better := func(x, y score) bool { return x.match > y.match || (x.match == y.match && x.cost < y.cost) }
	n, m := len(bl), len(hl)
	// best[i][j] is the best alignment of bl[i:] and hl[j:].
	best := make([][]score, n+1)
	for i := range best {
		best[i] = make([]score, m+1)
	}
	pair := func(i, j int) (score, bool) {
		k := calleeMatch(bl[i], hl[j])
		if k == 0 {
			return score{}, false
		}
		b, h := float64(bl[i].total)/bd, float64(hl[j].total)/hd
		diff := 0.0
		if b+h > 0 {
			diff = math.Abs(h-b) / (math.Abs(h) + math.Abs(b))
		}
		s := best[i+1][j+1]
		return score{s.match + k, s.cost + diff}, true
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			s := best[i+1][j]
			if t := best[i][j+1]; better(t, s) {
				s = t
			}
			if t, ok := pair(i, j); ok && better(t, s) {
				s = t
			}
			best[i][j] = s
		}
	}
	var out [][2]*chargedLine
	i, j := 0, 0
	for i < n && j < m {
		if t, ok := pair(i, j); ok && t == best[i][j] {
			out = append(out, [2]*chargedLine{bl[i], hl[j]})
			i, j = i+1, j+1
		} else if best[i+1][j] == best[i][j] {
			out = append(out, [2]*chargedLine{bl[i], nil})
			i++
		} else {
			out = append(out, [2]*chargedLine{nil, hl[j]})
			j++
		}
	}
	for ; i < n; i++ {
		out = append(out, [2]*chargedLine{bl[i], nil})
	}
	for ; j < m; j++ {
		out = append(out, [2]*chargedLine{nil, hl[j]})
	}
	return out
}

// calleeMatch returns 2 when two lines call the same functions (the
// store's own value as one), 1 when some in common, 0 when none.
func calleeMatch(x, y *chargedLine) int {
	common := 0
	for name := range x.callees {
		if _, ok := y.callees[name]; ok {
			common++
		}
	}
	switch {
	case common == 0:
		return 0
	case common == len(x.callees) && common == len(y.callees):
		return 2
	default:
		return 1
	}
}

// storeLine makes the site of a pair of aligned lines (either may be nil).
func storeLine(fn string, bl, hl *chargedLine, bd, hd float64) Site {
	l := Site{Function: fn}
	callees := map[string]*Site{}
	get := func(name string) *Site {
		if callees[name] == nil {
			callees[name] = &Site{Function: name}
		}
		return callees[name]
	}
	if bl != nil {
		l.File, l.Line, l.Base = bl.file, bl.line, float64(bl.total)/bd
		for name, v := range bl.callees {
			get(name).Base = float64(v) / bd
		}
	}
	if hl != nil {
		l.File, l.Line, l.Head = hl.file, hl.line, float64(hl.total)/hd
		for name, v := range hl.callees {
			get(name).Head = float64(v) / hd
		}
	}
	for name, c := range callees {
		if name != "" && c.Base != c.Head {
			l.Callees = append(l.Callees, *c)
		}
	}
	sortSites(l.Callees)
	return l
}

// StorePackages returns the sorted import paths of the packages taken to
// be the store's in the profiles: those of the outermost frames of their
// samples (stacks start at the store once the harness is cut off), but the
// standard library and the harness. Pass both profiles of a comparison, so
// that a wrapper store and the store it wraps are both found.
func StorePackages(ps ...*profile.Profile) []string {
	seen := map[string]bool{}
	for _, p := range ps {
		if p == nil {
			continue
		}
		for _, s := range p.Sample {
			if s == nil || len(s.Location) == 0 {
				continue
			}
			root := s.Location[len(s.Location)-1]
			if root == nil || len(root.Line) == 0 {
				continue
			}
			f := root.Line[len(root.Line)-1].Function // outermost inlined call last
			if f == nil {
				continue
			}
			if pkg := packageOf(f.Name); pkg != "" && !seen[pkg] && isStorePackage(pkg) {
				seen[pkg] = true
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// isStorePackage reports whether a package whose frame starts a stack can
// be the store's: not the standard library nor the harness.
func isStorePackage(pkg string) bool {
	if harnessPackages[pkg] {
		return false
	}
	first, _, _ := strings.Cut(pkg, "/")
	return strings.Contains(first, ".") || pkg == "main" || pkg == "command-line-arguments"
}

// packageOf returns the import path of the package of a Go symbol name
// ("github.com/a/b.(*T).M": "github.com/a/b"), ignoring type arguments,
// or "".
func packageOf(sym string) string {
	if i := strings.IndexByte(sym, '['); i >= 0 {
		sym = sym[:i]
	}
	slash := strings.LastIndexByte(sym, '/')
	dot := strings.IndexByte(sym[slash+1:], '.')
	if dot <= 0 {
		return ""
	}
	return sym[:slash+1+dot]
}

package profile

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"strings"

	pprofile "github.com/google/pprof/profile"
)

// Boundary is what changed between two profiles at the boundary of the
// store under test: every sample's value (an allocation, or any other
// cost) is charged to the deepest frame of its stack that is in one of
// the store's packages (StorePackages), its function and line, whatever
// library code below it incurred it. What only moved between library
// functions below the same store line cancels out; a store line that grew
// is where the store's own code changed.
type Boundary struct {
	Sides
	// StorePackages are the import paths taken to be the store's (see
	// StorePackages), sorted.
	StorePackages []string `json:"store_packages"`
	// BaseOutside and HeadOutside are the values of the samples with no
	// frame in the store's packages (the runtime's background work), which
	// no line is charged with.
	BaseOutside float64 `json:"base_outside"`
	HeadOutside float64 `json:"head_outside"`
	// Lines holds every store line whose value changed, as sites with the
	// library functions they called directly whose share changed (a cost
	// that moved deeper in the library shows in none), largest growth
	// first (ties: by function, then line).
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
// (see [Boundary]). The store's packages are found in both profiles (see
// [StorePackages]), so that a wrapper store on one side and the store it
// wraps on both are all store code.
//
// Store lines are matched between the two profiles per function, in line
// order, by the library functions they call, so that a line added to a
// function in head (which moves every later line of the file down) is
// the line that grew, not the lines it moved.
func CompareBoundary(base, head *pprofile.Profile, sampleType string) (*Boundary, error) {
	sides, bi, hi, bd, hd, err := newSides(base, head, sampleType)
	if err != nil {
		return nil, err
	}
	pkgs := StorePackages(base, head)
	if len(pkgs) == 0 {
		return nil, ErrNoStore
	}
	in := map[string]bool{}
	for _, p := range pkgs {
		in[p] = true
	}
	b := &Boundary{Sides: sides, StorePackages: pkgs}
	bs, hs := chargeLines(base, bi, in), chargeLines(head, hi, in)
	b.BaseTotal, b.HeadTotal = float64(bs.total)/bd, float64(hs.total)/hd
	b.BaseOutside, b.HeadOutside = float64(bs.outside)/bd, float64(hs.outside)/hd

	fns := map[string]bool{}
	for fn := range bs.lines {
		fns[fn] = true
	}
	for fn := range hs.lines {
		fns[fn] = true
	}
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

// chargedLine is what the samples charged to one store line add up to on
// one side.
type chargedLine struct {
	file  string
	line  int64
	total int64
	// callees holds the value per library function called directly from
	// the line; the store's own value on the line is under "".
	callees map[string]int64
}

// charged is one side of a boundary comparison.
type charged struct {
	total, outside int64
	// lines holds the charged lines per store function (short name) and
	// line number.
	lines map[string]map[int64]*chargedLine
}

// chargeLines charges every sample of p with a value at index idx to the
// deepest of its frames whose package is in store.
func chargeLines(p *pprofile.Profile, idx int, store map[string]bool) *charged {
	c := &charged{lines: map[string]map[int64]*chargedLine{}}
	var frames []pprofile.Line
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
		at := slices.IndexFunc(frames, func(l pprofile.Line) bool {
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
func frameName(l pprofile.Line) string {
	if l.Function == nil || l.Function.Name == "" {
		return "?"
	}
	return ShortName(l.Function.Name)
}

func sortedLines(m map[int64]*chargedLine) []*chargedLine {
	ls := make([]*chargedLine, 0, len(m))
	for _, l := range m {
		ls = append(ls, l)
	}
	slices.SortFunc(ls, func(x, y *chargedLine) int { return cmp.Compare(x.line, y.line) })
	return ls
}

// alignLines pairs the lines of one store function in base (bl) and head
// (hl), both in line order, the way a diff aligns two versions of a file:
// the most lines that call the same library functions (or at least one
// in common), in the same order, are paired, and among equally good
// pairings the one whose paired lines allocate most alike. bd and hd are
// the sides' divisors. Lines left unpaired come back with nil for the
// other side.
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
	for i := n; i >= 0; i-- {
		for j := m; j >= 0; j-- {
			if i == n || j == m {
				continue
			}
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

// calleeMatch returns 2 when two lines call the same set of functions
// (counting the store's own allocations as one), 1 when they have one in
// common, 0 when none.
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

// storeLine makes the site of a pair of aligned lines (either may be
// nil).
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

// StorePackages returns the import paths, sorted, of the packages taken to
// be the store's in the given profiles: the packages of the outermost
// frames of their samples (where stacks start once the harness is cut off:
// the store's Update, Certificate or factory, or a goroutine it started),
// leaving out the standard library (a path whose first element has no
// dot, other than main) and certbench's own harness packages. A wrapper
// store's package is found this way in the profile taken with the
// wrapper, the wrapped store's in the profile taken without it; pass both
// profiles to have both.
func StorePackages(ps ...*pprofile.Profile) []string {
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
	pkgs := make([]string, 0, len(seen))
	for pkg := range seen {
		pkgs = append(pkgs, pkg)
	}
	slices.Sort(pkgs)
	return pkgs
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

// packageOf returns the import path of the package of a Go symbol name:
// "github.com/a/b.(*T).M" gives "github.com/a/b", "slices.Clone[...]"
// gives "slices". Type arguments of a generic instantiation, which may
// name other packages, are ignored. It returns "" for a name with no
// package.
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

package callgrind

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A Metric turns a function's costs (one per event of its part) into the
// figure compared: instructions, or the cycle estimate.
type Metric struct {
	// Name is the metric's name for messages ("instructions").
	Name string
	of   func(p *Profile) (func(costs []uint64) float64, error)
}

// Instructions is the Ir event.
var Instructions = Metric{Name: "instructions", of: func(p *Profile) (func([]uint64) float64, error) {
	i := p.Event("Ir")
	if i < 0 {
		return nil, errors.New("no Ir event")
	}
	return func(c []uint64) float64 { return float64(c[i]) }, nil
}}

// EstimatedCycles is the cycle estimate of EstCycles, per function.
var EstimatedCycles = Metric{Name: "estimated cycles", of: func(p *Profile) (func([]uint64) float64, error) {
	ir := p.Event("Ir")
	var l1, ll []int
	for _, n := range []string{"I1mr", "D1mr", "D1mw"} {
		l1 = append(l1, p.Event(n))
	}
	for _, n := range []string{"ILmr", "DLmr", "DLmw"} {
		ll = append(ll, p.Event(n))
	}
	if ir < 0 || slices.Contains(l1, -1) || slices.Contains(ll, -1) {
		return nil, errors.New("no cache simulation events (run with --cache-sim)")
	}
	return func(c []uint64) float64 {
		v := float64(c[ir])
		for _, i := range l1 {
			v += L1MissCycles * float64(c[i])
		}
		for _, i := range ll {
			v += LLMissCycles * float64(c[i])
		}
		return v
	}, nil
}}

// A Change is what one function cost per op on each side of a comparison.
type Change struct {
	Function string
	// Base and Head are its cost per op: a store function's with the
	// library code it calls (see Compare), another's its own.
	Base, Head float64
	Callees    []Change // a store function's library callees that changed most, largest first
}

// Growth returns Head - Base.
func (c Change) Growth() float64 { return c.Head - c.Base }

// A Blame is the comparison of two callgrind windows of the same
// benchmark, function by function, per op.
type Blame struct {
	Metric               string
	BaseTotal, HeadTotal float64  // per op
	StorePackages        []string // empty without store code (changes are then by own cost)
	Changes              []Change // every function whose cost changed, largest growth first
}

// Grew returns up to n (all when n <= 0) changes that grew, largest
// first.
func (b *Blame) Grew(n int) []Change {
	out := slices.DeleteFunc(slices.Clone(b.Changes), func(c Change) bool { return c.Growth() <= 0 })
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// harnessPackages are certbench's packages that run stores: functions of
// theirs that call into a package make it a store package.
var harnessPackages = []string{"github.com/certbench/certbench/bench"}

// StorePackages returns, sorted, the packages of the functions the harness
// (package bench) calls directly in the windows, the standard library's
// and the harness's left out: the store's (a wrapper's and the wrapped's).
func StorePackages(ps ...*Profile) []string {
	seen := map[string]bool{}
	for _, p := range ps {
		if p == nil {
			continue
		}
		for _, f := range p.Functions {
			if !slices.Contains(harnessPackages, PackageOf(f.Name)) {
				continue
			}
			for _, c := range f.Calls {
				pkg := PackageOf(c.Callee.Name)
				if isStorePackage(pkg) {
					seen[pkg] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// isStorePackage reports whether pkg can be a store's: not the standard
// library (whose first path element has no dot), not the harness.
func isStorePackage(pkg string) bool {
	if pkg == "" || slices.Contains(harnessPackages, pkg) || pkg == "github.com/certbench/certbench/internal/callgrind" {
		return false
	}
	first, _, _ := strings.Cut(pkg, "/")
	return strings.Contains(first, ".") || pkg == "main"
}

// recursion matches the level suffix callgrind gives functions in a
// recursion ("f'2") unless run with --separate-recs=1.
var recursion = regexp.MustCompile(`'[0-9]+$`)

// FunctionName returns a symbol as Blame compares it: without callgrind's
// recursion level suffix ("f'2" is f).
func FunctionName(sym string) string { return recursion.ReplaceAllString(sym, "") }

// PackageOf returns the import path of the package of a Go symbol:
// "github.com/a/b.(*T).M" gives "github.com/a/b", "slices.Sort[...]"
// gives "slices", "crypto/x509.ParseCertificate" "crypto/x509". A symbol
// with no package (a C function such as "memmove") gives "".
func PackageOf(sym string) string {
	sym = FunctionName(sym)
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

// costs is one window's figures per function name, per op.
type costs struct {
	total    float64
	self     map[string]float64
	boundary map[string]float64            // store functions: own + library callees
	callees  map[string]map[string]float64 // store function -> library callee -> inclusive
}

func measure(p *Profile, ops float64, m Metric, store func(string) bool) (*costs, error) {
	of, err := m.of(p)
	if err != nil {
		return nil, err
	}
	c := &costs{self: map[string]float64{}, boundary: map[string]float64{}, callees: map[string]map[string]float64{}}
	var total []uint64
	for _, f := range p.Functions {
		name := FunctionName(f.Name)
		self := of(f.Self) / ops
		c.self[name] += self
		if total == nil {
			total = make([]uint64, len(f.Self))
		}
		for i, v := range f.Self {
			total[i] = addSat(total[i], v)
		}
		if !store(name) {
			continue
		}
		c.boundary[name] += self
		for _, call := range f.Calls {
			callee := FunctionName(call.Callee.Name)
			if store(callee) {
				continue // charged to the callee's own boundary
			}
			v := of(call.Inclusive) / ops
			c.boundary[name] += v
			if c.callees[name] == nil {
				c.callees[name] = map[string]float64{}
			}
			c.callees[name][callee] += v
		}
	}
	if total != nil {
		c.total = of(total) / ops
	}
	return c, nil
}

// maxCallees caps the library callees listed under a store function.
const maxCallees = 3

// Compare compares windows base and head of one benchmark per op on m.
// Each store function (StorePackages) is charged with its own cost and the
// inclusive cost of its calls into library code, so a change in how the
// store uses a library shows at the store's caller, and cost that only
// moved between library functions cancels. Without store code, every
// function is compared by its own cost.
func Compare(base, head *Profile, baseOps, headOps int, m Metric) (*Blame, error) {
	if base == nil || head == nil {
		return nil, errors.New("callgrind: nil profile")
	}
	if baseOps <= 0 || headOps <= 0 {
		return nil, fmt.Errorf("callgrind: ops %d and %d: want positive op counts", baseOps, headOps)
	}
	pkgs := StorePackages(base, head)
	store := func(name string) bool { return slices.Contains(pkgs, PackageOf(name)) }
	bc, err := measure(base, float64(baseOps), m, store)
	if err != nil {
		return nil, fmt.Errorf("callgrind: base: %w", err)
	}
	hc, err := measure(head, float64(headOps), m, store)
	if err != nil {
		return nil, fmt.Errorf("callgrind: head: %w", err)
	}
	b := &Blame{Metric: m.Name, BaseTotal: bc.total, HeadTotal: hc.total, StorePackages: pkgs}
	bv, hv := bc.boundary, hc.boundary
	if len(pkgs) == 0 {
		bv, hv = bc.self, hc.self
	}
	for _, name := range unionKeys(bv, hv) {
		ch := Change{Function: name, Base: bv[name], Head: hv[name]}
		if ch.Growth() == 0 {
			continue
		}
		bcs, hcs := bc.callees[name], hc.callees[name]
		for _, callee := range unionKeys(bcs, hcs) {
			if d := hcs[callee] - bcs[callee]; d != 0 {
				ch.Callees = append(ch.Callees, Change{Function: callee, Base: bcs[callee], Head: hcs[callee]})
			}
		}
		sortChanges(ch.Callees)
		ch.Callees = ch.Callees[:min(len(ch.Callees), maxCallees)]
		b.Changes = append(b.Changes, ch)
	}
	sortChanges(b.Changes)
	return b, nil
}

// sortChanges sorts by growth, largest first, then by name.
func sortChanges(cs []Change) {
	slices.SortStableFunc(cs, func(x, y Change) int {
		if c := cmp.Compare(y.Growth(), x.Growth()); c != 0 {
			return c
		}
		return strings.Compare(x.Function, y.Function)
	})
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.AppendSeq(slices.Collect(maps.Keys(a)), maps.Keys(b))
	slices.Sort(keys)
	return slices.Compact(keys)
}

// LabelValue returns the value of key in a window label of
// space-separated key=value words ("scenario=x store=y sample=3 ops=10"),
// and whether the label has it.
func LabelValue(label, key string) (string, bool) {
	for _, w := range strings.Fields(label) {
		if v, ok := strings.CutPrefix(w, key+"="); ok {
			return v, true
		}
	}
	return "", false
}

// Ops returns the op count a window's label records ("ops=N"), or 0.
func (p *Profile) Ops() int {
	l, _ := p.Label()
	v, _ := LabelValue(l, "ops")
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

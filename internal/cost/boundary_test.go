package cost_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/cost"
	"github.com/google/pprof/profile"
)

// frame is one frame of a synthetic stack: function and line.
type frame struct {
	fn   string
	line int64
}

// stackProfile builds a heap profile in bench.HeapProfile's layout from stacks
// (leaf first) with their alloc_objects and alloc_space totals over ops.
func stackProfile(t *testing.T, ops int, samples map[string][2]int64, stacks map[string][]frame) *profile.Profile {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: cost.AllocObjects, Unit: "count"}, {Type: cost.AllocSpace, Unit: "bytes"},
			{Type: cost.InuseObjects, Unit: "count"}, {Type: cost.InuseSpace, Unit: "bytes"},
		},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:     1,
		Comments:   []string{fmt.Sprintf("certbench: scenario=s store=st ops=%d", ops)},
	}
	fns := map[string]*profile.Function{}
	keys := make([]string, 0, len(samples))
	for k := range samples {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := &profile.Sample{Value: []int64{samples[k][0], samples[k][1], 0, 0}}
		for _, f := range stacks[k] {
			fn := fns[f.fn]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(fns) + 1), Name: f.fn, SystemName: f.fn, Filename: "/src/" + strings.Split(f.fn, ".")[0] + ".go"}
				fns[f.fn] = fn
				p.Function = append(p.Function, fn)
			}
			loc := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: f.line}}}
			p.Location = append(p.Location, loc)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return p
}

// The store line that grew comes first, even when a library allocation
// moved between functions by more, and when the added line moved every
// later line of the file down.
func TestCompareBoundaryBlamesTheStoreLine(t *testing.T) {
	const store = "github.com/x/mystore.(*Store).Update"
	const parse = "github.com/x/mystore.parse"
	stacks := map[string][]frame{
		// Update calls parse at line 20 (21 in head), parse calls
		// ParseCertificate at line 50 (51 in head: the file moved down).
		"ext":    {{"crypto/x509.parseExtKeyUsageExtension", 480}, {"crypto/x509.ParseCertificate", 1077}, {parse, 50}, {store, 20}},
		"nat":    {{"math/big.nat.make", 70}, {"crypto/x509.ParseCertificate", 1077}, {parse, 50}, {store, 20}},
		"self":   {{store, 30}},
		"bg":     {{"runtime.malg", 10}, {"runtime.bgscavenge", 5}},
		"ext2":   {{"crypto/x509.parseExtKeyUsageExtension", 480}, {"crypto/x509.ParseCertificate", 1077}, {parse, 51}, {store, 21}},
		"nat2":   {{"math/big.nat.make", 70}, {"crypto/x509.ParseCertificate", 1077}, {parse, 51}, {store, 21}},
		"self2":  {{store, 31}},
		"sprint": {{"fmt.Sprintf", 239}, {store, 15}},
	}
	// Per op over 10 ops: parse line 150 objects (100 + 50 in base,
	// 109 + 41 in head), Update's own 5, the new Sprintf 1.
	base := stackProfile(t, 10, map[string][2]int64{
		"ext": {1000, 64000}, "nat": {500, 32000}, "self": {50, 3200}, "bg": {7, 700},
	}, stacks)
	head := stackProfile(t, 10, map[string][2]int64{
		"ext2": {1090, 69760}, "nat2": {410, 26240}, "self2": {50, 3200}, "bg": {30, 3000}, "sprint": {10, 160},
	}, stacks)

	// The flat view (certbench profile diff) is unchanged: the move comes
	// first.
	c, err := cost.Changes(base, head, cost.AllocObjects)
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Grew(1, cost.ByFlat); len(g) != 1 || g[0].Function != "crypto/x509.parseExtKeyUsageExtension" {
		t.Fatalf("flat view: first grown %+v, want parseExtKeyUsageExtension", g)
	}

	b, err := cost.CompareBoundary(base, head, cost.AllocObjects)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(b.StorePackages, []string{"github.com/x/mystore"}) {
		t.Errorf("store packages %q, want github.com/x/mystore", b.StorePackages)
	}
	if b.BaseOutside != 0.7 || b.HeadOutside != 3 {
		t.Errorf("outside the store: %g and %g per op, want 0.7 and 3", b.BaseOutside, b.HeadOutside)
	}
	grew := b.Grew(0)
	if len(grew) != 1 {
		t.Fatalf("grown lines %+v, want the Sprintf line alone", grew)
	}
	l := grew[0]
	if l.Function != "github.com/x/mystore.(*Store).Update" || l.Line != 15 || l.Where() != "github.go:15" || l.Base != 0 || l.Head != 1 {
		t.Errorf("grown line %+v (%s), want Update line 15, 0 -> 1", l, l.Where())
	}
	if len(l.Callees) != 1 || l.Callees[0].Function != "fmt.Sprintf" || l.Callees[0].Growth() != 1 {
		t.Errorf("callees %+v, want fmt.Sprintf +1", l.Callees)
	}
	if s := b.Shrank(0); len(s) != 0 {
		t.Errorf("shrunk lines %+v, want none (moved lines are matched)", s)
	}

	// In bytes too: the move is even, the Sprintf line is all that grew.
	b, err = cost.CompareBoundary(base, head, cost.AllocSpace)
	if err != nil {
		t.Fatal(err)
	}
	if g := b.Grew(0); len(g) != 1 || g[0].Line != 15 || g[0].Growth() != 16 {
		t.Errorf("B/op grown lines %+v, want Update line 15 +16", g)
	}
	if s := b.Shrank(0); len(s) != 0 {
		t.Errorf("B/op shrunk lines %+v, want none", s)
	}
}

// Two lines that call the same function are told apart by what they
// allocate: the added one is the one that grew.
func TestCompareBoundaryAlignsLikeLines(t *testing.T) {
	const store = "github.com/x/mystore.(*Store).Update"
	stacks := map[string][]frame{
		"old":  {{"fmt.Sprintf", 239}, {store, 10}},
		"new":  {{"fmt.Sprintf", 239}, {store, 10}},
		"old2": {{"fmt.Sprintf", 239}, {store, 11}},
	}
	base := stackProfile(t, 1, map[string][2]int64{"old": {50, 800}}, stacks)
	// Head: a Sprintf line added above the old one, which moved to 11.
	head := stackProfile(t, 1, map[string][2]int64{"new": {1, 16}, "old2": {50, 800}}, stacks)
	b, err := cost.CompareBoundary(base, head, cost.AllocObjects)
	if err != nil {
		t.Fatal(err)
	}
	if g := b.Grew(0); len(g) != 1 || g[0].Line != 10 || g[0].Growth() != 1 {
		t.Errorf("grown lines %+v, want line 10 +1", g)
	}
	if s := b.Shrank(0); len(s) != 0 {
		t.Errorf("shrunk lines %+v, want none", s)
	}
}

func TestStorePackages(t *testing.T) {
	stacks := map[string][]frame{
		"store":   {{"fmt.Sprintf", 1}, {"github.com/x/mystore.(*Store).Update", 1}},
		"generic": {{"slices.Clone[go.shape.[]*github.com/x/other.entry,go.shape.*uint8]", 1}},
		"method":  {{"github.com/x/wrap.(*table[go.shape.string]).with", 1}},
		"main":    {{"main.init.0.func1", 1}},
		"runtime": {{"runtime.bgscavenge", 1}},
		"harness": {{"github.com/certbench/certbench/bench.Apply", 1}},
		"version": {{"gopkg.in/yaml%2ev3.Unmarshal", 1}},
	}
	p := stackProfile(t, 1, map[string][2]int64{
		"store": {1, 1}, "generic": {1, 1}, "method": {1, 1}, "main": {1, 1}, "runtime": {1, 1}, "harness": {1, 1}, "version": {1, 1},
	}, stacks)
	want := []string{"github.com/x/mystore", "github.com/x/wrap", "gopkg.in/yaml%2ev3", "main"}
	if got := cost.StorePackages(p); !slices.Equal(got, want) {
		t.Errorf("store packages %q, want %q", got, want)
	}
	// Only the standard library and the harness: no store, and the gate
	// falls back to functions.
	q := stackProfile(t, 1, map[string][2]int64{"runtime": {1, 1}, "harness": {1, 1}}, stacks)
	if _, err := cost.CompareBoundary(q, q, cost.AllocObjects); err == nil {
		t.Error("no store frames: no error")
	}
}

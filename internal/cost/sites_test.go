package cost_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/certbench/certbench/internal/golden"

	"github.com/certbench/certbench/internal/cost"
	"github.com/google/pprof/profile"
)

// heapTypes are the sample types of a heap profile.
func heapTypes() []*profile.ValueType {
	return []*profile.ValueType{
		{Type: cost.AllocObjects, Unit: "count"}, {Type: cost.AllocSpace, Unit: "bytes"},
		{Type: cost.InuseObjects, Unit: "count"}, {Type: cost.InuseSpace, Unit: "bytes"},
	}
}

// builder makes small synthetic profiles.
type builder struct {
	p     *profile.Profile
	funcs map[string]*profile.Function
}

func newBuilder(types []*profile.ValueType, comments ...string) *builder {
	return &builder{
		p: &profile.Profile{
			SampleType: types,
			PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
			Period:     1,
			Comments:   comments,
		},
		funcs: map[string]*profile.Function{},
	}
}

func (b *builder) fn(name string) *profile.Function {
	f, ok := b.funcs[name]
	if !ok {
		f = &profile.Function{ID: uint64(len(b.funcs) + 1), Name: name, SystemName: name}
		b.funcs[name] = f
		b.p.Function = append(b.p.Function, f)
	}
	return f
}

// loc makes a location; several names are inlined calls, innermost first.
func (b *builder) loc(names ...string) *profile.Location {
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Address: uint64(0x1000 + 0x10*len(b.p.Location))}
	for _, n := range names {
		l.Line = append(l.Line, profile.Line{Function: b.fn(n), Line: 1})
	}
	b.p.Location = append(b.p.Location, l)
	return l
}

// sample adds a sample; stack is leaf first, one location per entry.
func (b *builder) sample(values []int64, stack ...*profile.Location) {
	b.p.Sample = append(b.p.Sample, &profile.Sample{Location: stack, Value: values})
}

const (
	fnMain    = "main.main"
	fnUpdate  = "github.com/certbench/certbench/stores/demo.(*Store).Update"
	fnKeygen  = "crypto/rsa.GenerateKey"
	fnNat     = "math/big.nat.make"
	fnPEM     = "encoding/pem.Decode"
	fnRec     = "example.com/x.rec"
	fnHelper  = "example.com/x.helper"
	fnClone   = "strings.Clone"
	fnExtra   = "example.com/x.extra"
	shortDemo = "stores/demo.(*Store).Update"
)

// synthetic is a small heap profile of 2 ops with a recursive function and
// an inlined call.
func synthetic(extra int64) *profile.Profile {
	b := newBuilder(heapTypes(), "certbench: scenario=demo store=demo ops=2")
	main, upd := b.loc(fnMain), b.loc(fnUpdate)
	keygen, nat := b.loc(fnKeygen), b.loc(fnNat)
	pem, rec := b.loc(fnPEM), b.loc(fnRec)
	inl := b.loc(fnClone, fnHelper)
	b.sample([]int64{10, 4000, 2, 800}, nat, keygen, upd, main)
	b.sample([]int64{5, 1000, 5, 1000}, pem, upd, main)
	b.sample([]int64{3, 300, 0, 0}, rec, rec, rec, upd, main)
	b.sample([]int64{2, 64, 1, 32}, inl, upd, main)
	if extra > 0 {
		b.sample([]int64{1, extra, 0, 0}, b.loc(fnExtra), upd, main)
	}
	return b.p
}

func site(t *testing.T, tab *cost.Top, name string) cost.Func {
	t.Helper()
	for _, s := range tab.Funcs {
		if s.Function == name {
			return s
		}
	}
	t.Fatalf("no site %s in %+v", name, tab.Funcs)
	return cost.Func{}
}

func TestTopSitesFlatCum(t *testing.T) {
	p := synthetic(0)
	tab, err := cost.TopSites(p, cost.AllocSpace, 0, cost.ByFlat, true)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Total != 2682 || !tab.PerOp || tab.Unit != "bytes" {
		t.Errorf("table %+v, want total 2682 per op in bytes", tab)
	}
	for _, want := range []cost.Func{
		{Function: fnNat, Flat: 2000, Cum: 2000},
		{Function: fnKeygen, Flat: 0, Cum: 2000},
		{Function: fnPEM, Flat: 500, Cum: 500},
		{Function: fnRec, Flat: 150, Cum: 150}, // recursion counted once
		{Function: fnClone, Flat: 32, Cum: 32}, // the innermost inlined call is flat
		{Function: fnHelper, Flat: 0, Cum: 32},
		{Function: shortDemo, Flat: 0, Cum: 2682}, // module path dropped
		{Function: fnMain, Flat: 0, Cum: 2682},
	} {
		if got := site(t, tab, want.Function); got != want {
			t.Errorf("site %+v, want %+v", got, want)
		}
	}
	if tab.Funcs[0].Function != fnNat {
		t.Errorf("top flat site %s, want %s", tab.Funcs[0].Function, fnNat)
	}

	cum, err := cost.TopSites(p, cost.AllocObjects, 3, cost.ByCum, false)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cum.Funcs {
		names = append(names, s.Function)
	}
	// main and Update tie on cum and flat (20): by name; nat.make and
	// GenerateKey tie on cum (10): by flat.
	if want := []string{fnMain, shortDemo, fnNat}; strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("top 3 by cum: %v, want %v", names, want)
	}
	if cum.PerOp || cum.Total != 20 {
		t.Errorf("objects table %+v, want total 20, not per op", cum)
	}
}

func TestTopSitesErrors(t *testing.T) {
	p := synthetic(0)
	if _, err := cost.TopSites(p, "cpu", 5, cost.ByFlat, false); err == nil || !strings.Contains(err.Error(), "alloc_space") {
		t.Errorf("unknown sample type: err %v, want one listing the profile's types", err)
	}
	p.Comments = nil
	if _, err := cost.TopSites(p, cost.AllocSpace, 5, cost.ByFlat, true); err == nil {
		t.Error("per op without an op count: no error")
	}
	if _, err := cost.TopSites(nil, cost.AllocSpace, 5, cost.ByFlat, false); err == nil {
		t.Error("nil profile: no error")
	}
	if _, err := cost.Summarize(nil, 5); err == nil {
		t.Error("Summarize(nil): no error")
	}
	cpu := newBuilder([]*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}).p
	// Any profile summarizes, by its own sample types.
	if sum, err := cost.Summarize(cpu, 5); err != nil || len(sum.Totals) != 2 || sum.Totals[1].SampleType != "cpu" {
		t.Errorf("Summarize(cpu profile): %+v, %v", sum, err)
	}
}

func TestInfoRoundTrip(t *testing.T) {
	p := synthetic(0)
	p.Comments = []string{"certbench: scenario=s store=x ops=7 mem_bytes=100 mem_objects=3", "other"}
	path := filepath.Join(t.TempDir(), "p.pb.gz")
	if err := cost.Save(p, path); err != nil {
		t.Fatal(err)
	}
	q, err := cost.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := cost.Info{Scenario: "s", Store: "x", Ops: 7, MemBytes: 100, MemObjects: 3}
	if got := cost.InfoOf(q); got != want {
		t.Errorf("InfoOf = %+v, want %+v", got, want)
	}
	if got := cost.InfoOf(newBuilder(heapTypes()).p); got != (cost.Info{}) {
		t.Errorf("InfoOf(no comment) = %+v", got)
	}
}

func TestLoadNotAProfile(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"text.pb.gz":  []byte("BenchmarkChurn/scenario=x 1 2 ns/op\n"),
		"empty.pb.gz": nil,
		"gzip.pb.gz":  {0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad},
		"junk.pb.gz":  {0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := cost.Load(path)
		if err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Load(%s): err %v, want one naming the file", name, err)
		}
	}
	if _, err := cost.Load(filepath.Join(dir, "missing.pb.gz")); err == nil || !strings.Contains(err.Error(), "missing.pb.gz") {
		t.Errorf("Load(missing): err %v", err)
	}
}

func TestCompareAndDiff(t *testing.T) {
	base, head := synthetic(0), synthetic(600)
	// head has twice the ops: its values per op are halved.
	head.Comments = []string{"certbench: scenario=demo store=head ops=4"}
	for _, s := range head.Sample {
		for i := range s.Value {
			s.Value[i] *= 2
		}
	}
	c, err := cost.Changes(base, head, cost.AllocSpace)
	if err != nil {
		t.Fatal(err)
	}
	grew := c.Grew(0, cost.ByFlat)
	if len(grew) != 1 || grew[0].Function != fnExtra || grew[0].Growth() != 300 || grew[0].Base != 0 {
		t.Fatalf("grew = %+v, want only %s by 300/op", grew, fnExtra)
	}
	if len(c.Shrank(0, cost.ByFlat)) != 0 {
		t.Errorf("shrank = %+v, want none", c.Shrank(0, cost.ByFlat))
	}
	if !c.PerOp || c.BaseTotal != 2682 || c.HeadTotal != 2982 {
		t.Errorf("comparison %+v", c)
	}
	if g := c.Grew(1, cost.ByCum); len(g) != 1 || g[0].Growth() != 300 {
		t.Errorf("grew by cum = %+v", g)
	}

	d, err := cost.Diff(base, head)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := cost.TopSites(d, cost.AllocSpace, 0, cost.ByFlat, true)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Funcs[0].Function != fnExtra || tab.Funcs[0].Flat != 300 || tab.Total != 300 {
		t.Errorf("diff profile top %+v total %v, want %s 300/op", tab.Funcs[0], tab.Total, fnExtra)
	}
	if n := len(base.Sample); n != 4 || base.Sample[0].Value[1] != 4000 {
		t.Error("Diff modified base")
	}
	// The diff survives a round trip and pprof reads base samples as such.
	var buf bytes.Buffer
	if err := d.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := profile.Parse(&buf); err != nil {
		t.Fatal(err)
	}
	baseSamples := 0
	for _, s := range d.Sample {
		if s.DiffBaseSample() {
			baseSamples++
		}
	}
	if baseSamples == 0 {
		t.Error("no sample labelled as diff base")
	}
}

func TestCompareMismatchedTypes(t *testing.T) {
	heap := synthetic(0)
	cpu := newBuilder([]*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}).p
	var ste *cost.SampleTypeError
	if _, err := cost.Changes(heap, cpu, cost.AllocSpace); !errors.As(err, &ste) {
		t.Errorf("Compare(heap, cpu): err %v, want a SampleTypeError", err)
	} else if !strings.Contains(err.Error(), "cpu/nanoseconds") || !strings.Contains(err.Error(), "alloc_space/bytes") {
		t.Errorf("error %q does not list both sides' types", err)
	}
	if _, err := cost.Diff(heap, cpu); !errors.As(err, &ste) {
		t.Errorf("Diff(heap, cpu): err %v, want a SampleTypeError", err)
	}
	if _, err := cost.Diff(nil, heap); err == nil {
		t.Error("Diff(nil, heap): no error")
	}
}

func TestGoldenText(t *testing.T) {
	sum, err := cost.Summarize(synthetic(0), 4)
	if err != nil {
		t.Fatal(err)
	}
	sum.File = "demo.demo.pb.gz"
	sum.MemBytes, sum.MemObjects = 5300, 20
	var buf bytes.Buffer
	if err := cost.WriteSummaries(&buf, "text", []*cost.Summary{sum}); err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.txt", buf.Bytes())

	base, head := synthetic(0), synthetic(3000)
	head.Sample[1].Value[1] = 200 // pem.Decode shrinks
	c, err := cost.Changes(base, head, cost.AllocSpace)
	if err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	if err := cost.WriteComparisons(&buf, "text", []*cost.Comparison{c}, 3); err != nil {
		t.Fatal(err)
	}
	golden(t, "diff.txt", buf.Bytes())
}

func TestRenderFormats(t *testing.T) {
	sum, err := cost.Summarize(synthetic(0), 3)
	if err != nil {
		t.Fatal(err)
	}
	var md, js bytes.Buffer
	if err := cost.WriteSummaries(&md, "markdown", []*cost.Summary{sum}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| flat | flat% | cum | cum% | function |") || !strings.Contains(md.String(), "| math/big.nat.make |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := cost.WriteIndex(&js, "json", []*cost.Summary{sum}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"sample_type": "alloc_space"`) {
		t.Errorf("json:\n%s", js.String())
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

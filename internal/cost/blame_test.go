package cost_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/internal/regressions"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	_ "github.com/certbench/certbench/stores/optimized"
	"github.com/google/pprof/profile"
)

// writeHeapProfile writes a heap profile in the layout bench.HeapProfile
// produces: four sample types, the op count in a comment, and one sample
// per function with objects and bytes allocated in total over ops.
func writeHeapProfile(t *testing.T, dir, scenario, store string, ops int, allocs map[string][2]int64) {
	t.Helper()
	p := &profile.Profile{
		SampleType: []*profile.ValueType{
			{Type: cost.AllocObjects, Unit: "count"}, {Type: cost.AllocSpace, Unit: "bytes"},
			{Type: cost.InuseObjects, Unit: "count"}, {Type: cost.InuseSpace, Unit: "bytes"},
		},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
		Period:     1,
		Comments:   []string{"certbench: scenario=" + scenario + " store=" + store + " ops=" + strconv.Itoa(ops)},
	}
	var id uint64
	for name, v := range allocs {
		id++
		fn := &profile.Function{ID: id, Name: name, SystemName: name}
		loc := &profile.Location{ID: id, Line: []profile.Line{{Function: fn}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, loc)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{v[0], v[1], 0, 0}})
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if err := cost.Save(p, filepath.Join(dir, cost.FileName(scenario, store))); err != nil {
		t.Fatal(err)
	}
}

func TestDirsNameGrownSites(t *testing.T) {
	base, head := t.TempDir(), t.TempDir()
	const pkg = "github.com/certbench/certbench/stores/optimized."
	writeHeapProfile(t, base, "rotate-10-of-100", "optimized", 10, map[string][2]int64{
		pkg + "build":                  {1000, 100000},
		"crypto/x509.parseCertificate": {3100, 230000},
	})
	// Head: 20 ops; build allocates one more object (64 B) per op, parse the same per op.
	writeHeapProfile(t, head, "rotate-10-of-100", "optimized", 20, map[string][2]int64{
		pkg + "build":                  {2020, 201280},
		"crypto/x509.parseCertificate": {6200, 460000},
	})
	d := cost.Folders{Base: base, Head: head}
	sites, err := d.GrownSites("rotate-10-of-100", "optimized", "allocs/op", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) != 1 || sites[0].Function != "stores/optimized.build" || sites[0].Base != 100 || sites[0].Head != 101 {
		t.Fatalf("sites %+v, want stores/optimized.build 100 -> 101 per op", sites)
	}
	sites, err = d.GrownSites("rotate-10-of-100", "optimized", "B/op", 5)
	if err != nil || len(sites) != 1 || sites[0].Growth() != 64 {
		t.Fatalf("B/op sites %+v, %v; want build +64 B/op", sites, err)
	}
	if _, err := d.GrownSites("lookup-1000", "optimized", "allocs/op", 5); !errors.Is(err, cost.ErrNoProfiles) {
		t.Errorf("missing profile: error %v, want ErrNoProfiles", err)
	}
	if _, err := d.GrownSites("rotate-10-of-100", "optimized", "sec/op", 5); err == nil {
		t.Error("sec/op sites: no error")
	}
	// Nothing grew: an explanation, not an empty list.
	same := cost.Folders{Base: base, Head: base}
	if _, err := same.GrownSites("rotate-10-of-100", "optimized", "allocs/op", 5); err == nil || !strings.Contains(err.Error(), "no store line") {
		t.Errorf("identical profiles: error %v", err)
	}
}

// evaluateFiles gates head against base with the default policy.
func evaluateFiles(t *testing.T, base, head string) *gate.Verdict {
	t.Helper()
	b, err := results.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	h, err := results.Load(head)
	if err != nil {
		t.Fatal(err)
	}
	v, err := gate.Evaluate(b, h, gate.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestDirsSitesThroughTheVerdict(t *testing.T) {
	base, head := t.TempDir(), t.TempDir()
	writeHeapProfile(t, base, "rotate-10-of-100", "optimized", 10, map[string][2]int64{"main.f": {11910, 847440}})
	writeHeapProfile(t, head, "rotate-10-of-100", "optimized", 10, map[string][2]int64{"main.f": {11910, 847440}, "main.g": {10, 160}})
	v := evaluateFiles(t, "../ci/gate/testdata/base.txt", "../ci/gate/testdata/alloc1.txt")
	v.AddSites(cost.Folders{Base: base, Head: head}, 3)
	var f *gate.Finding
	for _, fd := range v.Findings {
		if fd.Scenario == "rotate-10-of-100" && fd.Unit == "allocs/op" {
			f = fd
		}
	}
	if f == nil {
		t.Fatal("no rotate-10-of-100 allocs/op finding")
	}
	if len(f.Sites) != 1 || f.Sites[0].Function != "main.g" || f.Sites[0].Growth() != 1 {
		t.Errorf("sites %+v, want main.g +1 per op", f.Sites)
	}
}

// sprintfStore is a store with one fmt.Sprintf more per Update than the
// store it wraps: the regression the boundary view must blame on the
// Sprintf line, in this (the wrapper's) package.
type sprintfStore struct {
	certstore.Store
}

var sprintfSink string

// Update adds a Sprintf to the wrapped store's Update.
func (s *sprintfStore) Update(cfg *certstore.Config) error {
	sprintfSink = fmt.Sprintf("update %p", cfg) // the extra Sprintf
	return s.Store.Update(cfg)
}

// Close closes the wrapped store.
func (s *sprintfStore) Close() error {
	if c, ok := s.Store.(certstore.Closer); ok {
		return c.Close()
	}
	return nil
}

// lineOf returns the number of the first line of a file containing text.
func lineOf(t *testing.T, file, text string) int64 {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := int64(1); sc.Scan(); n++ {
		if strings.Contains(sc.Text(), text) {
			return n
		}
	}
	t.Fatalf("%s: no line with %q", file, text)
	return 0
}

func factory(t *testing.T, name string) certstore.Factory {
	t.Helper()
	info, err := certstore.LookupFactory(name)
	if err != nil {
		t.Fatal(err)
	}
	return info.New
}

func scenario(t *testing.T, name string) scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc[0]
}

// gateSites captures base and head profiles of rotate-10-of-100, writes
// them where "certbench profile --all" would, and returns the sites the
// gate names for allocs/op, and the boundary comparison.
func gateSites(t *testing.T, newBase, newHead certstore.Factory) ([]cost.Site, *cost.Boundary) {
	t.Helper()
	sc := scenario(t, "rotate-10-of-100")
	dirs := cost.Folders{Base: t.TempDir(), Head: t.TempDir()}
	var ps []*profile.Profile
	for _, side := range []struct {
		dir string
		new certstore.Factory
	}{{dirs.Base, newBase}, {dirs.Head, newHead}} {
		p, err := bench.HeapProfile(side.new, "optimized", sc, 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := cost.Save(p, filepath.Join(side.dir, cost.FileName(sc.Name, "optimized"))); err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	sites, err := dirs.GrownSites(sc.Name, "optimized", results.UnitAllocs, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cost.CompareBoundary(ps[0], ps[1], cost.AllocObjects)
	if err != nil {
		t.Fatal(err)
	}
	return sites, b
}

// checkStoreSites fails if a site is a crypto/... or math/big function
// (none can be, at the boundary: sites are store lines).
func checkStoreSites(t *testing.T, sites []cost.Site) {
	t.Helper()
	for _, s := range sites {
		if strings.HasPrefix(s.Function, "crypto/") || strings.HasPrefix(s.Function, "math/big") {
			t.Errorf("library function %s named as a site: %+v", s.Function, sites)
		}
	}
}

// One more fmt.Sprintf per Update in a wrapper: the gate names the
// Sprintf line first, with fmt.Sprintf below it.
func TestGateBlamesTheSprintfLine(t *testing.T) {
	optimized := factory(t, "optimized")
	sites, b := gateSites(t, optimized, func() certstore.Store { return &sprintfStore{Store: optimized()} })
	t.Logf("store packages %q", b.StorePackages)
	for _, s := range sites {
		t.Logf("%+g %s; callees %+v", s.Growth(), s.Label(), s.Callees)
	}
	if !slices.Contains(b.StorePackages, "github.com/certbench/certbench/internal/cost_test") ||
		!slices.Contains(b.StorePackages, "github.com/certbench/certbench/stores/optimized") {
		t.Errorf("store packages %q, want the wrapper's and the wrapped store's", b.StorePackages)
	}
	checkStoreSites(t, sites)
	first := sites[0]
	line := lineOf(t, "blame_test.go", "// the extra Sprintf")
	if first.Function != "internal/cost_test.(*sprintfStore).Update" || filepath.Base(first.File) != "blame_test.go" || first.Line != line {
		t.Fatalf("first site %s, want internal/cost_test.(*sprintfStore).Update (blame_test.go:%d)", first.Label(), line)
	}
	// One string per Sprintf, and fmt's printer and its buffer now and
	// then: the heap snapshots' collections empty sync.Pool, and under
	// -race it drops printers at random.
	if first.Base != 0 || first.Growth() < 1 {
		t.Errorf("first site %+v, want 0 -> at least 1 per op", first)
	}
	if len(first.Callees) == 0 || first.Callees[0].Function != "fmt.Sprintf" || first.Callees[0].Growth() != first.Growth() {
		t.Errorf("callees %+v, want fmt.Sprintf with all of the growth", first.Callees)
	}
}

// The allocs variant (one 16-byte object per certificate per Update):
// the gate names the variant's allocating line, with its exact growth.
func TestGateBlamesTheAllocsVariant(t *testing.T) {
	optimized := factory(t, "optimized")
	sites, _ := gateSites(t, optimized, regressions.Wrap(regressions.Allocs, optimized))
	for _, s := range sites {
		t.Logf("%+g %s; callees %+v", s.Growth(), s.Label(), s.Callees)
	}
	checkStoreSites(t, sites)
	w, err := scenario(t, "rotate-10-of-100").Build(3)
	if err != nil {
		t.Fatal(err)
	}
	certs := float64(len(w.Configs[1].Certificates))
	first := sites[0]
	line := lineOf(t, "../../internal/regressions/regressions.go", "sinkBlob = &blob{")
	if first.Function != "internal/regressions.(*store).Update" || filepath.Base(first.File) != "regressions.go" || first.Line != line {
		t.Fatalf("first site %s, want internal/regressions.(*store).Update (regressions.go:%d)", first.Label(), line)
	}
	if first.Base != 0 || first.Head != certs || len(first.Callees) != 0 {
		t.Errorf("first site %+v, want 0 -> %g per op, allocated by the line itself", first, certs)
	}
}

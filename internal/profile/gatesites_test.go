package profile_test

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/internal/profile"
	pprofile "github.com/google/pprof/profile"
)

// writeHeapProfile writes a heap profile in the layout profile.Capture
// produces: four sample types, the op count in a comment, and one sample
// per function with objects and bytes allocated in total over ops.
func writeHeapProfile(t *testing.T, dir, scenario, store string, ops int, allocs map[string][2]int64) {
	t.Helper()
	p := &pprofile.Profile{
		SampleType: []*pprofile.ValueType{
			{Type: profile.AllocObjects, Unit: "count"}, {Type: profile.AllocSpace, Unit: "bytes"},
			{Type: profile.InuseObjects, Unit: "count"}, {Type: profile.InuseSpace, Unit: "bytes"},
		},
		PeriodType: &pprofile.ValueType{Type: "space", Unit: "bytes"},
		Period:     1,
		Comments:   []string{"certbench: scenario=" + scenario + " store=" + store + " ops=" + strconv.Itoa(ops)},
	}
	var id uint64
	for name, v := range allocs {
		id++
		fn := &pprofile.Function{ID: id, Name: name, SystemName: name}
		loc := &pprofile.Location{ID: id, Line: []pprofile.Line{{Function: fn}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, loc)
		p.Sample = append(p.Sample, &pprofile.Sample{Location: []*pprofile.Location{loc}, Value: []int64{v[0], v[1], 0, 0}})
	}
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if err := profile.Save(p, filepath.Join(dir, profile.FileName(scenario, store))); err != nil {
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
	d := profile.Dirs{Base: base, Head: head}
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
	if _, err := d.GrownSites("lookup-1000", "optimized", "allocs/op", 5); !errors.Is(err, gate.ErrNoProfiles) {
		t.Errorf("missing profile: error %v, want ErrNoProfiles", err)
	}
	if _, err := d.GrownSites("rotate-10-of-100", "optimized", "sec/op", 5); err == nil {
		t.Error("sec/op sites: no error")
	}
	// Nothing grew: an explanation, not an empty list.
	same := profile.Dirs{Base: base, Head: base}
	if _, err := same.GrownSites("rotate-10-of-100", "optimized", "allocs/op", 5); err == nil || !strings.Contains(err.Error(), "no function") {
		t.Errorf("identical profiles: error %v", err)
	}
}

// evaluateFiles gates head against base with the default policy.
func evaluateFiles(t *testing.T, base, head string) *gate.Verdict {
	t.Helper()
	b, err := compare.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	h, err := compare.Load(head)
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
	v := evaluateFiles(t, "../gate/testdata/base.txt", "../gate/testdata/alloc1.txt")
	v.AddSites(profile.Dirs{Base: base, Head: head}, 3)
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

package cost

import (
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// modulePath is certbench's module: the path this package is built with
// starts with it, and the build information, when the binary has it, names
// it as the main module (a test binary's).
func TestModulePath(t *testing.T) {
	pkg := reflect.TypeFor[Info]().PkgPath()
	if !strings.HasPrefix(pkg, modulePrefix) {
		t.Fatalf("package path %s is not under module %s", pkg, modulePath)
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path != "" && bi.Main.Path != modulePath {
		t.Errorf("the test binary's main module is %s, want %s", bi.Main.Path, modulePath)
	}
	if got, want := ShortName(pkg+".Load"), strings.TrimPrefix(pkg, modulePrefix)+".Load"; got != want {
		t.Errorf("ShortName(%s.Load) = %s, want %s", pkg, got, want)
	}
	if !harnessPackages[modulePrefix+"bench"] || isStorePackage(modulePrefix+"bench") {
		t.Errorf("package bench, where capture runs the store, is not a harness package")
	}
}

// cutHarness leaves stacks that start at the store, and keeps a sample the
// harness allocated itself as its one harness location. The runtime makes
// such samples on the harness's behalf now and then: a type assertion
// (closeStore's) builds its cache at random, and the heap profile hides
// the runtime's frames, so the allocation is charged to the harness
// function.
func TestCutHarness(t *testing.T) {
	const (
		update = "example.com/mystore.(*Store).Update"
		helper = "example.com/mystore.parse"
		parse  = "crypto/x509.ParseCertificate"
		runner = "testing.tRunner"
	)
	var (
		inner   = modulePrefix + "bench.apply"
		outer   = modulePrefix + "bench.Apply"
		closeFn = modulePrefix + "bench.closeStore"
		capture = modulePrefix + "bench.captureHeap"
	)
	for _, tc := range []struct {
		name        string
		stack, want [][]string // leaf first; each location's lines innermost first
	}{
		{"through the store",
			[][]string{{parse}, {update}, {inner}, {outer, capture}, {runner}},
			[][]string{{parse}, {update}}},
		{"the harness's own allocation",
			[][]string{{closeFn, inner}, {outer, capture}, {runner}},
			[][]string{{closeFn, inner}}},
		{"store code inlined into the harness",
			[][]string{{helper, inner}, {outer, capture}, {runner}},
			[][]string{{helper}}},
		{"a goroutine the store started",
			[][]string{{parse}, {update + ".func1"}},
			[][]string{{parse}, {update + ".func1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := stackProfile(tc.stack)
			CutHarness(p)
			if got := stackNames(p.Sample[0]); !slices.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("stack %v, want %v", got, tc.want)
			}
			if err := p.CheckValid(); err != nil {
				t.Error(err)
			}
		})
	}
}

// stackProfile returns a heap profile of one sample with the given stack.
func stackProfile(stack [][]string) *profile.Profile {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
	}
	fns := map[string]*profile.Function{}
	s := &profile.Sample{Value: []int64{1, 48}}
	for _, lines := range stack {
		loc := &profile.Location{ID: uint64(len(p.Location) + 1)}
		for _, name := range lines {
			fn := fns[name]
			if fn == nil {
				fn = &profile.Function{ID: uint64(len(fns) + 1), Name: name, SystemName: name}
				fns[name] = fn
				p.Function = append(p.Function, fn)
			}
			loc.Line = append(loc.Line, profile.Line{Function: fn, Line: 1})
		}
		p.Location = append(p.Location, loc)
		s.Location = append(s.Location, loc)
	}
	p.Sample = []*profile.Sample{s}
	return p
}

// stackNames returns a sample's function names per location.
func stackNames(s *profile.Sample) [][]string {
	var out [][]string
	for _, loc := range s.Location {
		var names []string
		for _, l := range loc.Line {
			names = append(names, l.Function.Name)
		}
		out = append(out, names)
	}
	return out
}

package gobench

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/ab"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
)

// tinyModule writes a module with one package whose benchmark calls
// work, whose body is given.
func tinyModule(t *testing.T, body string, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":              "module example.com/tiny\n\ngo 1.22\n",
		"lib/lib.go":          "package lib\n\nvar sink [][]byte\n\n// Work allocates.\nfunc Work() {\n" + body + "}\n",
		"lib/lib_test.go":     "package lib\n\nimport \"testing\"\n\nfunc BenchmarkWork(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tWork()\n\t}\n}\n\nfunc TestNothing(t *testing.T) {}\n",
		"other/other.go":      "package other\n",
		"other/other_test.go": "package other\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) {}\n",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		files[extra[i]] = extra[i+1]
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestRunGatesAndNamesSites builds a base whose benchmark makes one
// allocation per op and a head that makes two (in a function of its own),
// runs 4 rounds, gates them and asks Sites for the function that grew.
func TestRunGatesAndNamesSites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	base := tinyModule(t, "\tsink = append(sink[:0], make([]byte, 64))\n")
	head := tinyModule(t, "\tsink = append(sink[:0], make([]byte, 64))\n\textra()\n}\n\nfunc extra() {\n\tsink = append(sink, make([]byte, 128))\n")
	before, _ := os.ReadFile(filepath.Join(head, "go.mod"))
	opts := Options{Base: base, Head: head, Packages: []string{"./..."}, Rounds: 4, Benchtime: "50x", Out: t.TempDir()}
	res, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Packages) != 1 || res.Packages[0].ImportPath != "example.com/tiny/lib" {
		t.Fatalf("packages = %+v, want example.com/tiny/lib only (other has no benchmarks)", res.Packages)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "example.com/tiny/other has no benchmarks") {
		t.Errorf("notes = %q, want one saying other has no benchmarks", res.Notes)
	}
	b, err := results.Load(res.Base)
	if err != nil {
		t.Fatal(err)
	}
	h, err := results.Load(res.Head)
	if err != nil {
		t.Fatal(err)
	}
	var max gate.Thresholds
	if err := max.Set("sec/op=off"); err != nil {
		t.Fatal(err)
	}
	policy, err := gate.ResolvePolicy(gate.PolicyFlags{NoConfig: true, Max: max})
	if err != nil {
		t.Fatal(err)
	}
	v, err := gate.Evaluate(b, h, policy)
	if err != nil {
		t.Fatal(err)
	}
	if v.Passed() {
		t.Fatal("the gate passed a head with one more allocation per op")
	}
	v.AddSites(&Sites{Ctx: t.Context(), Options: opts, Result: res}, 3)
	var allocs *gate.Finding
	for _, f := range v.Findings {
		if f.Unit == results.UnitAllocs {
			allocs = f
		}
	}
	if allocs == nil || allocs.Status != gate.Regressed {
		t.Fatalf("allocs/op finding = %+v, want regressed", allocs)
	}
	if len(allocs.Sites) == 0 || !strings.Contains(allocs.Sites[0].Function, "extra") {
		t.Fatalf("sites = %+v, want example.com/tiny/lib.extra first (problems: %+v)", allocs.Sites, v.Problems)
	}
	if grew := allocs.Sites[0].Growth(); grew < 0.9 || grew > 1.1 {
		t.Errorf("extra grew by %.2f allocations per iteration, want about 1", grew)
	}
	if after, _ := os.ReadFile(filepath.Join(head, "go.mod")); string(after) != string(before) {
		t.Errorf("the head tree's go.mod changed:\n%s", after)
	}
	raw, _ := os.ReadFile(filepath.Join(opts.Out, "raw", "head.2.0.txt"))
	if !strings.HasPrefix(string(raw), "round: 2\n") || !strings.Contains(string(raw), "BenchmarkWork") {
		t.Errorf("raw/head.2.0.txt = %q, want round 2's BenchmarkWork", raw)
	}
}

func TestRunBadInput(t *testing.T) {
	dir := tinyModule(t, "")
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Base: dir, Head: dir, Packages: []string{"./lib"}, Rounds: 1, Benchtime: "1s"}, "want a fixed iteration count"},
		{Options{Base: dir, Head: dir, Packages: []string{"./lib"}, Rounds: 0}, "rounds 0"},
		{Options{Base: dir, Head: dir, Packages: []string{"./lib"}, Rounds: 1, Bench: "("}, "bench \"(\""},
		{Options{Base: dir, Head: dir, Packages: []string{"./nothing/..."}, Rounds: 1}, "./nothing/..."},
	} {
		c.opts.Out = t.TempDir()
		_, err := Run(t.Context(), c.opts)
		var ie *ab.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run(%+v) = %v, want an *InputError with %q", c.opts, err, c.want)
		}
	}
}

func TestTopLevel(t *testing.T) {
	for in, want := range map[string]string{
		"Work":                       "BenchmarkWork",
		"Manager_UpdateConfigs/n=10": "BenchmarkManager_UpdateConfigs",
		"BenchmarkX":                 "BenchmarkX",
		"Work-2":                     "BenchmarkWork",
		"Work/n=1-2":                 "BenchmarkWork",
	} {
		if got := topLevel(in); got != want {
			t.Errorf("topLevel(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRunHeadOnlyAndRemoved runs a head that adds BenchmarkNew and removes
// BenchmarkOld: BenchmarkNew runs into head-only.txt, not head.txt, and
// BenchmarkOld is listed as removed. BenchmarkNew runs in the first
// HeadOnlyRounds rounds only.
func TestRunHeadOnlyAndRemoved(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	bench := func(name string) string {
		return "package lib\n\nimport \"testing\"\n\nfunc Benchmark" + name + "(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tWork()\n\t}\n}\n"
	}
	base := tinyModule(t, "", "lib/old_test.go", bench("Old"))
	head := tinyModule(t, "", "lib/new_test.go", bench("New"))
	res, err := Run(t.Context(), Options{Base: base, Head: head, Packages: []string{"./lib"}, Rounds: HeadOnlyRounds + 1, Benchtime: "5x", Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Packages[0]
	if !slices.Equal(p.Benchmarks, []string{"BenchmarkWork"}) || !slices.Equal(p.HeadOnly, []string{"BenchmarkNew"}) || !slices.Equal(p.BaseOnly, []string{"BenchmarkOld"}) {
		t.Fatalf("benchmarks %q, head only %q, base only %q", p.Benchmarks, p.HeadOnly, p.BaseOnly)
	}
	for file, want := range map[string][2]string{res.Head: {"BenchmarkWork", "BenchmarkNew"}, res.HeadOnly: {"BenchmarkNew", "BenchmarkWork"}, res.Base: {"BenchmarkWork", "BenchmarkOld"}} {
		set, err := results.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range set.Series {
			names = append(names, string(s.Name))
		}
		n := HeadOnlyRounds + 1
		if file == res.HeadOnly {
			n = HeadOnlyRounds
		}
		if j := strings.Join(names, " "); !strings.Contains(j, strings.TrimPrefix(want[0], "Benchmark")) || strings.Contains(j, strings.TrimPrefix(want[1], "Benchmark")) || set.Samples() != n {
			t.Errorf("%s holds %s (%d samples), want %s's %d and no %s", filepath.Base(file), j, set.Samples(), want[0], n, want[1])
		}
	}
}

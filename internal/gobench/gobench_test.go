package gobench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ab"
	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/results"
)

// tinyModule writes a module with one package whose benchmark calls
// work, whose body is given.
func tinyModule(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":              "module example.com/tiny\n\ngo 1.22\n",
		"lib/lib.go":          "package lib\n\nvar sink [][]byte\n\n// Work allocates.\nfunc Work() {\n" + body + "}\n",
		"lib/lib_test.go":     "package lib\n\nimport \"testing\"\n\nfunc BenchmarkWork(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\tWork()\n\t}\n}\n\nfunc TestNothing(t *testing.T) {}\n",
		"other/other.go":      "package other\n",
		"other/other_test.go": "package other\n\nimport \"testing\"\n\nfunc TestOther(t *testing.T) {}\n",
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
	policy, err := gate.ResolvePolicy(gate.PolicyFlags{NoConfig: true, Set: gate.Policy{Max: max}, Given: []string{"max"}})
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

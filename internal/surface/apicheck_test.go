package surface

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var release = flag.String("release", "", "write the current public API as the baseline of this release (e.g. v0.1.0) under api/")

// TestCompatible fails when an exported name of a public package was
// removed or changed since the last release without that release having
// deprecated it. A release stores its baseline with
//
//	go test ./internal/surface -run TestCompatible -release vX.Y.Z
func TestCompatible(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and type-checks every public package")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "api")
	if *release != "" {
		if err := Write(filepath.Join(dir, *release+".zip"), cur); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote the API of %d packages as %s", len(cur.Packages), *release)
		return
	}
	base, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if base == "" {
		t.Fatal("no release baseline under api/")
	}
	old, err := Read(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range Compare(old, cur) {
		t.Errorf("%s (%s): incompatible change; keep the old name, mark it \"Deprecated:\" for one release, then remove it", p, filepath.Base(base))
	}
}

// check type-checks one small package from source.
func check(t *testing.T, src string) *types.Package {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", "package p\n"+src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := new(types.Config).Check(Module+"/p", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

func TestCompare(t *testing.T) {
	const old = `
func F(int) {}
// Deprecated: use F.
func G() {}
type T struct{ A int }
func (T) M() {}
// Deprecated: use T.
type U struct{ B int }
`
	for _, tc := range []struct {
		name, cur string
		dropPkg   bool
		deprecate []string
		want      int
	}{
		{name: "unchanged", cur: old, want: 0},
		{name: "additions are compatible", cur: old + "func H() {}\ntype V int\n", want: 0},
		{name: "removed", cur: strings.Replace(old, "func F(int) {}", "", 1), want: 1},
		{name: "re-signed", cur: strings.Replace(old, "func F(int) {}", "func F(string) {}", 1), want: 1},
		{name: "removed after deprecation", cur: strings.Replace(old, "func G() {}", "", 1), want: 0},
		{name: "method removed", cur: strings.Replace(old, "func (T) M() {}", "", 1), want: 1},
		{name: "field removed", cur: strings.Replace(old, "A int", "", 1), want: 1},
		{name: "deprecated type's field removed", cur: strings.Replace(old, "B int", "", 1), want: 0},
		{name: "package removed", dropPkg: true, want: 1},
		{name: "deprecated package removed", dropPkg: true, deprecate: []string{"p."}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p.go", "package p\n"+old, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			o := &API{Packages: map[string]*types.Package{"p": check(t, old)}, Deprecated: append(deprecated("p", []*ast.File{f}), tc.deprecate...)}
			c := &API{Packages: map[string]*types.Package{}}
			if !tc.dropPkg {
				c.Packages["p"] = check(t, tc.cur)
			}
			got := Compare(o, c)
			if len(got) != tc.want {
				t.Errorf("Compare: %d problems %v, want %d (deprecated %q)", len(got), got, tc.want, o.Deprecated)
			}
		})
	}
}

func TestDeprecatedNames(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", `// Deprecated: use q.
package p
// Deprecated: use T.
type U struct {
	// Deprecated: gone.
	F int
}
type T int
// Deprecated: use N.
func (T) M() {}
// Deprecated: use X.
var V, W int
// not deprecated
func X() {}
`, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := deprecated("p", []*ast.File{f})
	want := []string{"p.", "p.U", "p.U.F", "p.T.M", "p.V", "p.W"}
	if !slices.Equal(got, want) {
		t.Errorf("deprecated = %q, want %q", got, want)
	}
}

package peerbuild

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// goFiles returns the names of the non-test .go files in dir, sorted.
func goFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") &&
			!strings.HasPrefix(n, ".") && !strings.HasPrefix(n, "_") {
			names = append(names, n)
		}
	}
	return names, nil
}

// importsOf returns what the Go files of dir import, ignoring build
// constraints (a superset of what any build of them imports).
func importsOf(dir string, files []string) ([]string, error) {
	var out []string
	for _, n := range files {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.ImportsOnly)
		if err != nil {
			return nil, err
		}
		for _, spec := range f.Imports {
			if p, err := strconv.Unquote(spec.Path.Value); err == nil && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// inModule reports whether the import path p is mod or a package below it.
func inModule(p, mod string) bool {
	return p == mod || strings.HasPrefix(p, mod+"/")
}

// closure returns the packages of the tree's module that roots import,
// directly or not, sorted, and adds what they import to t.imports; a
// directory with a go.mod of its own is another module, not followed.
func (t *tree) closure(roots []string) ([]string, error) {
	mod := t.mod.Module.Path
	seen := map[string]bool{}
	queue := slices.Clone(roots)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		dir := t.pkgDir(p)
		if p != mod {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				delete(seen, p) // a nested module: not this tree's package
				continue
			}
		}
		names, err := goFiles(dir)
		if err != nil || len(names) == 0 {
			return nil, fmt.Errorf("package %s: no Go files in %s", p, dir)
		}
		imps, err := importsOf(dir, names)
		if err != nil {
			return nil, err
		}
		t.imports = append(t.imports, imps...)
		for _, imp := range imps {
			if inModule(imp, mod) && !seen[imp] {
				queue = append(queue, imp)
			}
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// pkgDir is the directory of the tree's package p.
func (t *tree) pkgDir(p string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(p, t.mod.Module.Path), "/")
	return filepath.Join(t.dir, filepath.FromSlash(rel))
}

// rewriter rewrites the import paths of the packages it knows.
type rewriter struct {
	from, to string            // module path prefix, original and private
	alias    string            // the path the adapter imports from as (the kind's module path)
	pkgs     map[string]bool   // the packages copied, by original path
	deps     map[string]string // modules copied for the side, to their private path (isolate.go)
}

// path returns the rewritten import path of p, or p.
func (r *rewriter) path(p string) string {
	if r.alias != "" && inModule(p, r.alias) {
		p = r.from + strings.TrimPrefix(p, r.alias)
	}
	if r.pkgs[p] {
		return r.to + strings.TrimPrefix(p, r.from)
	}
	for mod, to := range r.deps {
		if inModule(p, mod) {
			return to + strings.TrimPrefix(p, mod)
		}
	}
	return p
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// rewrite returns src with the imports of copied packages rewritten and
// the edits applied, its lines unchanged (so that errors' positions hold).
func (r *rewriter) rewrite(name string, src []byte, edits ...edit) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	for _, spec := range f.Imports {
		if p, _ := strconv.Unquote(spec.Path.Value); r.path(p) != p {
			edits = append(edits, edit{fset.Position(spec.Path.Pos()).Offset, fset.Position(spec.Path.End()).Offset, strconv.Quote(r.path(p))})
		}
	}
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var b bytes.Buffer
	last := 0
	for _, e := range edits {
		b.Write(src[last:e.start])
		b.WriteString(e.text)
		last = e.end
	}
	b.Write(src[last:])
	return b.Bytes(), nil
}

// copyPackages copies the tree's packages pkgs into dst (the copy's root).
func (t *tree) copyPackages(dst string, pkgs []string, r *rewriter) error {
	for _, p := range pkgs {
		rel, err := filepath.Rel(t.dir, t.pkgDir(p))
		if err != nil {
			return err
		}
		if err := copyDir(t.pkgDir(p), filepath.Join(dst, rel), r); err != nil {
			return err
		}
	}
	return nil
}

// copyDir copies the files of the package directory src but its tests,
// rewritten by r, and the directories their //go:embed patterns reach into
// (copied before their own packages, which then overwrite) into out.
func copyDir(src, out string, r *rewriter) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	embedded := map[string]bool{}
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || strings.HasSuffix(n, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			return err
		}
		if strings.HasSuffix(n, ".go") {
			if b, err = r.rewrite(filepath.Join(src, n), b); err != nil {
				return err
			}
			for l := range strings.Lines(string(b)) {
				rest, ok := strings.CutPrefix(strings.TrimSpace(l), "//go:embed ")
				if !ok {
					continue
				}
				for _, pat := range strings.Fields(rest) {
					if u, err := strconv.Unquote(pat); err == nil {
						pat = u
					}
					first, _, _ := strings.Cut(strings.TrimPrefix(pat, "all:"), "/")
					dirs, _ := filepath.Glob(filepath.Join(src, first)) // files in src are copied anyway
					for _, d := range dirs {
						if fi, err := os.Stat(d); err == nil && fi.IsDir() && !embedded[d] {
							embedded[d] = true
							if err := os.CopyFS(filepath.Join(out, filepath.Base(d)), os.DirFS(d)); err != nil {
								return fmt.Errorf("%s: //go:embed %s: %w", filepath.Join(src, n), pat, err)
							}
						}
					}
				}
			}
		}
		if err := os.WriteFile(filepath.Join(out, n), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// nameConst is the adapter's string constant that holds its store name.
const nameConst = "Name"

// headerLines is the number of lines generateAdapter puts before the
// adapter's source: error lines are shifted back by it.
const headerLines = 2

// generateAdapter writes the adapter's files from dir into out, rewritten
// by r, //go:build lines blanked (selectFiles chose) and nameConst = store.
func generateAdapter(dir string, files []string, display, out string, r *rewriter, store string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	named := false
	for _, n := range files {
		src, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		var edits []edit
		if _, start, end := buildLine(src); end > 0 {
			edits = append(edits, edit{start: start, end: end})
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				for _, s := range gd.Specs {
					vs := s.(*ast.ValueSpec)
					i := slices.IndexFunc(vs.Names, func(id *ast.Ident) bool { return id.Name == nameConst })
					if i < 0 || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						return fmt.Errorf("%s: %s is not a string literal", filepath.Join(dir, n), nameConst)
					}
					edits = append(edits, edit{fset.Position(lit.Pos()).Offset, fset.Position(lit.End()).Offset, strconv.Quote(store)})
					named = true
				}
			}
		}
		b, err := r.rewrite(filepath.Join(dir, n), src, edits...)
		if err != nil {
			return err
		}
		header := "// Code generated by certbench peer build from " + path.Join(display, n) + ". DO NOT EDIT.\n\n"
		if err := os.WriteFile(filepath.Join(out, n), append([]byte(header), b...), 0o644); err != nil {
			return err
		}
	}
	if !named {
		return fmt.Errorf("the adapter in %s declares no string constant %s (the store's registered name)", dir, nameConst)
	}
	return nil
}

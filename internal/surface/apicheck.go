// Package apicheck keeps certbench's public API compatible with its last
// release: the packages a store author imports may grow, but an exported
// name is removed or re-signed only after a release that marked it
// deprecated. The API of a release is stored under api/ as export data
// (golang.org/x/exp/apidiff's module format) with the list of names that
// release deprecated; golang.org/x/exp/apidiff does the comparison.
package surface

import (
	"archive/zip"
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/exp/apidiff"
	"golang.org/x/mod/semver"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

// Module is certbench's module path.
const Module = "github.com/certbench/certbench"

// Public reports whether the package at path (relative to the module, ""
// for the root) is part of the public API: not internal, not a command,
// not an example or a peer adapter (those are modules or programs of their
// own).
func Public(rel string, isMain bool) bool {
	if isMain {
		return false
	}
	for _, p := range strings.Split(rel, "/") {
		switch p {
		case "internal", "cmd", "examples", "peers", "testdata":
			return false
		}
	}
	return true
}

// API is the public API of one version of the module.
type API struct {
	// Packages by path relative to the module ("bench", "stores/naive").
	Packages map[string]*types.Package
	// Deprecated lists "pkg.Name" and "pkg.Type.Member" that carry a
	// "Deprecated:" paragraph, relative package paths as in Packages.
	Deprecated []string
}

// Load loads the public packages of the module whose root is dir.
func Load(dir string) (*API, error) {
	fset := token.NewFileSet()
	cfg := &packages.Config{
		Dir:  dir,
		Fset: fset,
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedModule,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, err
	}
	api := &API{Packages: map[string]*types.Package{}}
	for _, p := range pkgs {
		if p.Module == nil || p.Module.Path != Module {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, Module), "/")
		if !Public(rel, p.Name == "main") {
			continue
		}
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("%s: %v", p.PkgPath, p.Errors[0])
		}
		api.Packages[rel] = p.Types
		api.Deprecated = append(api.Deprecated, deprecated(rel, p.Syntax)...)
	}
	slices.Sort(api.Deprecated)
	return api, nil
}

// deprecated returns the exported names of files whose doc comment has a
// "Deprecated:" paragraph, qualified by rel.
func deprecated(rel string, files []*ast.File) []string {
	var out []string
	add := func(doc *ast.CommentGroup, name string) {
		if doc != nil && ast.IsExported(lastPart(name)) && isDeprecated(doc.Text()) {
			out = append(out, rel+"."+name)
		}
	}
	for _, f := range files {
		if f.Doc != nil && isDeprecated(f.Doc.Text()) {
			out = append(out, rel+".")
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				name := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) == 1 {
					name = recvName(d.Recv.List[0].Type) + "." + name
				}
				add(d.Doc, name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						doc := s.Doc
						if doc == nil {
							doc = d.Doc
						}
						add(doc, s.Name.Name)
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								for _, n := range fld.Names {
									add(fld.Doc, s.Name.Name+"."+n.Name)
								}
							}
						}
					case *ast.ValueSpec:
						doc := s.Doc
						if doc == nil {
							doc = d.Doc
						}
						for _, n := range s.Names {
							add(doc, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

func lastPart(name string) string {
	return name[strings.LastIndexByte(name, '.')+1:]
}

func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// isDeprecated reports whether a doc comment has a paragraph that starts
// with "Deprecated: ", the convention go doc and gopls recognise.
func isDeprecated(doc string) bool {
	for _, para := range strings.Split(doc, "\n\n") {
		if strings.HasPrefix(strings.TrimSpace(para), "Deprecated: ") {
			return true
		}
	}
	return false
}

// Write stores api as a release baseline: the zip file that apidiff's -m
// mode reads (an entry "module" with the module path and one entry of
// export data per package) and, beside it, a text file of the deprecated
// names (path with ".deprecated" instead of ".zip").
func Write(path string, api *API) error {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, err := z.Create("module")
	if err != nil {
		return err
	}
	io.WriteString(w, Module)
	fset := token.NewFileSet()
	for _, rel := range slices.Sorted(maps.Keys(api.Packages)) {
		w, err := z.Create(api.Packages[rel].Path() + ".x")
		if err != nil {
			return err
		}
		if err := gcexportdata.Write(w, fset, api.Packages[rel]); err != nil {
			return fmt.Errorf("%s: %v", rel, err)
		}
	}
	if err := z.Close(); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(deprecatedPath(path), []byte(strings.Join(api.Deprecated, "\n")+"\n"), 0o644)
}

func deprecatedPath(zipPath string) string {
	return strings.TrimSuffix(zipPath, ".zip") + ".deprecated"
}

// Read reads a baseline that Write stored.
func Read(path string) (*API, error) {
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	api := &API{Packages: map[string]*types.Package{}}
	fset := token.NewFileSet()
	for _, e := range z.File {
		r, err := e.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, err
		}
		pkgPath, ok := strings.CutSuffix(e.Name, ".x")
		if !ok {
			continue // "module"
		}
		pkg, err := gcexportdata.Read(bytes.NewReader(data), fset, map[string]*types.Package{}, pkgPath)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", path, pkgPath, err)
		}
		api.Packages[strings.TrimPrefix(strings.TrimPrefix(pkgPath, Module), "/")] = pkg
	}
	dep, err := os.ReadFile(deprecatedPath(path))
	if err != nil {
		return nil, err
	}
	api.Deprecated = strings.Fields(string(dep))
	return api, nil
}

// Latest returns the path of the newest release baseline in dir (by the
// semantic version in its name, "v0.1.0.zip"), or "" when there is none.
func Latest(dir string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "v*.zip"))
	if err != nil {
		return "", err
	}
	best := ""
	for _, n := range names {
		v := strings.TrimSuffix(filepath.Base(n), ".zip")
		if semver.IsValid(v) && (best == "" || semver.Compare(v, strings.TrimSuffix(filepath.Base(best), ".zip")) > 0) {
			best = n
		}
	}
	return best, nil
}

// Problem is an incompatible change that the compatibility promise does
// not allow: the old name was not deprecated in the release.
type Problem struct {
	// Package is the package's path relative to the module.
	Package string
	// Message is apidiff's description ("Foo: removed").
	Message string
}

func (p Problem) String() string {
	if p.Package == "" {
		return p.Message
	}
	return p.Package + ": " + p.Message
}

// Compare returns the incompatible changes from old to cur that old did
// not announce by deprecating the name (or its package) first.
func Compare(old, cur *API) []Problem {
	deprecated := map[string]bool{}
	for _, d := range old.Deprecated {
		deprecated[d] = true
	}
	var out []Problem
	for _, rel := range slices.Sorted(maps.Keys(old.Packages)) {
		op := old.Packages[rel]
		np, ok := cur.Packages[rel]
		if !ok {
			if !deprecated[rel+"."] {
				out = append(out, Problem{Message: fmt.Sprintf("package %s removed without a release that deprecated it", op.Path())})
			}
			continue
		}
		for _, c := range apidiff.Changes(op, np).Changes {
			if c.Compatible || announced(deprecated, rel, subject(c.Message)) {
				continue
			}
			out = append(out, Problem{Package: rel, Message: c.Message})
		}
	}
	return out
}

// subject returns the name an apidiff message is about, as the deprecated
// list spells it: "Foo: removed" gives "Foo", "(*T).M: changed ..." gives
// "T.M".
func subject(msg string) string {
	name, _, _ := strings.Cut(msg, ": ")
	return strings.NewReplacer("(*", "", "(", "", ")", "").Replace(name)
}

// announced reports whether the release deprecated name or, for a member
// ("T.M"), its type.
func announced(deprecated map[string]bool, rel, name string) bool {
	if deprecated[rel+"."] || deprecated[rel+"."+name] {
		return true
	}
	typ, _, member := strings.Cut(name, ".")
	return member && deprecated[rel+"."+typ]
}

package surface

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Imports returns, for every package of the module at dir (relative
// paths, "" for the root), the packages of the module it imports in its
// non-test files.
func Imports(dir string) (map[string][]string, error) {
	pkgs, err := packages.Load(&packages.Config{Dir: dir, Mode: packages.NeedName | packages.NeedImports | packages.NeedModule}, "./...")
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, p := range pkgs {
		if p.Module == nil || p.Module.Path != Module {
			continue
		}
		rel := relPath(p.PkgPath)
		var own []string
		for path := range p.Imports {
			if path == Module || strings.HasPrefix(path, Module+"/") {
				own = append(own, relPath(path))
			}
		}
		slices.Sort(own)
		out[rel] = own
	}
	return out, nil
}

func relPath(pkgPath string) string {
	return strings.TrimPrefix(strings.TrimPrefix(pkgPath, Module), "/")
}

// Rule is what one package is for and which packages of the module it may
// import.
type Rule struct {
	Package string
	Job     string
	May     []string
}

// Violations returns the imports that rules do not allow, and the
// packages that have no rule.
func Violations(imports map[string][]string, rules []Rule) []string {
	byPkg := map[string]Rule{}
	for _, r := range rules {
		byPkg[r.Package] = r
	}
	var out []string
	for _, p := range slices.Sorted(maps.Keys(imports)) {
		r, ok := byPkg[p]
		if !ok {
			out = append(out, fmt.Sprintf("%s: no rule says what it is for and what it may import", p))
			continue
		}
		for _, imp := range imports[p] {
			if !allowed(r.May, imp) {
				out = append(out, fmt.Sprintf("%s imports %s", p, imp))
			}
		}
	}
	return out
}

// allowed reports whether imp matches one of may: a package path, or a
// prefix ending in "/..." for a tree.
func allowed(may []string, imp string) bool {
	for _, m := range may {
		if m == "..." && !strings.HasPrefix(imp, "internal/") {
			return true
		}
		if m == imp || (strings.HasSuffix(m, "/...") && strings.HasPrefix(imp, strings.TrimSuffix(m, "..."))) {
			return true
		}
	}
	return false
}

package peerbuild

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A side whose tree requires a module at a lower major version than
// another side's, under the same path (certmagic v0.20 requires libdns
// v0.2, v0.25 libdns v1), would be built with the other side's: minimum
// version selection gives both the highest, whose API differs. Such a
// module is copied for that side, as its tree is, under a path of its own,
// and the side's packages import the copy.

// planIsolation sets, on each tree, the modules it requires at a lower
// major version than another tree does.
func planIsolation(trees []*tree) {
	highest := map[string]int{}
	for _, t := range trees {
		for mod, v := range t.requires() {
			highest[mod] = max(highest[mod], major(v))
		}
	}
	for _, t := range trees {
		for mod, v := range t.requires() {
			if major(v) < highest[mod] {
				if t.behind == nil {
					t.behind = map[string]string{}
				}
				t.behind[mod] = v
			}
		}
	}
}

// requires maps the modules the tree's go.mod requires to their versions.
func (t *tree) requires() map[string]string {
	out := map[string]string{}
	if t.mod != nil {
		for _, r := range t.mod.Require {
			out[r.Path] = r.Version
		}
	}
	return out
}

// major is a version's major number: 0 for v0.2.1, 1 for v1.1.1.
func major(v string) int {
	var n int
	fmt.Sscanf(strings.TrimPrefix(v, "v"), "%d", &n)
	return n
}

// isolate copies into work/dep/SIDE the modules the tree is behind on that
// its packages pkgs import, and returns their private paths by module path.
func (t *tree) isolate(ctx context.Context, pkgs []string, work string) (map[string]string, error) {
	if len(t.behind) == 0 {
		return nil, nil
	}
	used := map[string]bool{}
	for _, p := range pkgs {
		dir := t.pkgDir(p)
		names, _ := goFiles(dir)
		for _, n := range names {
			imps, err := imports(filepath.Join(dir, n))
			if err != nil {
				return nil, err
			}
			for _, imp := range imps {
				for mod := range t.behind {
					if inModule(imp, mod) {
						used[mod] = true
					}
				}
			}
		}
	}
	deps := map[string]string{}
	for _, mod := range slices.Sorted(maps.Keys(used)) {
		private := "certbench.invalid/" + t.side.Name + "/dep/" + mod
		src, err := download(ctx, mod+"@"+t.behind[mod])
		if err != nil {
			return nil, &InputError{Err: fmt.Errorf("%s: %w", t.side, err)}
		}
		dst := filepath.Join(work, "dep", t.side.Name, filepath.FromSlash(mod))
		if err := copyModule(src, dst, mod, private); err != nil {
			return nil, fmt.Errorf("copying %s@%s for %s: %w", mod, t.behind[mod], t.side, err)
		}
		deps[mod] = private
		t.isolated = append(t.isolated, fmt.Sprintf("require %s v0.0.0-00010101000000-000000000000\nreplace %s => ./dep/%s/%s\n", private, private, t.side.Name, mod))
	}
	return deps, nil
}

var moduleLine = regexp.MustCompile(`(?m)^module\s+\S+\s*$`)

// copyModule copies the module at src (its packages' files but tests, and
// no nested module, testdata or vendor directory) to dst under the module
// path private, rewriting its imports of itself.
func copyModule(src, dst, mod, private string) error {
	r := &rewriter{deps: map[string]string{mod: private}}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n := d.Name()
		if d.IsDir() {
			if p == src {
				return nil
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil || n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(n, "_test.go") || (p == filepath.Join(src, "go.mod")) {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(n, ".go") {
			if b, err = r.rewrite(p, b); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if err != nil {
		gomod = []byte("module " + mod + "\n")
	}
	gomod = moduleLine.ReplaceAll(gomod, []byte("module "+private))
	return os.WriteFile(filepath.Join(dst, "go.mod"), gomod, 0o644)
}

// appendIsolated adds the sides' copied modules to the build module's
// go.mod in work.
func appendIsolated(work string, trees []*tree) error {
	var lines string
	for _, t := range trees {
		lines += strings.Join(t.isolated, "")
	}
	if lines == "" {
		return nil
	}
	f, err := os.OpenFile(filepath.Join(work, "go.mod"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(lines); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package peerbuild

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// planIsolation sets, on each tree, the modules it requires at a lower
// major version than another tree does.
func planIsolation(trees []*tree) {
	highest := map[string]int{}
	for _, t := range trees {
		for _, r := range t.mod.Require {
			highest[r.Path] = max(highest[r.Path], major(r.Version))
		}
	}
	for _, t := range trees {
		t.behind = map[string]string{}
		for _, r := range t.mod.Require {
			if major(r.Version) < highest[r.Path] {
				t.behind[r.Path] = r.Version
			}
		}
	}
}

// major is a version's major number: 0 for v0.2.1, 1 for v1.1.1.
func major(v string) int {
	var n int
	fmt.Sscanf(strings.TrimPrefix(v, "v"), "%d", &n)
	return n
}

// isolate copies into work/dep/SIDE the modules t is behind on that its
// packages import, and returns their private paths by module path.
func (t *tree) isolate(ctx context.Context, work string) (map[string]string, error) {
	deps := map[string]string{}
	for _, mod := range slices.Sorted(maps.Keys(t.behind)) {
		if !slices.ContainsFunc(t.imports, func(imp string) bool { return inModule(imp, mod) }) {
			continue
		}
		private := "certbench.invalid/" + t.side.Name + "/dep/" + mod
		src, err := download(ctx, mod+"@"+t.behind[mod])
		if err != nil {
			return nil, &InputError{Err: fmt.Errorf("%s: %w", t.side, err)}
		}
		dir := "dep/" + t.side.Name + "/" + mod
		if err := copyModule(ctx, src, filepath.Join(work, filepath.FromSlash(dir)), mod, private); err != nil {
			return nil, fmt.Errorf("copying %s@%s for %s: %w", mod, t.behind[mod], t.side, err)
		}
		deps[mod] = private
		t.copies = append(t.copies, [2]string{private, "./" + dir})
	}
	return deps, nil
}

// copyModule copies the module mod at src (but tests, nested modules,
// testdata, vendor) to dst under the module path private.
func copyModule(ctx context.Context, src, dst, mod, private string) error {
	r := &rewriter{deps: map[string]string{mod: private}}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if n := d.Name(); p != src {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil || n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
		}
		rel, _ := filepath.Rel(src, p)
		return copyDir(p, filepath.Join(dst, rel), r)
	})
	if err != nil {
		return err
	}
	return writeModFile(ctx, src, dst, private)
}

// writeModFile writes dst/go.mod: src's (a bare one when src has none, as
// modules from before Go modules) under the module path mod.
func writeModFile(ctx context.Context, src, dst, mod string) error {
	b, err := os.ReadFile(filepath.Join(src, "go.mod"))
	if errors.Is(err, fs.ErrNotExist) {
		b, err = []byte("module "+mod+"\n"), nil
	}
	gomod := filepath.Join(dst, "go.mod")
	if err == nil {
		err = os.WriteFile(gomod, b, 0o644)
	}
	if err != nil {
		return err
	}
	_, err = goCmd(ctx, "mod", "edit", "-module", mod, gomod)
	return err
}

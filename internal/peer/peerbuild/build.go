package peerbuild

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"errors"
	"fmt"
	"go/version"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
)

const certbenchModule = "github.com/certbench/certbench"

// genModule is the build directory's module path: below peers/, so that
// the generated adapters may import peers/internal as the real ones do.
const genModule = certbenchModule + "/peers/generated"

// Options configure Build.
type Options struct {
	// Certbench is the root of the certbench checkout: the adapters'
	// source and the certbench module the binary is built with.
	Certbench string
	// Sides are the versions of one proxy to build in (store KIND@NAME).
	Sides  []Side
	Output string    // the binary to write
	Log    io.Writer // gets the go command's output, when not nil
	// KeepDir, when set, is the build directory, kept afterwards;
	// by default a temporary one.
	KeepDir string
}

// Result describes a built binary; its slices are in the order of
// Options.Sides.
type Result struct {
	Kind   Kind     // the proxy the binary adapts
	Stores []string // the stores registered for the sides
	Trees  []string // the sides' directories (a release's in the module cache)
	Labels []string // what each tree is (label.go): traefik@v3.6.12, traefik@c1ef74297, its directory
	// Rename maps each side's private module path and generated adapter
	// package back to the proxy's and the adapter's (see Normalize).
	Rename map[string]string
	// Notes are things the caller should know, such as a replace
	// directive the trees disagree on.
	Notes []string
}

// Normalize returns a function or file name from a profile or a stack
// with the sides' private paths turned back, so that sides compare.
func (r *Result) Normalize(name string) string {
	for from, to := range r.Rename {
		if i := strings.Index(name, from); i >= 0 {
			rest := name[i+len(from):]
			if rest == "" || rest[0] == '/' || rest[0] == '.' {
				return name[:i] + to + rest
			}
		}
	}
	return name
}

// An InputError is bad input: a side that is not a tree of a known proxy,
// two identical sides, a tree that does not compile.
type InputError struct{ Err error }

// Error returns the message.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *InputError) Unwrap() error { return e.Err }

// Build writes a certbench binary to opts.Output with one store per side
// (KIND@SIDE) besides certbench's own; see the package documentation.
func Build(ctx context.Context, opts Options) (*Result, error) {
	if len(opts.Sides) == 0 {
		return nil, &InputError{Err: errors.New("no side to build")}
	}
	if opts.Output == "" {
		return nil, errors.New("peerbuild: no output path")
	}
	root, err := checkCertbench(opts.Certbench)
	if err != nil {
		return nil, err
	}
	trees, err := resolveAll(ctx, opts.Sides)
	if err != nil {
		return nil, err
	}
	kind := trees[0].kind
	if err := chooseVariants(kind, trees); err != nil {
		return nil, err
	}
	planIsolation(trees)
	ad := &adapter{dir: filepath.Join(root, filepath.FromSlash(kind.Adapter)), kind: kind}
	if ad.files, err = goFiles(ad.dir); err != nil || len(ad.files) == 0 {
		return nil, fmt.Errorf("the %s adapter: no Go files in %s", kind.Name, ad.dir)
	}

	work := opts.KeepDir
	if work == "" {
		if work, err = os.MkdirTemp("", "certbench-peer-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}

	res, conflicts, err := ad.writeModule(ctx, work, root, trees)
	if err != nil {
		return nil, err
	}
	out, err := filepath.Abs(opts.Output)
	if err != nil {
		return nil, err
	}
	var log bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir, cmd.Env = work, goEnv("GOFLAGS=-mod=mod -buildvcs=false")
	cmd.Stdout = io.MultiWriter(&log, cmp.Or(opts.Log, io.Discard))
	cmd.Stderr = cmd.Stdout
	if err := cmd.Run(); err != nil { // go build makes out's directory, only on success
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, classify(log.String(), work, ad.dir, kind, trees)
	}
	// A replacement the trees disagree on matters only where it is linked.
	if len(conflicts) > 0 {
		info, err := buildinfo.ReadFile(out)
		if err != nil {
			return nil, err
		}
		for _, c := range conflicts {
			if slices.ContainsFunc(info.Deps, func(m *debug.Module) bool { return m.Path == c.module }) {
				res.Notes = append(res.Notes, c.note)
			}
		}
	}
	return res, nil
}

// resolveAll resolves the sides: distinct names and directories, one
// proxy.
func resolveAll(ctx context.Context, sides []Side) ([]*tree, error) {
	var trees []*tree
	for _, s := range sides {
		t, err := resolve(ctx, s)
		if err != nil {
			return nil, err
		}
		for _, o := range trees {
			if o.side.Name == t.side.Name {
				return nil, &InputError{Err: fmt.Errorf("two sides named %s", t.side.Name)}
			}
			if o.kind.Name != t.kind.Name {
				return nil, &InputError{Err: fmt.Errorf("%s is %s but %s is %s: build one proxy at a time", o.side, o.kind.Module, t.side, t.kind.Module)}
			}
			if o.dir == t.dir {
				return nil, &InputError{Err: fmt.Errorf("%s and %s are the same directory %s: nothing to compare", o.side.Name, t.side.Name, t.dir)}
			}
		}
		trees = append(trees, t)
	}
	for i, t := range trees {
		if err := t.hash(); err != nil {
			return nil, &InputError{Err: fmt.Errorf("%s: %w", t.side, err)}
		}
		if j := slices.IndexFunc(trees[:i], func(o *tree) bool { return bytes.Equal(o.sum, t.sum) }); j >= 0 {
			return nil, &InputError{Err: fmt.Errorf("%s and %s hold the same Go code (no .go file, go.mod or go.sum differs): nothing to compare", trees[j].side, t.side)}
		}
	}
	return trees, nil
}

// adapter is certbench's adapter package for a kind of proxy.
type adapter struct {
	dir   string   // its directory in the certbench tree
	files []string // its Go files
	kind  Kind
}

// writeSide copies the packages of t that the adapter needs into work and
// generates the adapter over them; it returns the adapter's import path.
func (ad *adapter) writeSide(ctx context.Context, t *tree, work string) (string, error) {
	files, err := selectFiles(ad.dir, ad.files, t.tags)
	if err != nil {
		return "", err
	}
	imps, err := importsOf(ad.dir, files)
	var roots []string // the adapter's imports of the proxy, as t's paths (Traefik v2's for v2)
	for _, p := range imps {
		if inModule(p, ad.kind.Module) {
			roots = append(roots, t.module()+strings.TrimPrefix(p, ad.kind.Module))
		}
	}
	if err == nil && len(roots) == 0 {
		err = fmt.Errorf("the adapter in %s imports nothing of %s", ad.dir, ad.kind.Module)
	}
	if err != nil {
		return "", err
	}
	pkgs, err := t.closure(roots)
	if err != nil {
		return "", &InputError{Err: fmt.Errorf("%s: the adapter's packages: %w", t.side, err)}
	}
	r := &rewriter{from: t.module(), to: t.private, alias: ad.kind.Module, pkgs: map[string]bool{}}
	for _, p := range pkgs {
		r.pkgs[p] = true
	}
	if r.deps, err = t.isolate(ctx, work); err != nil {
		return "", err
	}
	copyDir := filepath.Join(work, "tree", t.side.Name)
	if err := t.copyPackages(copyDir, pkgs, r); err != nil {
		return "", fmt.Errorf("copying %s: %w", t.side, err)
	}
	if err := writeModFile(ctx, t.dir, copyDir, t.private); err != nil {
		return "", err
	}
	adapterOut := filepath.Join(work, "adapter", t.side.Name)
	if err := generateAdapter(ad.dir, files, ad.kind.Adapter, adapterOut, r, t.store()); err != nil {
		return "", err
	}
	return genModule + "/adapter/" + t.side.Name, nil
}

// conflict is a module the trees replace differently.
type conflict struct {
	module, note string
}

// checkCertbench checks that dir is the root of a certbench checkout and
// returns it as an absolute path.
func checkCertbench(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no certbench checkout given (the adapters' source)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(abs, "go.mod"))
	if err != nil || !bytes.Contains(b, []byte("module "+certbenchModule+"\n")) {
		return "", fmt.Errorf("%s is not the root of a certbench checkout (its go.mod does not declare module %s)", abs, certbenchModule)
	}
	return abs, nil
}

// FindCertbench returns the root of the certbench checkout that dir is in,
// walking up from dir.
func FindCertbench(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	for d := abs; err == nil; d = filepath.Dir(d) {
		if r, err := checkCertbench(d); err == nil {
			return r, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not inside a certbench checkout", abs)
		}
	}
	return "", err
}

// hash sets t.sum from the names and contents of the tree's Go files,
// go.mod and go.sum, skipping .git, node_modules and nested modules.
func (t *tree) hash() error {
	h := sha256.New()
	err := filepath.WalkDir(t.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() && !d.Type().IsRegular() {
			return err
		}
		n := d.Name()
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); p != t.dir && (err == nil || n == ".git" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(n, ".go") && n != "go.mod" && n != "go.sum" {
			return nil
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(t.dir, p)
		fmt.Fprintf(h, "%s\x00%d\x00%s", filepath.ToSlash(rel), len(b), b)
		return err
	})
	t.sum = h.Sum(nil)
	return err
}

// writeModule writes the build module into work (the sides, go.mod, go.sum,
// main.go) and returns the replace directives the trees disagree on.
func (ad *adapter) writeModule(ctx context.Context, work, root string, trees []*tree) (*Result, []conflict, error) {
	kind := ad.kind
	cb, err := readModFile(ctx, filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, nil, err
	}
	res := &Result{Kind: kind, Rename: map[string]string{}}
	goVersion, imps := cb.Go, ""
	// go.sum: what certbench, the peer module and the trees have checked.
	sums := []string{filepath.Join(root, "go.sum"), filepath.Join(root, filepath.FromSlash(kind.Adapter), "..", "go.sum")}
	for _, t := range trees {
		pkg, err := ad.writeSide(ctx, t, work)
		if err != nil {
			return nil, nil, err
		}
		imps += fmt.Sprintf("\t_ %q\n", pkg)
		sums = append(sums, filepath.Join(t.dir, "go.sum"))
		if version.Compare("go"+goVersion, "go"+t.mod.Go) < 0 {
			goVersion = t.mod.Go
		}
		res.Stores = append(res.Stores, t.store())
		res.Trees = append(res.Trees, t.dir)
		res.Labels = append(res.Labels, t.label(ctx))
		res.Rename[t.private] = kind.Module // v2 too: profiles of both sides compare
		res.Rename[pkg] = certbenchModule + "/" + kind.Adapter
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Generated by certbench peer build: the %s adapter at %d trees.\n", kind.Name, len(trees))
	fmt.Fprintf(&b, "module %s\n\ngo %s\n\n", genModule, goVersion)
	const zero = "v0.0.0-00010101000000-000000000000"
	fmt.Fprintf(&b, "require %s %s\n", certbenchModule, zero)
	fmt.Fprintf(&b, "replace %s => %s\n", certbenchModule, quotePath(root))
	for _, t := range trees {
		for _, c := range t.copies {
			fmt.Fprintf(&b, "require %s %s\nreplace %s => %s\n", c[0], zero, c[0], c[1])
		}
	}

	notes := writeReplacements(&b, trees)
	var excl []string
	for _, t := range trees {
		for _, e := range t.mod.Exclude {
			if l := "exclude " + e.Path + " " + e.Version + "\n"; !slices.Contains(excl, l) {
				excl = append(excl, l)
			}
		}
	}
	b.WriteString(strings.Join(excl, ""))
	if err := os.WriteFile(filepath.Join(work, "go.mod"), []byte(b.String()), 0o644); err != nil {
		return nil, nil, err
	}
	if err := writeGoSum(filepath.Join(work, "go.sum"), sums); err != nil {
		return nil, nil, err
	}
	return res, notes, os.WriteFile(filepath.Join(work, "main.go"), fmt.Appendf(nil, `// Code generated by certbench peer build. DO NOT EDIT.

// Command generated is certbench with one %s store per side.
package main

import (
	"os"

	"%s/cli"
%s)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
`, kind.Name, certbenchModule, imps), 0o644)
}

// writeGoSum writes the lines of the go.sum files that exist, each once,
// sorted, to path.
func writeGoSum(path string, sumFiles []string) error {
	var lines []string
	for _, f := range sumFiles {
		data, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for l := range strings.Lines(string(data)) {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
	}
	slices.Sort(lines)
	return os.WriteFile(path, []byte(strings.Join(slices.Compact(lines), "\n")+"\n"), 0o644)
}

// quotePath quotes a directory for go.mod when it needs it.
func quotePath(p string) string {
	if strings.ContainsAny(p, " \t\"'`\\") {
		return fmt.Sprintf("%q", p)
	}
	return p
}

// writeReplacements writes the trees' replacements to b (as dependencies
// they would not apply): one per module, the last side's where they
// differ, a conflict saying so; a directory only where it exists.
func writeReplacements(b *strings.Builder, trees []*tree) []conflict {
	type repl struct{ side, to string }
	chosen := map[string]repl{}
	var order []string
	var notes []conflict
	for _, t := range trees {
		for _, r := range t.mod.Replace {
			old := strings.TrimSpace(r.Old.Path + " " + r.Old.Version)
			to := strings.TrimSpace(r.New.Path + " " + r.New.Version)
			if dir := r.New.Path; r.New.Version == "" {
				if !filepath.IsAbs(dir) {
					dir = filepath.Join(t.dir, dir)
				}
				if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
					continue // e.g. a nested module, which a module zip lacks
				}
				to = quotePath(dir)
			}
			if prev, ok := chosen[old]; !ok {
				order = append(order, old)
			} else if prev.to != to {
				notes = append(notes, conflict{r.Old.Path, fmt.Sprintf("the %s and %s trees replace %s differently (%s, %s): the binary links %s's for both", prev.side, t.side.Name, old, prev.to, to, t.side.Name)})
			}
			chosen[old] = repl{t.side.Name, to}
		}
	}
	for _, old := range order {
		fmt.Fprintf(b, "replace %s => %s\n", old, chosen[old].to)
	}
	return notes
}

package ab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// git runs git in dir and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// builder builds a side's binary of the module at DIR of a tree.
type builder struct {
	dir, main, cmd string
	log            *os.File
}

// build builds tree's binary into bin: go build with the tree's commit
// linked in as certbench's revision, or the build command with
// CERTBENCH_BIN, CERTBENCH_REVISION and CERTBENCH_LDFLAGS set.
func (b *builder) build(ctx context.Context, tree, bin string) error {
	moddir := filepath.Join(tree, b.dir)
	if _, err := os.Stat(moddir); err != nil {
		return inputf("no directory %s in %s", b.dir, tree)
	}
	rev, _ := git(ctx, tree, "rev-parse", "HEAD")
	ldflags := "-X github.com/certbench/certbench/results.revision=" + rev
	cmd := exec.CommandContext(ctx, "go", "build", "-ldflags", ldflags, "-o", bin, b.main)
	if b.cmd != "" {
		cmd = exec.CommandContext(ctx, "bash", "-c", b.cmd)
		cmd.Env = append(os.Environ(), "CERTBENCH_BIN="+bin, "CERTBENCH_REVISION="+rev, "CERTBENCH_LDFLAGS="+ldflags)
	}
	cmd.Dir, cmd.Stdout, cmd.Stderr = moddir, b.log, b.log
	if err := cmd.Run(); err != nil {
		log, _ := os.ReadFile(b.log.Name())
		return inputf("cannot build %s in %s: %v (log: %s)\n%s", b.main, moddir, err, b.log.Name(), tail(string(log), 20))
	}
	if _, err := os.Stat(bin); err != nil {
		return inputf("the build in %s did not write %s (log: %s)", moddir, bin, b.log.Name())
	}
	return nil
}

// Checkout checks out the merge base of ref and HEAD of the git
// repository dir is in, in a temporary worktree; it returns dir's
// directory there, the commit, and a function that removes the worktree.
func Checkout(ctx context.Context, dir, ref string) (tree, commit string, remove func(), err error) {
	root, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", "", nil, inputf("%s is not in a git repository: %v", dir, err)
	}
	if commit, err = git(ctx, dir, "merge-base", ref, "HEAD"); err != nil {
		return "", "", nil, inputf("no merge base of %s and HEAD (fetch it, or use fetch-depth: 0 in CI): %v", ref, err)
	}
	prefix, _ := git(ctx, dir, "rev-parse", "--show-prefix")
	tmp, err := os.MkdirTemp("", "certbench-ab-")
	if err != nil {
		return "", "", nil, err
	}
	wt := filepath.Join(tmp, "base")
	remove = func() {
		git(context.Background(), root, "worktree", "remove", "--force", wt)
		git(context.Background(), root, "worktree", "prune")
		os.RemoveAll(tmp)
	}
	if _, err := git(ctx, root, "worktree", "add", "--detach", "--quiet", wt, commit); err != nil {
		remove()
		return "", "", nil, err
	}
	return filepath.Join(wt, prefix), commit, remove, nil
}

// buildCommit builds the binary at commit in a temporary git worktree of
// root, its go.mod edited with edits (go mod edit flags) first.
func (b *builder) buildCommit(ctx context.Context, root, commit string, edits []string, bin string) error {
	tree, _, remove, err := Checkout(ctx, root, commit)
	if err != nil {
		return err
	}
	defer remove()
	if len(edits) > 0 {
		cmd := exec.CommandContext(ctx, "go", append([]string{"mod", "edit"}, edits...)...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = filepath.Join(tree, b.dir), b.log, b.log
		if err := cmd.Run(); err != nil {
			return inputf("cannot apply --base-replace to the base's go.mod: %v", err)
		}
	}
	return b.build(ctx, tree, bin)
}

// replaceEdits checks the base's go.mod for a relative replace that leads
// outside the repository (it would point at nothing in the temporary
// worktree) and returns the go mod edit flags of the replaces given
// (MODULE=DIR): a relative replace they do not name is an InputError.
func replaceEdits(ctx context.Context, root, dir, commit string, given []string) ([]string, error) {
	dirs := map[string]string{}
	var edits []string
	for _, r := range given {
		m, d, ok := strings.Cut(r, "=")
		abs, err := filepath.Abs(d)
		if fi, serr := os.Stat(abs); !ok || m == "" || err != nil || serr != nil || !fi.IsDir() {
			return nil, inputf("--base-replace %s: want MODULE=DIR, DIR a directory", r)
		}
		dirs[m] = abs
		edits = append(edits, "-replace="+m+"="+abs)
	}
	gomod, err := git(ctx, root, "show", commit+":"+filepath.ToSlash(filepath.Join(dir, "go.mod")))
	if err != nil {
		return edits, nil // no go.mod there: the build says so
	}
	f, err := os.CreateTemp("", "certbench-ab-*.mod")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	f.WriteString(gomod)
	f.Close()
	out, err := exec.CommandContext(ctx, "go", "mod", "edit", "-json", f.Name()).Output()
	if err != nil {
		return edits, nil
	}
	var mod struct {
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(out, &mod); err != nil {
		return nil, err
	}
	for _, r := range mod.Replace {
		p := r.New.Path
		if r.New.Version != "" || dirs[r.Old.Path] != "" || !(strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")) {
			continue
		}
		if rel, err := filepath.Rel(root, filepath.Join(root, dir, p)); err != nil || strings.HasPrefix(rel, "..") {
			want := filepath.Join(root, dir, p)
			return nil, inputf("the base's go.mod has `replace %s => %s`, a path relative to the module that leads outside the repository, and the base is built in a temporary git worktree, where %s does not lead to %s. Pass --base-replace %s=%s, or make the replace an absolute path, or require a released version",
				r.Old.Path, p, p, want, r.Old.Path, want)
		}
	}
	return edits, nil
}

package peerbuild

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
)

// label names what the tree is, for a reader: KIND@VERSION for a copy in
// the module cache (whose directories are PATH@VERSION) and for a git
// checkout (its tag, else its commit, "-dirty" when files differ from it),
// else the directory's name.
func (t *tree) label(ctx context.Context) string {
	base := filepath.Base(t.dir)
	if i := strings.LastIndex(base, "@"); i >= 0 {
		return t.kind.Name + "@" + base[i+1:]
	}
	git := func(args ...string) string {
		out, _ := exec.CommandContext(ctx, "git", append([]string{"-C", t.dir}, args...)...).Output() // "" on failure
		return strings.TrimSpace(string(out))
	}
	// Only a checkout whose root is the tree: a tree inside another
	// repository (a copy under testdata) is not its commit.
	if top, err := filepath.EvalSymlinks(git("rev-parse", "--show-toplevel")); err != nil || top != t.dir {
		return base
	}
	v := git("describe", "--tags", "--exact-match", "HEAD")
	if v == "" {
		v = git("rev-parse", "--short=9", "HEAD")
	}
	if v == "" {
		return base // a repository without commits
	}
	if git("status", "--porcelain", "--untracked-files=no") != "" {
		v += "-dirty"
	}
	return t.kind.Name + "@" + v
}

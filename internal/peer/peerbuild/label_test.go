package peerbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

func TestLabel(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(t.TempDir(), "gitconfig"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, kv := range [][2]string{{"GIT_AUTHOR_NAME", "t"}, {"GIT_AUTHOR_EMAIL", "t@example.com"}, {"GIT_COMMITTER_NAME", "t"}, {"GIT_COMMITTER_EMAIL", "t@example.com"}} {
		t.Setenv(kv[0], kv[1])
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	mk := func(name string) string {
		dir := filepath.Join(root, name)
		writeTree(t, dir, map[string]string{"go.mod": "module github.com/traefik/traefik/v3\n", "sub/x.go": "package sub\n"})
		return dir
	}
	cache := mk("mod/github.com/traefik/traefik/v3@v3.6.12")
	plain := mk("pr")
	tagged := mk("tagged")
	git(tagged, "init", "-q")
	git(tagged, "add", "-A")
	git(tagged, "commit", "-qm", "x")
	git(tagged, "tag", "v3.7.13")
	commit := mk("commit")
	git(commit, "init", "-q")
	git(commit, "add", "-A")
	git(commit, "commit", "-qm", "x")
	dirty := mk("dirty")
	git(dirty, "init", "-q")
	git(dirty, "add", "-A")
	git(dirty, "commit", "-qm", "x")
	git(dirty, "tag", "v3.7.13")
	if err := os.WriteFile(filepath.Join(dirty, "go.mod"), []byte("module github.com/traefik/traefik/v3\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kind, _ := KindOf("traefik")
	for _, c := range []struct{ dir, want string }{
		{cache, `^traefik@v3\.6\.12$`},
		{plain, `^pr$`},
		{tagged, `^traefik@v3\.7\.13$`},
		{commit, `^traefik@[0-9a-f]{9}$`},
		{dirty, `^traefik@v3\.7\.13-dirty$`},
		{filepath.Join(tagged, "sub"), `^sub$`}, // not the checkout's root
	} {
		tr := &tree{dir: c.dir, kind: kind}
		if got := tr.label(t.Context()); !regexp.MustCompile(c.want).MatchString(got) {
			t.Errorf("label(%s) = %q, want %s", c.dir, got, c.want)
		}
	}
}

package peerbuild

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlanIsolation(t *testing.T) {
	mk := func(name, requires string) *tree {
		dir := filepath.Join(t.TempDir(), name)
		writeTree(t, dir, map[string]string{"go.mod": "module github.com/caddyserver/certmagic\n\ngo 1.22\n\nrequire (\n" + requires + ")\n"})
		tr, err := resolve(t.Context(), Side{Name: name, Tree: dir})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	old := mk("base", "\tgithub.com/libdns/libdns v0.2.1\n\tgo.uber.org/zap v1.24.0\n\tgithub.com/mholt/acmez v1.2.0\n")
	cur := mk("head", "\tgithub.com/libdns/libdns v1.1.1\n\tgo.uber.org/zap v1.28.0\n\tgithub.com/mholt/acmez/v3 v3.1.7\n")
	planIsolation([]*tree{old, cur})
	if len(old.behind) != 1 || old.behind["github.com/libdns/libdns"] != "v0.2.1" {
		t.Errorf("base behind on %v, want libdns v0.2.1 alone (zap differs in its minor version; acmez/v3 is another path)", old.behind)
	}
	if len(cur.behind) != 0 {
		t.Errorf("head behind on %v, want nothing", cur.behind)
	}
}

func TestCopyModule(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	writeTree(t, src, map[string]string{
		"go.mod":           "module example.com/dep\n\ngo 1.14\n",
		"dep.go":           "package dep\n\nimport \"example.com/dep/sub\"\n\nvar X = sub.Y\n",
		"dep_test.go":      "package dep\n",
		"sub/sub.go":       "package sub\n\nimport \"example.com/depother\"\n\nvar Y = depother.Z\n",
		"testdata/t.go":    "package t\n",
		"nested/go.mod":    "module example.com/dep/nested\n",
		"nested/nested.go": "package nested\n",
	})
	const private = "certbench.invalid/base/dep/example.com/dep"
	if err := copyModule(t.Context(), src, dst, "example.com/dep", private); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dst, name))
		return string(b)
	}
	if got := read("dep.go"); !strings.Contains(got, `"`+private+`/sub"`) {
		t.Errorf("dep.go: its import of itself not rewritten:\n%s", got)
	}
	if got := read("sub/sub.go"); !strings.Contains(got, `"example.com/depother"`) {
		t.Errorf("sub/sub.go: another module's import changed:\n%s", got)
	}
	if got := read("go.mod"); !strings.HasPrefix(got, "module "+private+"\n") {
		t.Errorf("go.mod = %q, want module %s", got, private)
	}
	for _, gone := range []string{"dep_test.go", "testdata", "nested"} {
		if _, err := os.Stat(filepath.Join(dst, gone)); err == nil {
			t.Errorf("%s copied", gone)
		}
	}
}

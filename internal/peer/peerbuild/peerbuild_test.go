package peerbuild

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fakeModule = "example.com/proxy"

// writeTree writes files (slash-separated names) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fakeTree is a module example.com/proxy whose pkg/a imports pkg/c, with a
// package pkg/unused nobody imports and a nested module.
var fakeTree = map[string]string{
	"go.mod":                "module example.com/proxy\n\ngo 1.22\n",
	"pkg/a/a.go":            "package a\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/proxy/pkg/c\"\n)\n\n// Manager.\ntype Manager struct{}\n\nvar _ = fmt.Sprint(c.X)\n",
	"pkg/a/a_test.go":       "package a\n\nimport \"example.com/proxy/pkg/unused\"\n",
	"pkg/a/templates.go":    "package a\n\nimport \"embed\"\n\n//go:embed tmpl/*.txt\nvar tmpl embed.FS\n",
	"pkg/a/tmpl/x.txt":      "hello\n",
	"pkg/b/b.go":            "package b\n\n// Config.\ntype Config struct{}\n",
	"pkg/c/c.go":            "package c\n\n// X is \"example.com/proxy/pkg/c\" in a string, not an import.\nconst X = \"example.com/proxy/pkg/c\"\n",
	"pkg/unused/u.go":       "package unused\n",
	"nested/go.mod":         "module example.com/proxy/nested\n",
	"nested/n.go":           "package nested\n",
	"pkg/a/ignored_test.go": "package a\n",
}

func fake(t *testing.T) *tree {
	t.Helper()
	dir := t.TempDir()
	writeTree(t, dir, fakeTree)
	return &tree{side: Side{Name: "base", Tree: dir}, dir: dir, mod: &modFile{Module: struct{ Path string }{fakeModule}},
		kind: Kind{Name: "proxy", Module: fakeModule, Adapter: "internal/peer/peerbuild/testdata/adapter"}, private: "certbench.invalid/base/proxy"}
}

func TestClosureAndCopy(t *testing.T) {
	tr := fake(t)
	pkgs, err := tr.closure([]string{"example.com/proxy/pkg/a", "example.com/proxy/pkg/b"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"example.com/proxy/pkg/a", "example.com/proxy/pkg/b", "example.com/proxy/pkg/c"}
	if strings.Join(pkgs, " ") != strings.Join(want, " ") {
		t.Fatalf("closure = %v, want %v (no test imports, no unused package)", pkgs, want)
	}
	r := &rewriter{from: fakeModule, to: tr.private, pkgs: map[string]bool{}}
	for _, p := range pkgs {
		r.pkgs[p] = true
	}
	dst := t.TempDir()
	if err := tr.copyPackages(dst, pkgs, r); err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(filepath.Join(dst, "pkg/a/a.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(a, []byte(`"certbench.invalid/base/proxy/pkg/c"`)) || bytes.Contains(a, []byte(`"example.com/proxy/pkg/c"`)) {
		t.Errorf("pkg/a/a.go: import not rewritten:\n%s", a)
	}
	if got, want := bytes.Count(a, []byte("\n")), strings.Count(fakeTree["pkg/a/a.go"], "\n"); got != want {
		t.Errorf("pkg/a/a.go has %d lines after the rewrite, want %d", got, want)
	}
	c, _ := os.ReadFile(filepath.Join(dst, "pkg/c/c.go"))
	if string(c) != fakeTree["pkg/c/c.go"] {
		t.Errorf("pkg/c/c.go: a string that is no import was changed:\n%s", c)
	}
	for _, name := range []string{"pkg/a/tmpl/x.txt", "pkg/b/b.go"} {
		if _, err := os.Stat(filepath.Join(dst, name)); err != nil {
			t.Errorf("%s not copied: %v", name, err)
		}
	}
	for _, name := range []string{"pkg/a/a_test.go", "pkg/unused", "nested"} {
		if _, err := os.Stat(filepath.Join(dst, name)); err == nil {
			t.Errorf("%s copied, want it left out", name)
		}
	}
}

func TestClosureMissingPackage(t *testing.T) {
	tr := fake(t)
	_, err := tr.closure([]string{"example.com/proxy/pkg/gone"})
	if err == nil || !strings.Contains(err.Error(), "pkg/gone") {
		t.Fatalf("err = %v, want one naming pkg/gone", err)
	}
}

func TestGenerateAdapter(t *testing.T) {
	r := &rewriter{from: fakeModule, to: "certbench.invalid/head/proxy", pkgs: map[string]bool{
		"example.com/proxy/pkg/a": true, "example.com/proxy/pkg/b": true}}
	out := t.TempDir()
	if err := generateAdapter("testdata/adapter", []string{"store.go"}, "testdata/adapter", out, r, "proxy@head"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "store.go"))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile("testdata/adapter/store.go")
	for _, want := range []string{`const Name = "proxy@head"`, `"certbench.invalid/head/proxy/pkg/a"`, `"example.com/other"`, "DO NOT EDIT"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("generated adapter lacks %s:\n%s", want, b)
		}
	}
	if got, want := bytes.Count(b, []byte("\n")), bytes.Count(src, []byte("\n"))+headerLines; got != want {
		t.Errorf("generated adapter has %d lines, want %d (the source's plus the header)", got, want)
	}
}

func TestGenerateAdapterWithoutName(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"s.go": "package s\n\nconst Other = \"x\"\n"})
	err := generateAdapter(dir, []string{"s.go"}, "s", t.TempDir(), &rewriter{}, "x@base")
	if err == nil || !strings.Contains(err.Error(), "Name") {
		t.Fatalf("err = %v, want one about the missing Name constant", err)
	}
}

func TestEnclosing(t *testing.T) {
	for line, want := range map[int]string{
		5:  "the imports",
		12: "const Name",
		15: "type Store",
		19: "(*Store).Update",
		23: "helper",
	} {
		if got := enclosing("testdata/adapter/store.go", line); got != want {
			t.Errorf("line %d: enclosing = %q, want %q", line, got, want)
		}
	}
}

func TestClassify(t *testing.T) {
	work := t.TempDir()
	kind := Kind{Name: "proxy", Module: fakeModule, Adapter: "internal/peer/peerbuild/testdata/adapter"}
	trees := []*tree{
		{side: Side{Name: "base", Tree: "/src/base"}, dir: "/src/base", kind: kind, private: "certbench.invalid/base/proxy"},
		{side: Side{Name: "head", Tree: "/src/head"}, dir: "/src/head", kind: kind, private: "certbench.invalid/head/proxy"},
	}
	// Line 19 of the adapter is line 21 of the generated file.
	adapterOut := "# github.com/certbench/certbench/peers/generated/adapter/head\n" +
		"adapter/head/store.go:21:14: s.m.Update undefined (type *\"certbench.invalid/head/proxy/pkg/a\".Manager has no field or method Update)\n" +
		"adapter/head/store.go:25:9: undefined: other.N\n"
	err := classify(adapterOut, work, "testdata/adapter", kind, trees)
	var ae *AdapterError
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want *AdapterError", err, err)
	}
	if len(ae.Problems) != 2 || ae.Problems[0].Func != "(*Store).Update" || ae.Problems[0].Line != 19 || ae.Problems[1].Func != "helper" {
		t.Errorf("problems = %+v, want (*Store).Update at 19 and helper", ae.Problems)
	}
	msg := err.Error()
	for _, want := range []string{"change (*Store).Update, helper", "head tree /src/head", "internal/peer/peerbuild/testdata/adapter/store.go:19", `type *"example.com/proxy/pkg/a".Manager has no field or method Update`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}

	if strings.Contains(msg, "base") {
		t.Errorf("only the head failed, yet the message names the base:\n%s", msg)
	}

	// Both sides failing the same way: both named, each problem once.
	bothOut := adapterOut + strings.ReplaceAll(adapterOut, "head", "base")
	err = classify(bothOut, work, "testdata/adapter", kind, trees)
	if !errors.As(err, &ae) || len(ae.Problems) != 2 || !strings.Contains(err.Error(), "against base tree /src/base and head tree /src/head:") {
		t.Errorf("err = %v, want an *AdapterError naming both sides, with 2 problems", err)
	}

	treeOut := "# certbench.invalid/base/proxy/pkg/a\n" +
		"tree/base/pkg/a/a.go:3:1: syntax error: unexpected }\n" +
		"adapter/base/store.go:21:14: undefined: a.Manager\n"
	err = classify(treeOut, work, "testdata/adapter", kind, trees)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "base tree /src/base does not compile") ||
		!strings.Contains(err.Error(), filepath.FromSlash("/src/base/pkg/a/a.go")+":3: syntax error") {
		t.Errorf("err = %v, want an InputError: the base tree does not compile, at /src/base/pkg/a/a.go:3", err)
	}

	other := "go: downloading example.com/dep v1.0.0\n/root/go/pkg/mod/example.com/dep@v1.0.0/d.go:4:2: undefined: x\n"
	err = classify(other, work, "testdata/adapter", kind, trees)
	if errors.As(err, &ie) || errors.As(err, &ae) || err == nil || !strings.Contains(err.Error(), "minimum version selection") {
		t.Errorf("err = %v, want a plain error about a dependency", err)
	}
}

func TestParseSide(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		spec string
		want Side
		err  string
	}{
		{dir, Side{Name: "base", Tree: dir}, ""},
		{"traefik@v3.6.12", Side{Name: "base", Kind: "traefik", Version: "v3.6.12"}, ""},
		{"github.com/caddyserver/certmagic@v0.25.6", Side{Name: "base", Kind: "certmagic", Version: "v0.25.6"}, ""},
		{"nginx@v1", Side{}, "not a proxy certbench has an adapter for"},
		{"", Side{}, "empty"},
		{"no/such/dir", Side{Name: "base", Tree: "no/such/dir"}, ""},
	} {
		got, err := ParseSide("base", c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseSide(%q) err = %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseSide(%q) = %+v, %v; want %+v", c.spec, got, err, c.want)
		}
	}
}

func TestNormalize(t *testing.T) {
	r := &Result{Rename: map[string]string{
		"certbench.invalid/base/traefik":                              "github.com/traefik/traefik/v3",
		"github.com/certbench/certbench/peers/generated/adapter/base": "github.com/certbench/certbench/peers/traefik/store",
	}}
	for in, want := range map[string]string{
		"certbench.invalid/base/traefik/pkg/tls.(*Manager).UpdateConfigs":             "github.com/traefik/traefik/v3/pkg/tls.(*Manager).UpdateConfigs",
		"github.com/certbench/certbench/peers/generated/adapter/base.(*Store).Update": "github.com/certbench/certbench/peers/traefik/store.(*Store).Update",
		"certbench.invalid/base/traefikx.F":                                           "certbench.invalid/base/traefikx.F",
		"runtime.mallocgc":                                                            "runtime.mallocgc",
	} {
		if got := r.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBuildBadInput(t *testing.T) {
	root, err := FindCertbench(".")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where Build's temporary directory would go
	src := t.TempDir()
	traefikMod := "module github.com/traefik/traefik/v3\n\ngo 1.25.0\n"
	writeTree(t, src, map[string]string{
		"notmod/main.go":   "package main\n",
		"other/go.mod":     "module example.com/other\n\ngo 1.22\n",
		"a/go.mod":         traefikMod,
		"a/pkg/tls/tls.go": fakeTLS,
		"b/go.mod":         traefikMod,
		"b/pkg/tls/tls.go": fakeTLS,
		"c/go.mod":         traefikMod,
		"c/pkg/tls/tls.go": strings.Replace(fakeTLS, "package tls\n", "package tls\n\nimport _ \"github.com/traefik/traefik/v3/pkg/gone\"\n", 1),
		"file":             "x",
	})
	p := func(name string) string { return filepath.Join(src, name) }
	for _, c := range []struct {
		name       string
		base, head string
		want       string
	}{
		{"no such directory", p("gone"), p("a"), "no such file or directory"},
		{"a file", p("file"), p("a"), "not a directory"},
		{"not a Go module", p("notmod"), p("a"), "not a Go module: no go.mod"},
		{"not Traefik or certmagic", p("other"), p("a"), "module example.com/other is not a proxy certbench has an adapter for"},
		{"the same directory", p("a"), p("a") + "/.", "are the same directory"},
		{"the same code", p("a"), p("b"), "hold the same Go code"},
		{"a package the adapter needs is missing", p("a"), p("c"), "github.com/traefik/traefik/v3/pkg/gone: no Go files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, _ := os.ReadFile(p("a/go.mod"))
			_, err := Build(t.Context(), Options{Certbench: root, Output: filepath.Join(src, "out", "bin"),
				Sides: []Side{{Name: "base", Tree: c.base}, {Name: "head", Tree: c.head}}})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v (%T), want an *InputError with %q", err, err, c.want)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
				t.Errorf("left behind in TMPDIR: %v", ents)
			}
			if after, _ := os.ReadFile(p("a/go.mod")); !bytes.Equal(before, after) {
				t.Errorf("a/go.mod changed:\n%s", after)
			}
		})
	}
}

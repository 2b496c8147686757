package peerbuild

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeTLS declares what the Traefik adapter calls in pkg/tls, in v3.5's
// shapes (bodies aside).
const fakeTLS = `package tls

// Manager.
type Manager struct{}

func NewManager(ocspConfig *OCSPConfig) *Manager { return nil }

func (m *Manager) UpdateConfigs(ctx context.Context, stores map[string]Store, configs map[string]Options, certs []*CertAndStores) {
}

func (m *Manager) Get(storeName, configName string) (*tls.Config, error) { return nil, nil }
`

// fakeTraefik writes a tree of module mod whose pkg/tls is src, and
// returns it resolved.
func fakeTraefik(t *testing.T, name, mod, src string) *tree {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	writeTree(t, dir, map[string]string{"go.mod": "module " + mod + "\n\ngo 1.22\n", "pkg/tls/tls.go": src})
	tr, err := resolve(t.Context(), Side{Name: name, Tree: dir})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestChooseVariants(t *testing.T) {
	const v3, v2 = "github.com/traefik/traefik/v3", "github.com/traefik/traefik/v2"
	noOCSP := strings.Replace(fakeTLS, "NewManager(ocspConfig *OCSPConfig)", "NewManager()", 1)
	unknown := strings.Replace(fakeTLS, "NewManager(ocspConfig *OCSPConfig)", "NewManager(cfg Config)", 1)
	kind, _ := KindOf("traefik")
	for _, c := range []struct {
		name       string
		base, head [2]string // module path, pkg/tls source
		tags       [2][]string
		err        []string // in the message, for an unknown API
	}{
		{name: "v3.5 and later", base: [2]string{v3, fakeTLS}, head: [2]string{v3, fakeTLS}},
		{name: "before v3.5", base: [2]string{v3, noOCSP}, head: [2]string{v3, fakeTLS},
			tags: [2][]string{{"traefik_noocsp"}, nil}},
		{name: "v2", base: [2]string{v2, noOCSP}, head: [2]string{v3, noOCSP},
			tags: [2][]string{{"traefik_v2", "traefik_noocsp"}, {"traefik_noocsp"}}},
		{name: "unknown at the head", base: [2]string{v3, fakeTLS}, head: [2]string{v3, unknown},
			err: []string{"does not know the API of head tree ", "tls.NewManager: head declares func NewManager(cfg Config) *Manager (pkg/tls/tls.go:6); the adapter knows func NewManager(*OCSPConfig) *Manager (v3.5 and later) or func NewManager() *Manager (v2.10 to v3.4)"}},
		{name: "unknown on both sides", base: [2]string{v3, unknown}, head: [2]string{v3, unknown},
			err: []string{"does not know the API of base tree ", " and head tree ", "tls.NewManager: base and head declare func NewManager(cfg Config) *Manager"}},
		{name: "missing on one side, unknown on the other", base: [2]string{v3, "package tls\n"}, head: [2]string{v3, unknown},
			err: []string{"tls.NewManager: base declares nothing;", "tls.NewManager: head declares func NewManager(cfg Config)", "(*tls.Manager).Get: base declares nothing"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			trees := []*tree{fakeTraefik(t, "base", c.base[0], c.base[1]), fakeTraefik(t, "head", c.head[0], c.head[1])}
			err := chooseVariants(kind, trees)
			if c.err == nil {
				if err != nil {
					t.Fatal(err)
				}
				for i, tr := range trees {
					if !slices.Equal(tr.tags, c.tags[i]) {
						t.Errorf("%s: tags %v, want %v", tr.side.Name, tr.tags, c.tags[i])
					}
				}
				return
			}
			var ae *APIError
			var ie *InputError
			if !errors.As(err, &ae) || !errors.As(err, &ie) {
				t.Fatalf("err = %v (%T), want an *InputError holding an *APIError", err, err)
			}
			for _, want := range c.err {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("message lacks %q:\n%s", want, err)
				}
			}
			if c.name == "unknown at the head" && strings.Contains(err.Error(), "base") {
				t.Errorf("message blames the base:\n%s", err)
			}
		})
	}
}

func TestSelectFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"store.go":   "// Package store.\npackage store\n",
		"new.go":     "//go:build !old_api\n\npackage store\n",
		"old.go":     "// Old API.\n\n//go:build old_api\n\npackage store\n",
		"v2.go":      "//go:build v2 && old_api\n\npackage store\n",
		"comment.go": "package store\n\n//go:build never\n",
	})
	files := []string{"comment.go", "new.go", "old.go", "store.go", "v2.go"}
	for _, c := range []struct {
		tags, want []string
	}{
		{nil, []string{"comment.go", "new.go", "store.go"}},
		{[]string{"old_api"}, []string{"comment.go", "old.go", "store.go"}},
		{[]string{"old_api", "v2"}, []string{"comment.go", "old.go", "store.go", "v2.go"}},
	} {
		got, err := selectFiles(dir, files, c.tags)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("tags %v: %v, %v; want %v", c.tags, got, err, c.want)
		}
	}
}

func TestUnnamed(t *testing.T) {
	tr := fakeTraefik(t, "base", "github.com/traefik/traefik/v3", fakeTLS)
	kind, _ := KindOf("traefik")
	for _, p := range kind.Probes[1:] {
		decl, shape, _ := tr.declared(p)
		if shape != p.Shapes[0].Decl {
			t.Errorf("%s: shape %q (from %q), want %q", p.Call, shape, decl, p.Shapes[0].Decl)
		}
	}
}

func TestBuildLine(t *testing.T) {
	for _, src := range []string{
		"// Old API.\n\n//go:build old_api\n\npackage store\n",
		"//go:build old_api\r\n\r\npackage store\r\n",
		"package store\n\n//go:build never\n",
	} {
		_, start, end := buildLine([]byte(src))
		got := src[:start] + src[end:]
		if header, _, _ := strings.Cut(got, "package"); strings.Contains(header, "go:build") {
			t.Errorf("%q: build line kept: %q", src, got)
		}
		if strings.Count(got, "\n") != strings.Count(src, "\n") || !strings.Contains(got, "package store") {
			t.Errorf("%q: lines changed: %q", src, got)
		}
		if strings.Contains(src, "never") && got != src {
			t.Errorf("%q: a comment after the package clause changed: %q", src, got)
		}
	}
}

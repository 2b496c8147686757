package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// peerBadTrees writes small trees for peer's bad input: a directory
// without go.mod, a module that is no proxy, and two Traefik-like trees
// with the same Go code (they differ in a README only).
func peerBadTrees(t *testing.T) func(string) string {
	t.Helper()
	src := t.TempDir()
	traefikMod := "module github.com/traefik/traefik/v3\n\ngo 1.25.0\n"
	for name, content := range map[string]string{
		"notmod/main.go":   "package main\n",
		"other/go.mod":     "module example.com/other\n\ngo 1.22\n",
		"a/go.mod":         traefikMod,
		"a/pkg/tls/tls.go": "package tls\n",
		"b/go.mod":         traefikMod,
		"b/pkg/tls/tls.go": "package tls\n",
		"b/README.md":      "not Go\n",
	} {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func(name string) string { return filepath.Join(src, name) }
}

// checkPeerBad runs certbench peer with args and checks exit 2, want in
// the error output, an empty TMPDIR and, for peer check, no output
// directory left behind unless keep names a file that must be in it.
func checkPeerBad(t *testing.T, tmp, out, want, keep string, args ...string) {
	t.Helper()
	code, _, stderr := run(t, args...)
	if code != cli.ExitUsage || !strings.Contains(stderr, want) {
		t.Errorf("certbench %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(args, " "), code, stderr, cli.ExitUsage, want)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) > 0 {
		t.Errorf("certbench %s: left behind in TMPDIR: %v", args[1], ents)
	}
	if keep == "" {
		if _, err := os.Stat(out); err == nil {
			ents, _ := os.ReadDir(out)
			t.Errorf("certbench %s: output directory left behind: %v", args[1], ents)
		}
	} else if b, err := os.ReadFile(filepath.Join(out, keep)); err != nil || len(b) == 0 {
		t.Errorf("certbench %s: %s missing or empty (%v)", args[1], keep, err)
	}
	os.RemoveAll(out)
}

// TestPeerBadInput: certbench peer build and peer check on a directory
// that is not a Go module, a module that is not Traefik or certmagic, and
// base equal to head: each exit 2 with a message naming what is wrong,
// no temporary directory and no output left behind.
func TestPeerBadInput(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	p := peerBadTrees(t)
	outDir := filepath.Join(t.TempDir(), "out")
	for _, c := range []struct {
		name, base, head, want string
	}{
		{"not a Go module", p("notmod"), p("a"), "not a Go module: no go.mod"},
		{"not Traefik or certmagic", p("other"), p("a"), "module example.com/other is not a proxy certbench has an adapter for"},
		{"the same directory", p("a"), p("a") + "/.", "are the same directory"},
		{"the same code", p("a"), p("b"), "hold the same Go code"},
		{"no such version", "nginx@v1.0.0", p("a"), "not a proxy certbench has an adapter for"},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkPeerBad(t, tmp, outDir, c.want, "", "peer", "build", "--base", c.base, "--head", c.head, "-o", filepath.Join(outDir, "bin"))
			checkPeerBad(t, tmp, outDir, c.want, "", "peer", "check", "--base", c.base, "--head", c.head, "--out", outDir)
		})
	}
}

// TestPeerTreeDoesNotCompile: a Traefik-like tree with a syntax error in
// pkg/tls is bad input: exit 2, the message says which tree does not
// compile and where, nothing is left in TMPDIR, and peer check keeps the
// go command's output in build.log. The go command stops at the syntax
// error while loading packages, before compiling anything.
func TestPeerTreeDoesNotCompile(t *testing.T) {
	src := t.TempDir()
	// The peer module's requirements (zerolog, which the adapter imports,
	// and its own), in its go.sum; on a fresh machine the go command
	// fetches what the module cache lacks, as for any build.
	peerMod, err := os.ReadFile(filepath.Join("..", "peers", "traefik", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	traefikMod := "module github.com/traefik/traefik/v3\n"
	for _, line := range strings.Split(string(peerMod), "\n") {
		if !strings.HasPrefix(line, "module ") && !strings.Contains(line, "certbench") {
			traefikMod += line + "\n"
		}
	}
	for name, content := range map[string]string{
		"base/go.mod": traefikMod,
		// What the adapter calls, declared as in v3.5 (peerbuild reads
		// the declarations before building).
		"base/pkg/tls/tls.go": "package tls\n\nimport (\n\t\"context\"\n\t\"crypto/tls\"\n\n\t_ \"github.com/traefik/traefik/v3/pkg/types\"\n)\n\n" +
			"type (\n\tManager    struct{}\n\tOCSPConfig struct{}\n\tStore      struct{}\n\tOptions    struct{}\n\tCertAndStores struct{}\n)\n\n" +
			"func NewManager(ocspConfig *OCSPConfig) *Manager { return nil }\n\n" +
			"func (m *Manager) UpdateConfigs(ctx context.Context, stores map[string]Store, configs map[string]Options, certs []*CertAndStores) {}\n\n" +
			"func (m *Manager) Get(storeName, configName string) (*tls.Config, error) { return nil, nil }\n",
		"base/pkg/types/t.go": "package types\n",
		"head/go.mod":         traefikMod,
		"head/pkg/tls/tls.go": "package tls\n\nimport _ \"github.com/traefik/traefik/v3/pkg/types\"\n\nfunc broken( {\n",
		"head/pkg/types/t.go": "package types\n",
	} {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	base, head := filepath.Join(src, "base"), filepath.Join(src, "head")
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	outDir := filepath.Join(t.TempDir(), "out")
	want := "head tree " + head + " does not compile"
	checkPeerBad(t, tmp, outDir, want, "build.log", "peer", "check", "--base", base, "--head", head, "--out", outDir)
	checkPeerBad(t, tmp, outDir, filepath.Join(head, "pkg", "tls", "tls.go")+":5", "", "peer", "build", "--base", base, "--head", head, "-o", filepath.Join(outDir, "bin"))
}

// TestPeerBaseRef: peer check --base REF checks the merge base out in a
// temporary git worktree and removes it again: here the branch changes
// only a README, so the sides hold the same Go code (exit 2), and nothing
// is left in TMPDIR.
func TestPeerBaseRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	p := peerBadTrees(t)
	repo := p("a")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "base"}, {"checkout", "-q", "-b", "pr"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("a change\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	outDir := filepath.Join(t.TempDir(), "out")
	checkPeerBad(t, tmp, outDir, "hold the same Go code", "", "peer", "check", "--base", "main", "--head", repo, "--out", outDir)
	checkPeerBad(t, tmp, outDir, "no merge base of nope", "", "peer", "check", "--base", "nope", "--head", repo, "--out", outDir)
}

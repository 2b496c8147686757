package peerbuild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A Kind is a proxy that certbench has an adapter for.
type Kind struct {
	Name    string // the prefix of the stores a build registers ("traefik@base")
	Module  string // the proxy's module path
	Adapter string // the adapter package's directory in certbench, slash-separated
	// Probes are the proxy's declarations the adapter calls (variant.go);
	// a module path among them is one of the proxy's too (Traefik v2's).
	Probes []Probe
}

// Kinds are the proxies certbench has adapters for.
var Kinds = []Kind{
	{Name: "traefik", Module: "github.com/traefik/traefik/v3", Adapter: "peers/traefik/store", Probes: traefikProbes},
	{Name: "certmagic", Module: "github.com/caddyserver/certmagic", Adapter: "peers/certmagic/store", Probes: certmagicProbes},
}

// KindOf returns the kind whose module path or name is s.
func KindOf(s string) (Kind, bool) {
	for _, k := range Kinds {
		if s == k.Name || k.declares(s) {
			return k, true
		}
	}
	return Kind{}, false
}

// kindList describes Kinds for error messages.
func kindList() string {
	var parts []string
	for _, k := range Kinds {
		parts = append(parts, fmt.Sprintf("%s (%s)", k.Name, k.Module))
	}
	return strings.Join(parts, " or ")
}

// A Side is one version of the proxy in a build: a local tree or a
// released version.
type Side struct {
	Name string // the suffix of its store ("base"): lowercase letters, digits and '-'
	Tree string // the directory of the proxy's go.mod, such as a checkout
	// Kind and Version, when Tree is empty, name a released version,
	// which the go command downloads into the module cache.
	Kind, Version string
}

// String describes the side for messages.
func (s Side) String() string {
	if s.Tree != "" {
		return fmt.Sprintf("%s tree %s", s.Name, s.Tree)
	}
	return fmt.Sprintf("%s %s@%s", s.Name, s.Kind, s.Version)
}

// ParseSide reads a side's command-line form: a directory, else
// KIND@VERSION or MODULE@VERSION (traefik@v3.6.12).
func ParseSide(name, spec string) (Side, error) {
	if spec == "" {
		return Side{}, &InputError{Err: fmt.Errorf("%s: empty; want a directory or KIND@VERSION", name)}
	}
	if _, err := os.Stat(spec); err == nil {
		return Side{Name: name, Tree: spec}, nil
	}
	if i := strings.LastIndex(spec, "@"); i > 0 && !strings.ContainsAny(spec[i+1:], `/\`) {
		k, ok := KindOf(spec[:i])
		if !ok {
			return Side{}, &InputError{Err: fmt.Errorf("%s %s: %q is not a proxy certbench has an adapter for (want %s)", name, spec, spec[:i], kindList())}
		}
		return Side{Name: name, Kind: k.Name, Version: spec[i+1:]}, nil
	}
	return Side{Name: name, Tree: spec}, nil // Build reports that it does not exist
}

var sideName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// tree is a side resolved to a directory with a parsed go.mod.
type tree struct {
	side    Side
	dir     string // absolute, symlinks evaluated
	mod     *modFile
	kind    Kind
	private string            // the module path of the side's copy
	tags    []string          // select the adapter's files (variant.go)
	behind  map[string]string // modules required at a lower major version than another side's (isolate.go)
	copies  [][2]string       // the side's private module paths and their directories in the build
	imports []string          // what the copied packages import (closure)
	sum     []byte            // of its Go code, to tell trees apart
}

// store is the name of the side's store.
func (t *tree) store() string { return t.kind.Name + "@" + t.side.Name }

// modFile is go.mod as "go mod edit -json" prints it.
type modFile struct {
	Module  struct{ Path string }
	Go      string
	Require []modVersion
	Exclude []modVersion
	Replace []struct{ Old, New modVersion }
}

// modVersion is a module path and version; in a replacement a Path
// without version is a directory.
type modVersion struct{ Path, Version string }

// readModFile parses the go.mod at path with the go command (x/mod is not
// a dependency of certbench).
func readModFile(ctx context.Context, path string) (*modFile, error) {
	out, err := goCmd(ctx, "mod", "edit", "-json", path)
	if err != nil {
		return nil, err
	}
	var m modFile
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, fmt.Errorf("%s: reading go mod edit -json: %w", path, err)
	}
	return &m, nil
}

// resolve finds the side's directory and module, and checks that it is a
// proxy certbench has an adapter for.
func resolve(ctx context.Context, s Side) (*tree, error) {
	if !sideName.MatchString(s.Name) {
		return nil, fmt.Errorf("side name %q: want lowercase letters, digits and '-'", s.Name)
	}
	fail := func(format string, a ...any) (*tree, error) {
		return nil, &InputError{Err: fmt.Errorf("%s: "+format, append([]any{s}, a...)...)}
	}
	dir, err := s.Tree, error(nil)
	if dir == "" {
		k, ok := KindOf(s.Kind)
		if !ok {
			return fail("unknown proxy %q (want %s)", s.Kind, kindList())
		}
		if dir, err = download(ctx, k.Module+"@"+s.Version); err != nil {
			return fail("%w", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return fail("%w", err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return fail("not a directory")
	}
	gomod := filepath.Join(abs, "go.mod")
	if _, err := os.Stat(gomod); err != nil {
		return fail("not a Go module: no go.mod in %s (give the root of a checkout of %s)", abs, kindList())
	}
	m, err := readModFile(ctx, gomod)
	if err != nil {
		return fail("%w", err)
	}
	i := slices.IndexFunc(Kinds, func(k Kind) bool { return k.declares(m.Module.Path) })
	if i < 0 {
		return fail("module %s is not a proxy certbench has an adapter for (want %s)", m.Module.Path, kindList())
	}
	private := "certbench.invalid/" + s.Name + "/" + Kinds[i].Name
	return &tree{side: s, dir: abs, mod: m, kind: Kinds[i], private: private, copies: [][2]string{{private, "./tree/" + s.Name}}}, nil
}

// download fetches module@version into the module cache and returns its
// directory there.
func download(ctx context.Context, modVer string) (string, error) {
	out, err := goCmd(ctx, "mod", "download", "-json", modVer)
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", modVer, info.Error)
	}
	if err != nil || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory (%v)", modVer, err)
	}
	return info.Dir, nil
}

// goCmd runs the go command and returns its output; its error quotes the
// command and its standard error.
func goCmd(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = goEnv()
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		err = fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(ee.Stderr))
	}
	return out, err
}

// goEnv is the caller's environment, outside any workspace.
func goEnv(extra ...string) []string {
	return append(append(os.Environ(), "GOWORK=off"), extra...)
}

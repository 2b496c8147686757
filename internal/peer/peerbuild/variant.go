package peerbuild

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A Probe is a declaration of the proxy that the adapter calls. Where the
// proxy changed it, the adapter has one file per shape, each with a build
// constraint on the shape's tag; Build keeps the files whose constraints
// the tags of the tree's declarations satisfy.
type Probe struct {
	Call string // as the adapter calls it ("tls.NewManager")
	// Pkg is the declaring package's directory ("pkg/tls"), Func the
	// function or method as funcName names it ("(*Manager).Get"); both
	// empty: the tree's module path.
	Pkg, Func string
	Shapes    []Shape // the declarations the adapter knows
}

// A Shape is one declaration of a probe that the adapter knows.
type Shape struct {
	Decl string // without parameter names or body ("func NewManager(*OCSPConfig) *Manager"), or the module path
	Tag  string // of the adapter's files for it ("": the files without a tag)
	Era  string // the releases that declare it
}

// traefikProbes are the declarations of Traefik's pkg/tls the adapter
// calls, with their shapes since v2.10.
var traefikProbes = []Probe{
	{Call: "the module path", Shapes: []Shape{
		{Decl: "github.com/traefik/traefik/v3", Era: "v3"},
		{Decl: "github.com/traefik/traefik/v2", Tag: "traefik_v2", Era: "v2"}}},
	{Call: "tls.NewManager", Pkg: "pkg/tls", Func: "NewManager", Shapes: []Shape{
		{Decl: "func NewManager(*OCSPConfig) *Manager", Era: "v3.5 and later"},
		{Decl: "func NewManager() *Manager", Tag: "traefik_noocsp", Era: "v2.10 to v3.4"}}},
	{Call: "(*tls.Manager).UpdateConfigs", Pkg: "pkg/tls", Func: "(*Manager).UpdateConfigs", Shapes: []Shape{
		{Decl: "func (*Manager) UpdateConfigs(context.Context, map[string]Store, map[string]Options, []*CertAndStores)", Era: "v2.10 and later"}}},
	{Call: "(*tls.Manager).Get", Pkg: "pkg/tls", Func: "(*Manager).Get", Shapes: []Shape{
		{Decl: "func (*Manager) Get(string, string) (*tls.Config, error)", Era: "v2.10 and later"}}},
}

// certmagicProbes are the declarations of certmagic the adapter calls,
// unchanged since v0.20.
var certmagicProbes = []Probe{
	{Call: "certmagic.NewCache", Func: "NewCache", Shapes: []Shape{
		{Decl: "func NewCache(CacheOptions) *Cache", Era: "v0.20 and later"}}},
	{Call: "certmagic.New", Func: "New", Shapes: []Shape{
		{Decl: "func New(*Cache, Config) *Config", Era: "v0.20 and later"}}},
	{Call: "(*certmagic.Config).CacheUnmanagedCertificatePEMBytes", Func: "(*Config).CacheUnmanagedCertificatePEMBytes", Shapes: []Shape{
		{Decl: "func (*Config) CacheUnmanagedCertificatePEMBytes(context.Context, []byte, []byte, []string) (string, error)", Era: "v0.20 and later"}}},
	{Call: "(*certmagic.Config).CacheUnmanagedTLSCertificate", Func: "(*Config).CacheUnmanagedTLSCertificate", Shapes: []Shape{
		{Decl: "func (*Config) CacheUnmanagedTLSCertificate(context.Context, tls.Certificate, []string) (string, error)", Era: "v0.20 and later"}}},
	{Call: "(*certmagic.Cache).Remove", Func: "(*Cache).Remove", Shapes: []Shape{
		{Decl: "func (*Cache) Remove([]string)", Era: "v0.20 and later"}}},
}

// An APIError is a tree that declares a call of the adapter in a shape the
// adapter has no files for.
type APIError struct {
	Kind    Kind      // the proxy
	Unknown []Unknown // the calls, with the sides that declare each shape
}

// Unknown is a declaration of a probe that the adapter does not know.
type Unknown struct {
	Sides []Side // that declare it
	Probe Probe
	Decl  string // as in their source ("": nothing)
	At    string // file:line in the first side's tree
}

// Error names, for each unknown call, the sides, what they declare and
// what the adapter knows.
func (e *APIError) Error() string {
	var b strings.Builder
	var sides []Side
	for _, u := range e.Unknown {
		decl, names, verb := "nothing", []string{}, "declares"
		if u.Decl != "" {
			decl = u.Decl + " (" + u.At + ")"
		}
		for _, s := range u.Sides {
			names = append(names, s.Name)
			if !slices.Contains(sides, s) {
				sides = append(sides, s)
			}
		}
		if len(names) > 1 {
			verb = "declare"
		}
		fmt.Fprintf(&b, "\n  %s: %s %s %s; the adapter knows", u.Probe.Call, strings.Join(names, " and "), verb, decl)
		for i, s := range u.Probe.Shapes {
			if i > 0 {
				b.WriteString(" or")
			}
			fmt.Fprintf(&b, " %s (%s)", s.Decl, s.Era)
		}
	}
	return fmt.Sprintf("the %s adapter (%s) does not know the API of %s:%s\n  (a new shape needs a file for it in the adapter, and its tag in internal/peer/peerbuild's probes)",
		e.Kind.Name, e.Kind.Adapter, sideList(sides), b.String())
}

// sideList is "base tree A", "base tree A and head tree B".
func sideList(sides []Side) string {
	var names []string
	for _, s := range sides {
		names = append(names, s.String())
	}
	return strings.Join(names, " and ")
}

// chooseVariants sets each tree's tags from its declarations of the kind's
// probes, or returns an *APIError naming every side with an unknown one.
func chooseVariants(kind Kind, trees []*tree) error {
	e := &APIError{Kind: kind}
	for _, p := range kind.Probes {
		for _, t := range trees {
			decl, shape, at := t.declared(p)
			if shape == unparsed {
				continue
			}
			i := slices.IndexFunc(p.Shapes, func(s Shape) bool { return s.Decl == shape })
			if i >= 0 {
				if tag := p.Shapes[i].Tag; tag != "" {
					t.tags = append(t.tags, tag)
				}
				continue
			}
			j := slices.IndexFunc(e.Unknown, func(u Unknown) bool { return u.Probe.Call == p.Call && u.Decl == decl })
			if j < 0 {
				e.Unknown = append(e.Unknown, Unknown{Probe: p, Decl: decl, At: at})
				j = len(e.Unknown) - 1
			}
			e.Unknown[j].Sides = append(e.Unknown[j].Sides, t.side)
		}
	}
	if len(e.Unknown) > 0 {
		return &InputError{Err: e}
	}
	return nil
}

// unparsed is the shape of a declaration in a package that does not
// parse: the build says where.
const unparsed = "?"

// declared returns the tree's declaration of p as in its source (decl),
// printed without parameter names (shape, to compare with Shape.Decl), and
// where it is; all empty when the tree declares none.
func (t *tree) declared(p Probe) (decl, shape, at string) {
	if p.Func == "" {
		return t.module(), t.module(), "go.mod"
	}
	dir := filepath.Join(t.dir, filepath.FromSlash(p.Pkg))
	files, _ := goFiles(dir)
	for _, n := range files {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return "", unparsed, "" // the build reports it
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && funcName(fd) == p.Func {
				fd.Body, fd.Doc = nil, nil
				at = fmt.Sprintf("%s:%d", path.Join(p.Pkg, n), fset.Position(fd.Pos()).Line)
				decl = printDecl(fd)
				for _, fl := range []*ast.FieldList{fd.Recv, fd.Type.Params, fd.Type.Results} {
					if fl != nil {
						var unnamed []*ast.Field
						for _, f := range fl.List {
							for range max(1, len(f.Names)) {
								unnamed = append(unnamed, &ast.Field{Type: f.Type})
							}
						}
						fl.List = unnamed
					}
				}
				return decl, printDecl(fd), at
			}
		}
	}
	return "", "", ""
}

// printDecl prints fd on one line (an empty FileSet has no line breaks).
func printDecl(fd *ast.FuncDecl) string {
	var b strings.Builder
	printer.Fprint(&b, token.NewFileSet(), fd)
	return b.String()
}

// selectFiles returns the adapter's files whose //go:build constraint
// holds with tags alone set (a file without one always does).
func selectFiles(dir string, files, tags []string) ([]string, error) {
	var out []string
	for _, n := range files {
		src, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		if line, _, _ := buildLine(src); line != "" {
			expr, err := constraint.Parse(line)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Join(dir, n), err)
			}
			if !expr.Eval(func(tag string) bool { return slices.Contains(tags, tag) }) {
				continue
			}
		}
		out = append(out, n)
	}
	return out, nil
}

// buildLine returns the //go:build line of a Go file's header and its
// offsets in src (without its newline); "" when there is none.
func buildLine(src []byte) (line string, start, end int) {
	for l := range strings.Lines(string(src)) {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "package ") {
			break
		}
		if constraint.IsGoBuild(t) {
			return t, start, start + len(strings.TrimRight(l, "\r\n"))
		}
		start += len(l)
	}
	return "", 0, 0
}

// module is the tree's module path.
func (t *tree) module() string {
	if t.mod == nil {
		return t.kind.Module
	}
	return t.mod.Module.Path
}

// declares reports whether module is the kind's module path or one of its
// other major versions' that the adapter knows.
func (k Kind) declares(module string) bool {
	if module == k.Module {
		return true
	}
	for _, p := range k.Probes {
		if p.Func == "" && slices.ContainsFunc(p.Shapes, func(s Shape) bool { return s.Decl == module }) {
			return true
		}
	}
	return false
}

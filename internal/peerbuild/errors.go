package peerbuild

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// An AdapterError is a build that failed in the adapter's own code: the
// tree's Go API differs from what the adapter was written against.
type AdapterError struct {
	// Kind is the proxy; Sides the trees the adapter did not build
	// against.
	Kind  Kind
	Sides []Side
	// Problems are the compiler's errors in the adapter, each at a line
	// of the adapter's source and in the function it belongs to.
	Problems []Problem
}

// A Problem is one compiler error, where it is.
type Problem struct {
	// File and Line are in the adapter's or the tree's source.
	File string
	Line int
	// Func is the enclosing declaration in the adapter ("(*Store).Update",
	// "dynamicConfig", "the imports"); empty in a tree.
	Func string
	// Msg is the compiler's message.
	Msg string
}

// Error names the adapter functions to change, then each compiler error
// with its function and line.
func (e *AdapterError) Error() string {
	funcs := []string{}
	for _, p := range e.Problems {
		if !slices.Contains(funcs, p.Func) {
			funcs = append(funcs, p.Func)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the %s adapter (%s) does not build against %s: its Go API differs from the adapter's; change %s to it:",
		e.Kind.Name, e.Kind.Adapter, sideList(e.Sides), strings.Join(funcs, ", "))
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  %s (%s:%d): %s", p.Func, p.File, p.Line, p.Msg)
	}
	return b.String()
}

// maxProblems caps the compiler errors an error message quotes.
const maxProblems = 10

// errLine is a compiler error line: file:line[:col]: message.
var errLine = regexp.MustCompile(`^(\S+\.go):(\d+)(?::\d+)?: (.*)$`)

// classify turns the go command's output of a failed build into an
// *AdapterError (errors in the generated adapters), an *InputError (errors
// in a tree's copy: the tree does not compile), or a plain error quoting
// the output's last lines (anything else, such as a dependency that does
// not build with the versions minimum version selection chose for both
// trees together, or a module that cannot be downloaded).
func classify(output, work, adapterDir string, kind Kind, trees []*tree) error {
	ae := &AdapterError{Kind: kind}
	treeProblems := map[string][]Problem{}
	var treeOrder []string
	other := 0
	for _, line := range strings.Split(output, "\n") {
		m := errLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		file := m[1]
		if !filepath.IsAbs(file) {
			file = filepath.Join(work, file)
		}
		n, _ := strconv.Atoi(m[2])
		m[3] = unprivate(m[3], kind, trees)
		rel, err := filepath.Rel(work, file)
		if err != nil || strings.HasPrefix(rel, "..") {
			other++
			continue
		}
		parts := strings.SplitN(filepath.ToSlash(rel), "/", 3)
		if len(parts) < 3 {
			other++
			continue
		}
		switch parts[0] {
		case "adapter":
			side := parts[1]
			src := filepath.Join(adapterDir, parts[2])
			line := n - headerLines
			p := Problem{File: filepath.ToSlash(filepath.Join(kind.Adapter, parts[2])), Line: line, Func: enclosing(src, line), Msg: m[3]}
			// Every side the adapter fails on, each problem once.
			if s := sideNamed(trees, side); !slices.Contains(ae.Sides, s) {
				ae.Sides = append(ae.Sides, s)
			}
			if len(ae.Problems) < maxProblems && !slices.Contains(ae.Problems, p) {
				ae.Problems = append(ae.Problems, p)
			}
		case "tree":
			side := parts[1]
			if _, ok := treeProblems[side]; !ok {
				treeOrder = append(treeOrder, side)
			}
			if len(treeProblems[side]) < maxProblems {
				treeProblems[side] = append(treeProblems[side], Problem{File: parts[2], Line: n, Msg: m[3]})
			}
		default:
			other++
		}
	}
	// A tree that does not compile explains the adapter's errors too.
	if len(treeOrder) > 0 {
		side := treeOrder[0]
		t := treeNamed(trees, side)
		var b strings.Builder
		fmt.Fprintf(&b, "%s does not compile:", t.side)
		for _, p := range treeProblems[side] {
			fmt.Fprintf(&b, "\n  %s:%d: %s", filepath.Join(t.dir, filepath.FromSlash(p.File)), p.Line, p.Msg)
		}
		return &InputError{Err: fmt.Errorf("%s", b.String())}
	}
	if len(ae.Sides) > 0 {
		slices.SortFunc(ae.Sides, func(a, b Side) int { return sideIndex(trees, a) - sideIndex(trees, b) })
		return ae
	}
	tail := lastLines(output, 15)
	return fmt.Errorf("building the %s adapter at %d trees failed outside the adapter and the trees (a dependency at the version Go's minimum version selection chose for the trees together, or a module that could not be downloaded):\n%s", kind.Name, len(trees), tail)
}

// unprivate turns the sides' private module paths in a compiler message
// back into the proxy's.
func unprivate(msg string, kind Kind, trees []*tree) string {
	for _, t := range trees {
		if t.private != "" {
			msg = strings.ReplaceAll(msg, t.private, t.module())
		}
	}
	return msg
}

// sideNamed and treeNamed find a tree by side name.
func sideNamed(trees []*tree, name string) Side {
	if t := treeNamed(trees, name); t != nil {
		return t.side
	}
	return Side{Name: name}
}

func sideIndex(trees []*tree, s Side) int {
	return slices.IndexFunc(trees, func(t *tree) bool { return t.side.Name == s.Name })
}

func treeNamed(trees []*tree, name string) *tree {
	for _, t := range trees {
		if t.side.Name == name {
			return t
		}
	}
	return nil
}

// lastLines returns the last n non-empty lines of s, indented.
func lastLines(s string, n int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, "  "+l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// enclosing names the top-level declaration of the Go file at path that
// holds line: a function or method ("(*Store).Update"), a declaration of
// a type, variable or constant ("type generation"), or "the imports".
func enclosing(path string, line int) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return "?"
	}
	for _, d := range f.Decls {
		start, end := fset.Position(d.Pos()).Line, fset.Position(d.End()).Line
		if line < start || line > end {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			return funcName(d)
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				return "the imports"
			}
			for _, s := range d.Specs {
				if fset.Position(s.Pos()).Line <= line && line <= fset.Position(s.End()).Line {
					switch s := s.(type) {
					case *ast.TypeSpec:
						return "type " + s.Name.Name
					case *ast.ValueSpec:
						return d.Tok.String() + " " + s.Names[0].Name
					}
				}
			}
			return d.Tok.String() + " declaration"
		}
	}
	return "?"
}

// funcName is "F", "T.M" or "(*T).M".
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if ix, ok := t.(*ast.IndexExpr); ok { // generic receiver
		t = ix.X
	}
	switch t := t.(type) {
	case *ast.StarExpr:
		x := t.X
		if ix, ok := x.(*ast.IndexExpr); ok {
			x = ix.X
		}
		if id, ok := x.(*ast.Ident); ok {
			return "(*" + id.Name + ")." + d.Name.Name
		}
	case *ast.Ident:
		return t.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

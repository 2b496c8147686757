package peerbuild

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// An AdapterError is a build that failed in the adapter's own code: the
// tree's Go API differs from what the adapter was written against.
type AdapterError struct {
	Kind     Kind      // the proxy
	Sides    []Side    // the trees the adapter did not build against
	Problems []Problem // the compiler's errors in the adapter
}

// A Problem is one compiler error, where it is.
type Problem struct {
	File string // in the adapter's source
	Line int    // in File
	Func string // the enclosing declaration in the adapter ("(*Store).Update", "the imports")
	Msg  string // the compiler's
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

// classify turns a failed build's output into an *AdapterError (errors in
// the adapters), an *InputError (a tree that does not compile explains the
// adapter's errors too), or an error quoting the output's last lines.
func classify(output, work, adapterDir string, kind Kind, trees []*tree) error {
	ae := &AdapterError{Kind: kind}
	failed := map[*tree]bool{}
	var broken *tree // the first tree that does not compile
	var brokenAt []string
	for _, line := range strings.Split(output, "\n") {
		m := errLine.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		file := m[1]
		if !filepath.IsAbs(file) {
			file = filepath.Join(work, file)
		}
		rel, _ := filepath.Rel(work, file)
		parts := strings.SplitN(filepath.ToSlash(rel), "/", 3) // adapter|tree, side, file
		i := slices.IndexFunc(trees, func(t *tree) bool { return len(parts) == 3 && t.side.Name == parts[1] })
		if i < 0 {
			continue
		}
		t, msg := trees[i], m[3]
		n, _ := strconv.Atoi(m[2])
		for _, t := range trees {
			msg = strings.ReplaceAll(msg, t.private, t.module())
		}
		switch parts[0] {
		case "adapter":
			failed[t] = true
			n -= headerLines
			p := Problem{File: path.Join(kind.Adapter, parts[2]), Line: n, Func: enclosing(filepath.Join(adapterDir, parts[2]), n), Msg: msg}
			if len(ae.Problems) < maxProblems && !slices.Contains(ae.Problems, p) {
				ae.Problems = append(ae.Problems, p)
			}
		case "tree":
			if broken == nil {
				broken = t
			}
			if t == broken && len(brokenAt) < maxProblems {
				brokenAt = append(brokenAt, fmt.Sprintf("\n  %s:%d: %s", filepath.Join(t.dir, filepath.FromSlash(parts[2])), n, msg))
			}
		}
	}
	if broken != nil {
		return &InputError{Err: errors.New(broken.side.String() + " does not compile:" + strings.Join(brokenAt, ""))}
	}
	for _, t := range trees {
		if failed[t] {
			ae.Sides = append(ae.Sides, t.side)
		}
	}
	if len(ae.Sides) > 0 {
		return ae
	}
	var tail []string
	for l := range strings.Lines(output) {
		if strings.TrimSpace(l) != "" {
			tail = append(tail, "  "+strings.TrimRight(l, "\r\n"))
		}
	}
	return fmt.Errorf("building the %s adapter at %d trees failed outside the adapter and the trees (a dependency at the version Go's minimum version selection chose for the trees together, or a module that could not be downloaded):\n%s",
		kind.Name, len(trees), strings.Join(tail[max(0, len(tail)-15):], "\n"))
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

// funcName is "F", "T.M" or "(*T).M" (type parameters left out).
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	recv, _, _ := strings.Cut(types.ExprString(d.Recv.List[0].Type), "[")
	if strings.HasPrefix(recv, "*") {
		recv = "(" + recv + ")"
	}
	return recv + "." + d.Name.Name
}

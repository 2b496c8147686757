// Package yamlnode reads certbench's YAML input files (the policy file,
// scenario files) node by node, so that every error names
// file:line:column and the field, every field is checked, and nothing is
// silently ignored. It is a thin layer over go.yaml.in/yaml/v3's Node.
package yamlnode

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ReadFile reads the file name for a YAML document of at most max bytes.
// what names the kind of file in errors ("policy file"). The file must be
// a regular file (not a directory, device or FIFO).
func ReadFile(name, what string, max int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file", what, name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, name, err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s %s: larger than %d bytes", what, name, max)
	}
	return data, nil
}

// Parse parses data, the contents of the file name, and returns its
// top-level node (aliases resolved). A syntax error names name:line; an
// empty document is an error naming what was expected (want).
func Parse(data []byte, name, want string) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, syntaxError(name, data, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty configuration; want %s", name, want)
	}
	return Resolve(root.Content[0]), nil
}

// Reader walks a document and collects errors, each naming
// Name:line:column and the field.
type Reader struct {
	// Name is the file name errors give.
	Name string
	// Errs are the errors so far, in document order.
	Errs []error
}

// Err returns the errors so far joined (errors.Join), or nil.
func (r *Reader) Err() error { return errors.Join(r.Errs...) }

// Pos returns "name:line:column" of n.
func (r *Reader) Pos(n *yaml.Node) string {
	return fmt.Sprintf("%s:%d:%d", r.Name, n.Line, n.Column)
}

// Errorf records an error at n about field.
func (r *Reader) Errorf(n *yaml.Node, field, format string, args ...any) {
	r.Errs = append(r.Errs, fmt.Errorf("%s: %s: %s", r.Pos(n), field, fmt.Sprintf(format, args...)))
}

// Resolve follows an alias to the node it names.
func Resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// KindName describes n for an error: "a mapping", "a list", "nothing" or
// the quoted scalar.
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "a document"
}

// Fields calls f for each key of mapping n in order, reporting keys that
// are not scalars or repeat. prefix names the mapping in errors ("gate.").
func (r *Reader) Fields(n *yaml.Node, prefix string, f func(key string, k, v *yaml.Node)) {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := Resolve(n.Content[i]), Resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			r.Errorf(k, strings.TrimSuffix(prefix, "."), "want a field name, found %s", KindName(k))
			continue
		}
		if first, ok := seen[k.Value]; ok {
			r.Errorf(k, prefix+k.Value, "set twice (first at line %d, column %d)", first.Line, first.Column)
			continue
		}
		seen[k.Value] = k
		f(k.Value, k, v)
	}
}

// Mapping reports whether n is a mapping, recording an error naming what
// it should hold when it is not.
func (r *Reader) Mapping(n *yaml.Node, field, of string) bool {
	if n.Kind != yaml.MappingNode {
		r.Errorf(n, field, "want a mapping of %s, found %s", of, KindName(n))
		return false
	}
	return true
}

// Number reads a numeric scalar.
func (r *Reader) Number(v *yaml.Node, field string) (float64, bool) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") {
		r.Errorf(v, field, "want a number, found %s", KindName(v))
		return 0, false
	}
	var x float64
	if err := v.Decode(&x); err != nil {
		r.Errorf(v, field, "%s: want a number", v.Value)
		return 0, false
	}
	return x, true
}

// Int reads a whole number in [least, most]; what names its unit in
// errors ("certificates").
func (r *Reader) Int(v *yaml.Node, field, what string, least, most int) (int, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
		r.Errorf(v, field, "want a whole number of %s, found %s", what, KindName(v))
		return 0, false
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(v.Value, "_", ""), 0, 64)
	if err != nil || n < int64(least) || n > int64(most) {
		r.Errorf(v, field, "%s: want %s from %d to %d", v.Value, what, least, most)
		return 0, false
	}
	return int(n), true
}

// Bool reads true or false.
func (r *Reader) Bool(v *yaml.Node, field string) (bool, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		r.Errorf(v, field, "%s: want true or false", KindName(v))
		return false, false
	}
	var b bool
	if err := v.Decode(&b); err != nil {
		r.Errorf(v, field, "%s: want true or false", v.Value)
		return false, false
	}
	return b, true
}

// String reads a non-empty string scalar.
func (r *Reader) String(v *yaml.Node, field string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || v.Value == "" {
		r.Errorf(v, field, "want a string, found %s", KindName(v))
		return "", false
	}
	return v.Value, true
}

// Strings reads a list of non-empty strings.
func (r *Reader) Strings(v *yaml.Node, field string) ([]string, bool) {
	if v.Kind != yaml.SequenceNode {
		r.Errorf(v, field, "want a list of names, found %s", KindName(v))
		return nil, false
	}
	out := make([]string, 0, len(v.Content))
	ok := true
	for i, e := range v.Content {
		s, good := r.String(Resolve(e), fmt.Sprintf("%s[%d]", field, i))
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

// syntaxError turns a yaml.v3 syntax error into "name:line: message".
// yaml.v3 reports the line where its scanner noticed the problem, which
// for an unclosed quote or bracket can be far from where the problem is;
// the line is the first one from there on such that the document cut
// after it fails with the same message.
func syntaxError(name string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	rest, ok := strings.CutPrefix(msg, "line ")
	if !ok {
		return fmt.Errorf("%s: %s", name, msg)
	}
	n, what, ok := strings.Cut(rest, ": ")
	line, err := strconv.Atoi(n)
	if !ok || err != nil {
		return fmt.Errorf("%s: %s", name, msg)
	}
	if l := problemLine(data, line, what); l > 0 {
		line = l
	}
	return fmt.Errorf("%s:%d: %s", name, line, what)
}

// maxProblemScan bounds the documents problemLine parses.
const maxProblemScan = 500

// problemLine returns the first line, from line from on, at which data cut
// after that line fails to parse with message msg, or 0.
func problemLine(data []byte, from int, msg string) int {
	var ends []int // ends[i] is the offset after line i+1
	for i, c := range data {
		if c == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	for k := max(from, 1); k <= len(ends) && k < from+maxProblemScan; k++ {
		var n yaml.Node
		err := yaml.Unmarshal(data[:ends[k-1]], &n)
		if err != nil && strings.HasSuffix(err.Error(), ": "+msg) {
			return k
		}
	}
	return 0
}

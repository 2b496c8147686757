// Package yamlfile decodes certbench's YAML input files into plain Go
// structs, every error of a file at once, each naming file:line:column and
// the field. Decode checks the document against the struct's type first
// (yaml.v3's errors carry no column, and it reads yes as true and 4.5 as
// 4), then decodes it, then runs the struct's Validate.
package yamlfile

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// ReadFile reads the regular file name of at most max bytes; what names
// the kind of file in errors ("policy file").
func ReadFile(name, what string, max int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %s: not a regular file", what, name)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s %s: larger than %d bytes", what, name, max)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return data, nil
}

// A Validator checks a decoded value; Decode positions its *FieldErrors
// (joined), and reports any other error with the file name only.
type Validator interface {
	Validate() error
}

// A FieldError is a problem with one field, named by its path from the
// document's top: "gate.max.sec/op", "churn.steps[0].renew".
type FieldError struct {
	Field string
	AtKey bool // at the key, not the value: the field should not be there
	// Node, when set, is where the error is (from an UnmarshalYAML
	// method); Field is then relative to it.
	Node *yaml.Node
	// Err says what is wrong; Decode puts the value as written, or
	// "missing", before it.
	Err error
}

// Error names the field and what is wrong.
func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns e.Err.
func (e *FieldError) Unwrap() error { return e.Err }

// Errorf returns a FieldError about the value of field.
func Errorf(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Err: fmt.Errorf(format, args...)}
}

// KeyErrorf returns a FieldError about the presence of field.
func KeyErrorf(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, AtKey: true, Err: fmt.Errorf(format, args...)}
}

// NodeErrorf returns a FieldError at node n, for an UnmarshalYAML method;
// field is relative to the node the method decodes ("" for that node).
func NodeErrorf(n *yaml.Node, field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Node: n, Err: fmt.Errorf(format, args...)}
}

// Within returns err with prefix put before the Field of each FieldError
// in it, for a Validate method that checks a nested value.
func Within(prefix string, err error) error {
	var out []error
	for _, e := range Flatten(err) {
		if fe, ok := e.(*FieldError); ok {
			c := *fe
			c.Field = join(prefix, fe.Field)
			e = &c
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// Flatten returns the errors in err, unjoined.
func Flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Flatten(e)...)
		}
		return out
	}
	if err == nil {
		return nil
	}
	return []error{err}
}

func join(path, field string) string {
	if path == "" || field == "" || strings.HasPrefix(field, "[") {
		return path + field
	}
	return path + "." + field
}

// Decode reads data, the contents of the file name, into v, a pointer to a
// struct with yaml tags (fields left out keep their values; `check:
// "required"` ones must be there), then runs v's Validate if it has one.
// want describes the document ("a scenario (name, pool, churn, ops)").
// The errors come in document order.
func Decode(data []byte, name, want string, v any) error {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return syntaxError(name, data, err)
	}
	if len(root.Content) == 0 {
		return fmt.Errorf("%s: empty configuration; want %s", name, want)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d:%d: want %s, found %s", name, doc.Line, doc.Column, want, KindName(doc))
	}
	c := &checker{name: name, at: map[string]place{"": {value: doc}}, seen: map[seenKey]bool{}}
	c.check(doc, reflect.TypeOf(v), "")
	// After errors the bad values are nulls: the rest decodes, to be validated.
	if err := doc.Decode(v); err != nil && len(c.errs) == 0 {
		return fmt.Errorf("%s: %w", name, err) // the checks above leave nothing for it
	}
	if val, ok := v.(Validator); ok {
		for _, err := range Flatten(val.Validate()) {
			c.validated(err)
		}
	}
	slices.SortStableFunc(c.errs, func(a, b posError) int {
		return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.column, b.column))
	})
	var errs []error
	for i, e := range c.errs {
		if i == maxErrors {
			errs = append(errs, fmt.Errorf("%s: %d more errors", name, len(c.errs)-i))
			break
		}
		errs = append(errs, e.error)
	}
	return errors.Join(errs...)
}

const maxErrors = 50

type checker struct {
	name    string
	errs    []posError
	at      map[string]place // where each field is, by path
	flagged []string         // paths with errors
	seen    map[seenKey]bool // whether each node checked was good
}

type posError struct {
	line, column int
	error
}

// place is where a field is: its key (none for list items and the
// document) and its value.
type place struct{ key, value *yaml.Node }

// seenKey is a node checked against a type, once however often aliases
// name it, so that checking takes time in proportion to the document.
type seenKey struct {
	n *yaml.Node
	t reflect.Type
}

func (c *checker) errorf(n *yaml.Node, field, format string, args ...any) {
	c.flagged = append(c.flagged, field)
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	c.errs = append(c.errs, posError{n.Line, n.Column, fmt.Errorf("%s:%d:%d: %s", c.name, n.Line, n.Column, msg)})
}

func (c *checker) mismatch(n *yaml.Node, t reflect.Type, path string) bool {
	c.errorf(n, path, "want %s, found %s", describe(t), KindName(n))
	return false
}

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	durationType    = reflect.TypeFor[time.Duration]()
)

// check checks n against t, recording errors about the field at path,
// and reports whether n can be decoded into t. Bad values inside n are
// replaced by nulls, so that the rest of n decodes.
func (c *checker) check(n *yaml.Node, t reflect.Type, path string) (ok bool) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	key := seenKey{n, t}
	if ok, done := c.seen[key]; done {
		return ok
	}
	defer func() { c.seen[key] = ok }()
	switch k := t.Kind(); {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return c.mismatch(n, t, path)
	case reflect.PointerTo(t).Implements(unmarshalerType):
		return c.unmarshaler(n, t, path)
	case t == durationType:
		if _, err := time.ParseDuration(n.Value); n.Kind != yaml.ScalarNode || err != nil {
			return c.mismatch(n, t, path)
		}
	case k == reflect.Struct || k == reflect.Map:
		return c.mapping(n, t, path)
	case k == reflect.Slice && n.Kind == yaml.SequenceNode:
		if len(n.Content) == 0 {
			c.errorf(n, path, "empty list: leave the field out for its default")
			return false
		}
		for i, e := range n.Content {
			item := fmt.Sprintf("%s[%d]", path, i)
			c.at[item] = place{value: e}
			if !c.check(e, t.Elem(), item) {
				n.Content[i] = null(e)
			}
		}
	case !scalarFits(n, t):
		return c.mismatch(n, t, path)
	}
	return true
}

func (c *checker) unmarshaler(n *yaml.Node, t reflect.Type, path string) bool {
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		c.at[join(path, n.Content[i].Value)] = place{key: n.Content[i], value: n.Content[i+1]}
	}
	err := reflect.New(t).Interface().(yaml.Unmarshaler).UnmarshalYAML(n)
	for _, e := range Flatten(err) {
		var fe *FieldError
		switch {
		case !errors.As(e, &fe):
			c.errorf(n, path, "%v", e)
		default:
			c.errorf(cmp.Or(fe.Node, n), join(path, fe.Field), "%v", fe.Err)
		}
	}
	return err == nil
}

// scalarFits reports whether n is a scalar that decodes into t exactly: a
// whole number that fits for an integer, any number for a float, true or
// false for a bool, a non-empty string.
func scalarFits(n *yaml.Node, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice:
		return false
	case reflect.Bool:
		return n.Tag == "!!bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return n.Tag == "!!int" && n.Decode(reflect.New(t).Interface()) == nil
	case reflect.Float32, reflect.Float64:
		return n.Tag == "!!int" || n.Tag == "!!float"
	case reflect.String:
		return n.Kind == yaml.ScalarNode && n.Value != ""
	}
	return n.Decode(reflect.New(t).Interface()) == nil
}

// mapping checks a mapping n against the struct or map type t.
func (c *checker) mapping(n *yaml.Node, t reflect.Type, path string) bool {
	if n.Kind != yaml.MappingNode {
		return c.mismatch(n, t, path)
	}
	if len(n.Content) == 0 {
		c.errorf(n, path, "empty mapping: leave the field out for its default")
		return false
	}
	fields, rest := fieldsOf(t)
	seen := map[string]*yaml.Node{}
	fieldNamed := func(name string) int { return slices.IndexFunc(fields, func(f field) bool { return f.name == name }) }
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		field := join(path, k.Value)
		if first, ok := seen[k.Value]; ok || k.Kind != yaml.ScalarNode {
			if k.Kind != yaml.ScalarNode {
				c.errorf(k, path, "want a field name, found %s", KindName(k))
			} else {
				c.errorf(k, field, "set twice (first at line %d, column %d)", first.Line, first.Column)
			}
			continue
		}
		seen[k.Value] = k
		c.at[field] = place{key: k, value: v}
		elem := t
		if t.Kind() == reflect.Map {
			elem = t.Elem()
		} else if i := fieldNamed(k.Value); i >= 0 {
			elem = fields[i].Type
		} else {
			if !rest { // an inline map takes, unchecked, what names no field
				names := []string{}
				for _, f := range fields {
					names = append(names, f.name)
				}
				c.errorf(k, field, "unknown field%s (known: %s)", DidYouMean(k.Value, names), fieldNames(t, false))
			}
			continue
		}
		if !c.check(v, elem, field) {
			n.Content[i+1] = null(v)
		}
	}
	for _, f := range fields {
		if f.Tag.Get("check") == "required" && seen[f.name] == nil && len(c.errs) == 0 {
			c.errorf(n, join(path, f.name), "missing (required: %s)", fieldNames(t, true))
		}
	}
	return true
}

type field struct {
	name string
	reflect.StructField
}

// fieldsOf returns the fields of struct type t by their YAML names, in
// order, and whether an inline map takes the keys that name none of them.
func fieldsOf(t reflect.Type) (fields []field, rest bool) {
	for i := 0; t.Kind() == reflect.Struct && i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case !f.IsExported() || name == "-":
		case strings.Contains(opts, "inline"):
			rest = true
		case name == "":
			fields = append(fields, field{strings.ToLower(f.Name), f})
		default:
			fields = append(fields, field{name, f})
		}
	}
	return fields, rest
}

// fieldNames lists the YAML names of struct type t's fields for an error:
// all of them ("..." for an inline map's), or only those tagged
// check:"required".
func fieldNames(t reflect.Type, required bool) string {
	fields, rest := fieldsOf(t)
	var out []string
	for _, f := range fields {
		if !required || f.Tag.Get("check") == "required" {
			out = append(out, f.name)
		}
	}
	if rest && !required {
		out = append(out, "...")
	}
	return strings.Join(out, ", ")
}

// describe says what a value of type t is written as.
func describe(t reflect.Type) string {
	switch k := t.Kind(); {
	case k == reflect.Pointer:
		return describe(t.Elem())
	case k == reflect.Struct:
		return "a mapping (" + fieldNames(t, false) + ")"
	case k == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		return "a list of mappings (" + fieldNames(t.Elem(), false) + ")"
	case k == reflect.Slice && t.Elem().Kind() == reflect.String:
		return "a list of names"
	case t == durationType:
		return "a duration such as 2s or 100ms"
	}
	if d, ok := map[reflect.Kind]string{reflect.Map: "a mapping", reflect.Slice: "a list", reflect.Bool: "true or false",
		reflect.Float32: "a number", reflect.Float64: "a number", reflect.String: "a string"}[t.Kind()]; ok {
		return d
	}
	return "a whole number"
}

// KindName describes n for an error: "a mapping", "a list", "nothing" or
// the quoted scalar.
func KindName(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Tag == "!!null":
		return "nothing"
	}
	return strconv.Quote(n.Value)
}

func null(n *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
}

// validated records an error from Validate, at the field it names, with
// the value as written or "missing". After errors from the checks, only
// errors about fields that are there and unrelated to those are kept:
// the others follow from the first.
func (c *checker) validated(err error) {
	var fe *FieldError
	if !errors.As(err, &fe) {
		if len(c.errs) == 0 {
			c.errs = append(c.errs, posError{error: fmt.Errorf("%s: %w", c.name, err)})
		}
		return
	}
	p, ok := c.at[fe.Field]
	switch {
	case len(c.errs) > 0 && (!ok || c.related(fe.Field)):
	case !ok:
		at := fe.Field
		for ; !ok; p, ok = c.at[at] {
			at = parent(at)
		}
		c.errorf(p.value, fe.Field, "missing: %v", fe.Err)
	case fe.AtKey && p.key != nil:
		c.errorf(p.key, fe.Field, "%v", fe.Err)
	case p.value.Kind == yaml.ScalarNode && p.value.Tag == "!!str":
		c.errorf(p.value, fe.Field, "%q: %v", p.value.Value, fe.Err)
	case p.value.Kind == yaml.ScalarNode:
		c.errorf(p.value, fe.Field, "%s: %v", p.value.Value, fe.Err)
	default:
		c.errorf(p.value, fe.Field, "%v", fe.Err)
	}
}

// related reports whether an error was recorded about field, a field
// within it, or a field it is within.
func (c *checker) related(field string) bool {
	within := func(a, b string) bool {
		return a == b || b == "" || strings.HasPrefix(a, b+".") || strings.HasPrefix(a, b+"[")
	}
	return slices.ContainsFunc(c.flagged, func(f string) bool { return within(f, field) || within(field, f) })
}

func parent(field string) string {
	return field[:max(0, strings.LastIndexByte(field, '.'), strings.LastIndexByte(field, '['))]
}

// syntaxError turns a yaml.v3 syntax error into "name:line: message", the
// line the first from yaml.v3's (which can be far off for an unclosed
// quote) where the document cut after it fails the same way.
func syntaxError(name string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	rest, ok1 := strings.CutPrefix(msg, "line ")
	n, what, ok2 := strings.Cut(rest, ": ")
	line, err := strconv.Atoi(n)
	if !ok1 || !ok2 || err != nil {
		return fmt.Errorf("%s: %s", name, msg)
	}
	if l := problemLine(data, line, what); l > 0 {
		line = l
	}
	return fmt.Errorf("%s:%d: %s", name, line, what)
}

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

// DidYouMean is "; did you mean NAME?" for the name closest to word (a
// prefix either way, or within a few edits), "" if none is close:
// certbench's one suggestion for a mistyped field, flag, store or
// scenario name.
func DidYouMean(word string, names []string) string {
	best, bestScore := "", [2]int{len(word)/3 + 2, 0}
	for _, name := range names {
		d := editDistance(word, name)
		score := [2]int{d, d}
		if strings.HasPrefix(name, word) || strings.HasPrefix(word, name) {
			score[0] = min(d, 1)
		}
		if score[0] < bestScore[0] || (score[0] == bestScore[0] && best != "" && score[1] < bestScore[1]) {
			best, bestScore = name, score
		}
	}
	if best == "" || best == word {
		return ""
	}
	return "; did you mean " + best + "?"
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := []int{i}
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur = append(cur, min(sub, prev[j]+1, cur[j-1]+1))
		}
		prev = cur
	}
	return prev[len(b)]
}

package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxConfigSize is the largest policy file LoadConfig reads: a policy is
// a few dozen lines, so anything bigger is the wrong file.
const MaxConfigSize = 1 << 20

// LoadConfig reads the gate policy from a certbench.yaml file; see
// ParseConfig. The file must be a regular file of at most MaxConfigSize
// bytes. The policy's Source is the file name.
func LoadConfig(name string) (Policy, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return Policy{}, fmt.Errorf("gate: policy file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return Policy{}, fmt.Errorf("gate: policy file %s: not a regular file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return Policy{}, fmt.Errorf("gate: policy file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxConfigSize+1))
	if err != nil {
		return Policy{}, fmt.Errorf("gate: policy file %s: %w", name, err)
	}
	if len(data) > MaxConfigSize {
		return Policy{}, fmt.Errorf("gate: policy file %s: larger than %d bytes; not a certbench.yaml", name, MaxConfigSize)
	}
	p, err := ParseConfig(data, name)
	p.Source = name
	return p, err
}

// ParseConfig reads the gate policy from the "gate" section of a
// certbench.yaml document (other top-level sections are left to other
// commands), starting from DefaultPolicy: a field or unit the file does
// not mention keeps its default.
//
//	gate:
//	  alpha: 0.05          # in (0, 1); per metric, after Holm's correction
//	  min_samples: 4       # at least MinSamplesFor(alpha): 4 at 0.05
//	  correction: holm     # or none
//	  test: auto           # paired (signed-rank by round), unpaired (U test), or auto
//	  allow_missing: false
//	  strict: false        # true: a machine or Go version mismatch fails
//	  max:                 # +N% relative, or an amount with its unit, or off
//	    allocs/op: +0%
//	    B/op: +2%          # or +1KiB
//	    sec/op: +10%       # or +50us, +2ms
//	    retained-B: +2%    # retained-B/cert follows unless set
//	    goroutines: +0     # or +1goroutines
//	  overrides:           # later entries win
//	    - scenario: lookup-*
//	      store: "*"
//	      max:
//	        sec/op: +25%
//
// Everything is checked, and every error names name:line:column and the
// field: unknown or repeated fields and units, values of the wrong type,
// an alpha outside (0, 1), a min_samples the U test could not use (see
// MinSamplesFor), a bare number as a threshold ("sec/op: 10" would be ten
// seconds: write +10% or +10ms), an amount of the wrong measure, a bad
// pattern, and an override that matches every benchmark or sets nothing.
// Zero is not "the default": leave a field out for that.
func ParseConfig(data []byte, name string) (Policy, error) {
	p := DefaultPolicy()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return p, fmt.Errorf("gate: %w", syntaxError(name, data, err))
	}
	if len(root.Content) == 0 {
		return p, fmt.Errorf("gate: %s: empty configuration", name)
	}
	r := &configReader{name: name}
	doc := resolve(root.Content[0])
	if doc.Kind != yaml.MappingNode {
		return p, fmt.Errorf("gate: %s: want a mapping with a \"gate\" section, found %s", r.pos(doc), kindName(doc))
	}
	var section *yaml.Node
	r.fields(doc, "", func(key string, k, v *yaml.Node) {
		if key == "gate" {
			section = v
		} // other sections belong to other commands
	})
	if r.errs == nil && section == nil {
		return p, fmt.Errorf("gate: %s: no \"gate\" section", name)
	}
	if section != nil {
		r.gate(section, &p)
	}
	if len(r.errs) > 0 {
		return p, fmt.Errorf("gate: %w", errors.Join(r.errs...))
	}
	if _, err := p.withDefaults(); err != nil { // cannot happen: every field was checked
		return p, fmt.Errorf("gate: %s: %w", name, err)
	}
	return p, nil
}

// configReader walks a certbench.yaml document and collects errors.
type configReader struct {
	name string
	errs []error
}

func (r *configReader) pos(n *yaml.Node) string {
	return fmt.Sprintf("%s:%d:%d", r.name, n.Line, n.Column)
}

func (r *configReader) errorf(n *yaml.Node, field, format string, args ...any) {
	r.errs = append(r.errs, fmt.Errorf("%s: %s: %s", r.pos(n), field, fmt.Sprintf(format, args...)))
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func kindName(n *yaml.Node) string {
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

// fields calls f for each key of mapping n in order, reporting keys that
// are not scalars or repeat. prefix names the mapping in errors.
func (r *configReader) fields(n *yaml.Node, prefix string, f func(key string, k, v *yaml.Node)) {
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			r.errorf(k, strings.TrimSuffix(prefix, "."), "want a field name, found %s", kindName(k))
			continue
		}
		if first, ok := seen[k.Value]; ok {
			r.errorf(k, prefix+k.Value, "set twice (first at line %d, column %d)", first.Line, first.Column)
			continue
		}
		seen[k.Value] = k
		f(k.Value, k, v)
	}
}

// gateFields are the fields of the "gate" section.
var gateFields = []string{"alpha", "min_samples", "correction", "test", "allow_missing", "strict", "max", "overrides"}

// gate reads the "gate" section n into p.
func (r *configReader) gate(n *yaml.Node, p *Policy) {
	if n.Kind != yaml.MappingNode {
		r.errorf(n, "gate", "want a mapping of the gate's settings, found %s", kindName(n))
		return
	}
	if len(n.Content) == 0 {
		r.errorf(n, "gate", "empty section; leave it out for the built-in defaults")
		return
	}
	var minNode *yaml.Node
	r.fields(n, "gate.", func(key string, k, v *yaml.Node) {
		field := "gate." + key
		switch key {
		case "alpha":
			a, ok := r.number(v, field)
			if !ok {
				return
			}
			if !(a > 0 && a < 1) {
				hint := ""
				if a == 0 {
					hint = " (0 is not the default: leave the field out for 0.05)"
				}
				r.errorf(v, field, "%s: want a significance level between 0 and 1 (exclusive), such as 0.05%s", v.Value, hint)
				return
			}
			p.Alpha = a
		case "min_samples":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
				r.errorf(v, field, "want a whole number of samples, found %s", kindName(v))
				return
			}
			m, err := strconv.Atoi(v.Value)
			if err != nil {
				r.errorf(v, field, "%s: want a whole number of samples", v.Value)
				return
			}
			p.MinSamples, minNode = m, v // checked against alpha below
		case "correction":
			if v.Kind != yaml.ScalarNode || (v.Value != string(Holm) && v.Value != string(NoCorrection)) {
				r.errorf(v, field, "%s: want %s or %s", kindName(v), Holm, NoCorrection)
				return
			}
			p.Correction = Correction(v.Value)
		case "test":
			c, err := ParseTestChoice(v.Value)
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || err != nil {
				r.errorf(v, field, "%s: want auto, paired or unpaired", kindName(v))
				return
			}
			p.Test = c
		case "allow_missing", "strict":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
				r.errorf(v, field, "%s: want true or false", kindName(v))
				return
			}
			b := v.Value == "true" || v.Value == "True" || v.Value == "TRUE"
			if key == "strict" {
				p.Strict = b
			} else {
				p.AllowMissing = b
			}
		case "max":
			for u, th := range r.max(v, field) {
				p.Max[u] = th
			}
		case "overrides":
			r.overrides(v, field, p)
		default:
			r.errorf(k, field, "unknown field (known: %s)", strings.Join(gateFields, ", "))
		}
	})
	if minNode != nil {
		least := MinSamplesFor(p.Alpha)
		switch {
		case p.MinSamples == 0:
			r.errorf(minNode, "gate.min_samples", "0: want at least %d (0 is not the default: leave the field out for %d)", least, DefaultMinSamples)
		case p.MinSamples < 0:
			r.errorf(minNode, "gate.min_samples", "%d: want at least %d", p.MinSamples, least)
		case p.MinSamples < least:
			r.errorf(minNode, "gate.min_samples", "%d: the U test cannot reach p < %g with fewer than %d samples a side; want at least %d", p.MinSamples, p.Alpha, least, least)
		}
	}
}

// number reads a numeric scalar.
func (r *configReader) number(v *yaml.Node, field string) (float64, bool) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!float" && v.Tag != "!!int") {
		r.errorf(v, field, "want a number, found %s", kindName(v))
		return 0, false
	}
	var x float64
	if err := v.Decode(&x); err != nil {
		r.errorf(v, field, "%s: want a number", v.Value)
		return 0, false
	}
	return x, true
}

// max reads a mapping of unit: threshold.
func (r *configReader) max(n *yaml.Node, field string) map[string]Threshold {
	if n.Kind != yaml.MappingNode {
		r.errorf(n, field, "want a mapping of unit: threshold (such as sec/op: +10%%), found %s", kindName(n))
		return nil
	}
	if len(n.Content) == 0 {
		r.errorf(n, field, "empty: no threshold set; leave it out for the defaults")
		return nil
	}
	out := map[string]Threshold{}
	where := map[string]*yaml.Node{}
	r.fields(n, field+".", func(key string, k, v *yaml.Node) {
		unit, err := CheckUnit(key)
		if err != nil {
			r.errorf(k, field, "%v", err)
			return
		}
		if first, ok := where[unit]; ok {
			r.errorf(k, field+"."+key, "sets %s again (first as %s at line %d, column %d)", unit, first.Value, first.Line, first.Column)
			return
		}
		where[unit] = k
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			r.errorf(v, field+"."+key, "want a threshold (+N%%, %s or off), found %s", exampleAmount(MeasureOf(unit), "N"), kindName(v))
			return
		}
		th, err := parseThreshold(unit, v.Value)
		if err != nil {
			r.errorf(v, field+"."+key, "%v", err)
			return
		}
		out[unit] = th
	})
	return out
}

// overrideFields are the fields of an override.
var overrideFields = []string{"scenario", "store", "max"}

// overrides reads the list of overrides into p.
func (r *configReader) overrides(n *yaml.Node, field string, p *Policy) {
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, field, "want a list of {scenario, store, max}, found %s", kindName(n))
		return
	}
	for i, item := range n.Content {
		item = resolve(item)
		f := fmt.Sprintf("%s[%d]", field, i)
		if item.Kind != yaml.MappingNode {
			r.errorf(item, f, "want a mapping with scenario, store and max, found %s", kindName(item))
			continue
		}
		var o Override
		var hasMax bool
		before := len(r.errs)
		r.fields(item, f+".", func(key string, k, v *yaml.Node) {
			switch key {
			case "scenario", "store":
				if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
					r.errorf(v, f+"."+key, "want a name or a pattern such as lookup-*, found %s", kindName(v))
					return
				}
				if _, err := path.Match(v.Value, ""); err != nil {
					r.errorf(v, f+"."+key, "pattern %q: %v", v.Value, err)
					return
				}
				if key == "scenario" {
					o.Scenario = v.Value
				} else {
					o.Store = v.Value
				}
			case "max":
				hasMax = true
				o.Max = r.max(v, f+".max")
			default:
				r.errorf(k, f+"."+key, "unknown field (known: %s)", strings.Join(overrideFields, ", "))
			}
		})
		switch {
		case len(r.errs) > before: // one error about an override is enough
		case !hasMax:
			r.errorf(item, f, "no max: the override sets nothing")
		case (o.Scenario == "" || o.Scenario == "*") && (o.Store == "" || o.Store == "*"):
			r.errorf(item, f, "matches every benchmark (no scenario or store pattern); put its thresholds under gate.max")
		}
		p.Overrides = append(p.Overrides, o)
	}
}

// WriteConfig writes p as a certbench.yaml "gate" section that
// ParseConfig reads back (an override that ParseConfig would reject, one
// with no pattern or no thresholds, is written as it is and rejected on
// reading). The fields come in a fixed order (alpha, min_samples,
// correction, test, allow_missing, strict, max in the order of Units,
// overrides), thresholds and patterns double-quoted. It fails on a
// pattern that is not valid UTF-8, which YAML cannot hold.
func WriteConfig(w io.Writer, p Policy) error {
	p, err := p.withDefaults()
	if err != nil {
		return fmt.Errorf("gate: policy: %w", err)
	}
	section := mappingNode()
	for _, f := range []struct {
		key   string
		value any
	}{
		{"alpha", p.Alpha},
		{"min_samples", p.MinSamples},
		{"correction", string(p.Correction)},
		{"test", string(p.Test)},
		{"allow_missing", p.AllowMissing},
		{"strict", p.Strict},
	} {
		v := new(yaml.Node)
		if err := v.Encode(f.value); err != nil {
			return fmt.Errorf("gate: policy: %s: %w", f.key, err)
		}
		addField(section, f.key, v)
	}
	addMax(section, p.Max)
	if len(p.Overrides) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, o := range p.Overrides {
			item := mappingNode()
			for _, f := range [][2]string{{"scenario", o.Scenario}, {"store", o.Store}} {
				if f[1] != "" {
					addField(item, f[0], quotedNode(f[1]))
				}
			}
			addMax(item, o.Max)
			seq.Content = append(seq.Content, item)
		}
		addField(section, "overrides", seq)
	}
	root := mappingNode()
	addField(root, "gate", section)

	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return fmt.Errorf("gate: policy: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("gate: policy: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// mappingNode returns an empty block mapping.
func mappingNode() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

// quotedNode returns s as a double-quoted string.
func quotedNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: s}
}

// addField appends key: value to the mapping m.
func addField(m *yaml.Node, key string, value *yaml.Node) {
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value)
}

// addMax appends "max:" with the thresholds of max, in the order of
// Units, to the mapping m, if max has any.
func addMax(m *yaml.Node, max map[string]Threshold) {
	if len(max) == 0 {
		return
	}
	n := mappingNode()
	for _, u := range Units {
		if th, ok := max[u]; ok {
			addField(n, u, quotedNode(th.String()))
		}
	}
	addField(m, "max", n)
}

// syntaxError rewrites yaml's "yaml: line N: msg" syntax errors as
// "name:N: msg". yaml.v3 gives the line where the enclosing construct
// began (counted from 0 for some errors), not where the problem is; so
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

package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/yamlnode"
	"go.yaml.in/yaml/v3"
)

// MaxConfigSize is the largest policy file LoadConfig reads: a policy is
// a few dozen lines, so anything bigger is the wrong file.
const MaxConfigSize = 1 << 20

// LoadConfig reads the gate policy from a certbench.yaml file; see
// ParseConfig. The file must be a regular file of at most MaxConfigSize
// bytes. The policy's Source is the file name.
func LoadConfig(name string) (Policy, error) {
	data, err := yamlnode.ReadFile(name, "policy file", MaxConfigSize)
	if err != nil {
		return Policy{}, fmt.Errorf("gate: %w", err)
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
//	  allow_different_certs: false      # true: gate results on other certificates, warning
//	  allow_different_scenarios: false  # true: gate unlike scenario definitions, warning
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
	doc, err := yamlnode.Parse(data, name, "a mapping with a \"gate\" section")
	if err != nil {
		return p, fmt.Errorf("gate: %w", err)
	}
	r := &configReader{Reader: yamlnode.Reader{Name: name}}
	if doc.Kind != yaml.MappingNode {
		return p, fmt.Errorf("gate: %s: want a mapping with a \"gate\" section, found %s", r.Pos(doc), yamlnode.KindName(doc))
	}
	var section *yaml.Node
	r.Fields(doc, "", func(key string, k, v *yaml.Node) {
		if key == "gate" {
			section = v
		} // other sections belong to other commands
	})
	if r.Errs == nil && section == nil {
		return p, fmt.Errorf("gate: %s: no \"gate\" section", name)
	}
	if section != nil {
		r.gate(section, &p)
	}
	if len(r.Errs) > 0 {
		return p, fmt.Errorf("gate: %w", errors.Join(r.Errs...))
	}
	if _, err := p.withDefaults(); err != nil { // cannot happen: every field was checked
		return p, fmt.Errorf("gate: %s: %w", name, err)
	}
	return p, nil
}

// configReader walks a certbench.yaml document and collects errors.
type configReader struct {
	yamlnode.Reader
}

// gateFields are the fields of the "gate" section.
var gateFields = []string{"alpha", "min_samples", "correction", "test", "allow_missing", "strict", "allow_different_certs", "allow_different_scenarios", "max", "overrides"}

// gate reads the "gate" section n into p.
func (r *configReader) gate(n *yaml.Node, p *Policy) {
	if n.Kind != yaml.MappingNode {
		r.Errorf(n, "gate", "want a mapping of the gate's settings, found %s", yamlnode.KindName(n))
		return
	}
	if len(n.Content) == 0 {
		r.Errorf(n, "gate", "empty section; leave it out for the built-in defaults")
		return
	}
	var minNode *yaml.Node
	r.Fields(n, "gate.", func(key string, k, v *yaml.Node) {
		field := "gate." + key
		switch key {
		case "alpha":
			a, ok := r.Number(v, field)
			if !ok {
				return
			}
			if !(a > 0 && a < 1) {
				hint := ""
				if a == 0 {
					hint = " (0 is not the default: leave the field out for 0.05)"
				}
				r.Errorf(v, field, "%s: want a significance level between 0 and 1 (exclusive), such as 0.05%s", v.Value, hint)
				return
			}
			p.Alpha = a
		case "min_samples":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
				r.Errorf(v, field, "want a whole number of samples, found %s", yamlnode.KindName(v))
				return
			}
			m, err := strconv.Atoi(v.Value)
			if err != nil {
				r.Errorf(v, field, "%s: want a whole number of samples", v.Value)
				return
			}
			p.MinSamples, minNode = m, v // checked against alpha below
		case "correction":
			if v.Kind != yaml.ScalarNode || (v.Value != string(Holm) && v.Value != string(NoCorrection)) {
				r.Errorf(v, field, "%s: want %s or %s", yamlnode.KindName(v), Holm, NoCorrection)
				return
			}
			p.Correction = Correction(v.Value)
		case "test":
			c, err := ParseTestChoice(v.Value)
			if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || err != nil {
				r.Errorf(v, field, "%s: want auto, paired or unpaired", yamlnode.KindName(v))
				return
			}
			p.Test = c
		case "allow_missing", "strict", "allow_different_certs", "allow_different_scenarios":
			b, ok := r.Bool(v, field)
			if !ok {
				return
			}
			switch key {
			case "strict":
				p.Strict = b
			case "allow_missing":
				p.AllowMissing = b
			case "allow_different_certs":
				p.AllowDifferentCerts = b
			default:
				p.AllowDifferentScenarios = b
			}
		case "max":
			for u, th := range r.max(v, field) {
				p.Max[u] = th
			}
		case "overrides":
			r.overrides(v, field, p)
		default:
			r.Errorf(k, field, "unknown field (known: %s)", strings.Join(gateFields, ", "))
		}
	})
	if minNode != nil {
		least := MinSamplesFor(p.Alpha)
		switch {
		case p.MinSamples == 0:
			r.Errorf(minNode, "gate.min_samples", "0: want at least %d (0 is not the default: leave the field out for %d)", least, DefaultMinSamples)
		case p.MinSamples < 0:
			r.Errorf(minNode, "gate.min_samples", "%d: want at least %d", p.MinSamples, least)
		case p.MinSamples < least:
			r.Errorf(minNode, "gate.min_samples", "%d: the U test cannot reach p < %g with fewer than %d samples a side; want at least %d", p.MinSamples, p.Alpha, least, least)
		}
	}
}

// max reads a mapping of unit: threshold.
func (r *configReader) max(n *yaml.Node, field string) map[string]Threshold {
	if n.Kind != yaml.MappingNode {
		r.Errorf(n, field, "want a mapping of unit: threshold (such as sec/op: +10%%), found %s", yamlnode.KindName(n))
		return nil
	}
	if len(n.Content) == 0 {
		r.Errorf(n, field, "empty: no threshold set; leave it out for the defaults")
		return nil
	}
	out := map[string]Threshold{}
	where := map[string]*yaml.Node{}
	r.Fields(n, field+".", func(key string, k, v *yaml.Node) {
		unit, err := CheckUnit(key)
		if err != nil {
			r.Errorf(k, field, "%v", err)
			return
		}
		if first, ok := where[unit]; ok {
			r.Errorf(k, field+"."+key, "sets %s again (first as %s at line %d, column %d)", unit, first.Value, first.Line, first.Column)
			return
		}
		where[unit] = k
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			r.Errorf(v, field+"."+key, "want a threshold (+N%%, %s or off), found %s", exampleAmount(MeasureOf(unit), "N"), yamlnode.KindName(v))
			return
		}
		th, err := parseThreshold(unit, v.Value)
		if err != nil {
			r.Errorf(v, field+"."+key, "%v", err)
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
		r.Errorf(n, field, "want a list of {scenario, store, max}, found %s", yamlnode.KindName(n))
		return
	}
	for i, item := range n.Content {
		item = yamlnode.Resolve(item)
		f := fmt.Sprintf("%s[%d]", field, i)
		if item.Kind != yaml.MappingNode {
			r.Errorf(item, f, "want a mapping with scenario, store and max, found %s", yamlnode.KindName(item))
			continue
		}
		var o Override
		var hasMax bool
		before := len(r.Errs)
		r.Fields(item, f+".", func(key string, k, v *yaml.Node) {
			switch key {
			case "scenario", "store":
				if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
					r.Errorf(v, f+"."+key, "want a name or a pattern such as lookup-*, found %s", yamlnode.KindName(v))
					return
				}
				if _, err := path.Match(v.Value, ""); err != nil {
					r.Errorf(v, f+"."+key, "pattern %q: %v", v.Value, err)
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
				r.Errorf(k, f+"."+key, "unknown field (known: %s)", strings.Join(overrideFields, ", "))
			}
		})
		switch {
		case len(r.Errs) > before: // one error about an override is enough
		case !hasMax:
			r.Errorf(item, f, "no max: the override sets nothing")
		case (o.Scenario == "" || o.Scenario == "*") && (o.Store == "" || o.Store == "*"):
			r.Errorf(item, f, "matches every benchmark (no scenario or store pattern); put its thresholds under gate.max")
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
		{"allow_different_certs", p.AllowDifferentCerts},
		{"allow_different_scenarios", p.AllowDifferentScenarios},
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

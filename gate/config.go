package gate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fileConfig is the "gate" section of a certbench.yaml file.
type fileConfig struct {
	Alpha        *float64       `yaml:"alpha"`
	MinSamples   *int           `yaml:"min_samples"`
	Correction   *string        `yaml:"correction"`
	AllowMissing *bool          `yaml:"allow_missing"`
	Strict       *bool          `yaml:"strict"`
	Max          yamlMax        `yaml:"max"`
	Overrides    []fileOverride `yaml:"overrides"`
}

type fileOverride struct {
	Scenario string  `yaml:"scenario"`
	Store    string  `yaml:"store"`
	Max      yamlMax `yaml:"max"`
}

// yamlMax is a unit -> threshold map that keeps the YAML positions of its
// entries for error messages.
type yamlMax struct {
	entries []yamlThreshold
}

type yamlThreshold struct {
	unit, value string
	line        int
}

// UnmarshalYAML reads a mapping of unit: threshold, keeping line numbers.
func (m *yamlMax) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: max: want a mapping of unit: threshold", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: max %s: want a threshold such as +2%%", v.Line, k.Value)
		}
		m.entries = append(m.entries, yamlThreshold{unit: k.Value, value: v.Value, line: v.Line})
	}
	return nil
}

func (m yamlMax) thresholds(file string) (map[string]Threshold, error) {
	if len(m.entries) == 0 {
		return nil, nil
	}
	out := make(map[string]Threshold)
	for _, e := range m.entries {
		unit, err := CheckUnit(e.unit)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, e.line, err)
		}
		th, err := ParseThreshold(e.value)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %w", file, e.line, e.unit, err)
		}
		out[unit] = th
	}
	return out, nil
}

// LoadConfig reads the gate policy from a certbench.yaml file; see
// ParseConfig.
func LoadConfig(path string) (Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Policy{}, fmt.Errorf("gate: %w", err)
	}
	return ParseConfig(data, path)
}

// ParseConfig reads the gate policy from the "gate" section of a
// certbench.yaml document (other top-level sections are left to other
// commands), starting from DefaultPolicy: a unit the file does not
// mention keeps its default threshold. name is used in error messages,
// which give file:line where known.
//
//	gate:
//	  alpha: 0.05          # per metric, after Holm's correction
//	  min_samples: 4
//	  correction: holm     # or none
//	  allow_missing: false
//	  strict: false        # true: a machine or Go version mismatch fails
//	  max:
//	    allocs/op: +0%
//	    B/op: +2%
//	    sec/op: +10%
//	    retained-B: +2%    # retained-B/cert follows unless set
//	    goroutines: +0     # absolute
//	  overrides:           # later entries win
//	    - scenario: lookup-*
//	      store: "*"
//	      max:
//	        sec/op: +25%
func ParseConfig(data []byte, name string) (Policy, error) {
	p := DefaultPolicy()
	var doc struct {
		Gate *fileConfig `yaml:"gate"`
		// Other sections belong to other commands.
		Other map[string]any `yaml:",inline"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return p, fmt.Errorf("gate: %s: empty configuration", name)
		}
		return p, fmt.Errorf("gate: %s", yamlError(name, err))
	}
	if doc.Gate == nil {
		return p, fmt.Errorf("gate: %s: no \"gate\" section", name)
	}
	fc := doc.Gate
	if fc.Alpha != nil {
		p.Alpha = *fc.Alpha
	}
	if fc.MinSamples != nil {
		p.MinSamples = *fc.MinSamples
	}
	if fc.Correction != nil {
		p.Correction = Correction(*fc.Correction)
	}
	if fc.AllowMissing != nil {
		p.AllowMissing = *fc.AllowMissing
	}
	if fc.Strict != nil {
		p.Strict = *fc.Strict
	}
	max, err := fc.Max.thresholds(name)
	if err != nil {
		return p, fmt.Errorf("gate: %w", err)
	}
	for u, th := range max {
		p.Max[u] = th
	}
	for _, o := range fc.Overrides {
		m, err := o.Max.thresholds(name)
		if err != nil {
			return p, fmt.Errorf("gate: %w", err)
		}
		p.Overrides = append(p.Overrides, Override{Scenario: o.Scenario, Store: o.Store, Max: m})
	}
	if _, err := p.withDefaults(); err != nil {
		return p, fmt.Errorf("gate: %s: %w", name, err)
	}
	return p, nil
}

// WriteConfig writes p as a certbench.yaml "gate" section that
// ParseConfig reads back.
func WriteConfig(w io.Writer, p Policy) error {
	p, err := p.withDefaults()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "gate:\n  alpha: %v\n  min_samples: %d\n  correction: %s\n  allow_missing: %v\n  strict: %v\n",
		p.Alpha, p.MinSamples, p.Correction, p.AllowMissing, p.Strict)
	writeMax := func(indent string, m map[string]Threshold) {
		fmt.Fprintf(&b, "%smax:\n", indent)
		for _, u := range Units {
			if th, ok := m[u]; ok {
				fmt.Fprintf(&b, "%s  %s: %q\n", indent, u, th.String())
			}
		}
	}
	writeMax("  ", p.Max)
	if len(p.Overrides) > 0 {
		b.WriteString("  overrides:\n")
		for _, o := range p.Overrides {
			fmt.Fprintf(&b, "    - scenario: %q\n      store: %q\n", o.Scenario, o.Store)
			writeMax("      ", o.Max)
		}
	}
	_, err = w.Write(b.Bytes())
	return err
}

// yamlError rewrites yaml's "line N: msg" errors as "name:N: msg".
func yamlError(name string, err error) string {
	var te *yaml.TypeError
	var msgs []string
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	for i, m := range msgs {
		m = strings.TrimPrefix(m, "yaml: ")
		if rest, ok := strings.CutPrefix(m, "line "); ok {
			if n, msg, ok := strings.Cut(rest, ": "); ok {
				msgs[i] = name + ":" + n + ": " + msg
				continue
			}
		}
		msgs[i] = name + ": " + m
	}
	return strings.Join(msgs, "; ")
}

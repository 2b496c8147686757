package gate

import (
	"bytes"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// Only the tests write a policy file: to check that ParseConfig reads
// back what it describes.

// WriteConfig writes p as a certbench.yaml "gate" section that
// ParseConfig reads back (an override that ParseConfig would reject, one
// with no pattern or no thresholds, is written as it is and rejected on
// reading). The fields come in the order of Policy, thresholds in the
// order of Units, quoted.
func WriteConfig(w io.Writer, p Policy) error {
	p, err := p.withDefaults()
	if err != nil {
		return fmt.Errorf("gate: policy: %w", err)
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(struct {
		Gate Policy `yaml:"gate"`
	}{p}); err != nil {
		return fmt.Errorf("gate: policy: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("gate: policy: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// MarshalYAML writes the thresholds in the order of Units, quoted.
func (t Thresholds) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, u := range Units {
		if th, ok := t[u]; ok {
			n.Content = append(n.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Value: u},
				&yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Value: th.String()})
		}
	}
	return n, nil
}

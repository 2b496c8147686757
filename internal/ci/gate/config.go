package gate

import (
	"fmt"

	"github.com/certbench/certbench/internal/yamlfile"
	"go.yaml.in/yaml/v3"
)

// MaxConfigSize is the largest policy file LoadConfig reads: a policy is
// a few dozen lines, so anything bigger is the wrong file.
const MaxConfigSize = 1 << 20

// LoadConfig reads the policy of a certbench.yaml file (ParseConfig),
// a regular file of at most MaxConfigSize bytes.
func LoadConfig(name string) (Policy, error) {
	data, err := yamlfile.ReadFile(name, "policy file", MaxConfigSize)
	if err != nil {
		return Policy{}, fmt.Errorf("gate: %w", err)
	}
	p, err := ParseConfig(data, name)
	p.Source = name
	return p, err
}

// configFile is a certbench.yaml document; other sections are left to
// their commands.
type configFile struct {
	Gate   *Policy              `yaml:"gate" check:"required"`
	Others map[string]yaml.Node `yaml:",inline"`
}

// Validate checks the policy as a file must give it.
func (f *configFile) Validate() error {
	if f.Gate == nil { // a null section, already reported
		return nil
	}
	return yamlfile.Within("gate", f.Gate.validate(true))
}

// ParseConfig reads the policy from the "gate" section of a
// certbench.yaml document, over DefaultPolicy (docs/gate.md, "Policy
// file and flags"); every error names name:line:column and the field.
func ParseConfig(data []byte, name string) (Policy, error) {
	p := DefaultPolicy()
	if err := yamlfile.Decode(data, name, `a mapping with a "gate" section`, &configFile{Gate: &p}); err != nil {
		return p, fmt.Errorf("gate: %w", err)
	}
	return p, nil
}

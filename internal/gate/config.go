package gate

import (
	"fmt"

	"github.com/certbench/certbench/internal/yamlfile"
	"go.yaml.in/yaml/v3"
)

// MaxConfigSize is the largest policy file LoadConfig reads: a policy is
// a few dozen lines, so anything bigger is the wrong file.
const MaxConfigSize = 1 << 20

// LoadConfig reads the gate policy from a certbench.yaml file; see
// ParseConfig. The file must be a regular file of at most MaxConfigSize
// bytes. The policy's Source is the file name.
func LoadConfig(name string) (Policy, error) {
	data, err := yamlfile.ReadFile(name, "policy file", MaxConfigSize)
	if err != nil {
		return Policy{}, fmt.Errorf("gate: %w", err)
	}
	p, err := ParseConfig(data, name)
	p.Source = name
	return p, err
}

// configFile is a certbench.yaml document: the gate's section, and the
// sections of other commands, left to them.
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

// ParseConfig reads the gate policy from the "gate" section of a
// certbench.yaml document (other top-level sections are left to other
// commands), starting from DefaultPolicy: a field or unit the file does
// not mention keeps its default. The keys are the yaml tags of Policy:
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
	if err := yamlfile.Decode(data, name, `a mapping with a "gate" section`, &configFile{Gate: &p}); err != nil {
		return p, fmt.Errorf("gate: %w", err)
	}
	return p, nil
}

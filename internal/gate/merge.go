package gate

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DefaultConfig is the policy file ResolvePolicy reads when no Config is
// given: certbench.yaml in the working directory (or PolicyFlags.Dir).
const DefaultConfig = "certbench.yaml"

// PolicyFlags are the settings "certbench gate" takes as flags, to be
// applied over a policy file, itself over the built-in defaults. A nil
// pointer (or an empty Max) is a setting not given. A store author's CI
// program fills it as the command line would and calls ResolvePolicy.
type PolicyFlags struct {
	// Config names the policy file (--config). Nil means "not given":
	// then DefaultConfig is read if it exists. A pointer to "" means the
	// built-in defaults.
	Config *string
	// NoConfig uses the built-in defaults even if DefaultConfig exists
	// (--no-config); it cannot be combined with Config.
	NoConfig bool
	// Dir is the directory DefaultConfig is looked for in; "" is the
	// working directory.
	Dir string
	// Max are "UNIT=THRESHOLD" values (--max, see ParseMax), at most one
	// per unit; they replace the file's top-level thresholds.
	Max []string
	// Alpha replaces the significance level (--alpha), in (0, 1).
	Alpha *float64
	// MinSamples replaces the fewest samples per side (--min-samples), at
	// least MinSamplesFor the resulting alpha.
	MinSamples *int
	// Correction replaces the multiple-comparison correction
	// (--correction): Holm or NoCorrection.
	Correction *Correction
	// AllowMissing and Strict replace the policy's fields (--allow-missing,
	// --strict).
	AllowMissing, Strict *bool
	// Test replaces the choice of test (--test): AutoTest, PairedTest or
	// UnpairedTest.
	Test *TestChoice
}

// ResolvePolicy returns the policy certbench gate applies: the settings
// of f over the file f.Config names (else DefaultConfig if it exists, else
// the built-in defaults, as with NoConfig or a Config of ""). Its Source
// says which file or defaults, and which settings were given ("certbench.yaml
// (found in the working directory) with --strict"). Errors name the flag
// of the setting at fault. A policy whose every threshold is off is an
// error: it would pass anything.
func ResolvePolicy(f PolicyFlags) (Policy, error) {
	p, err := basePolicy(f)
	if err != nil {
		return Policy{}, err
	}
	p = p.Clone()
	var given []string
	seen := map[string]string{}
	for _, m := range f.Max {
		unit, th, err := ParseMax(m)
		if err != nil {
			return Policy{}, err
		}
		if first, ok := seen[unit]; ok {
			return Policy{}, fmt.Errorf("--max %q: %s is already set by --max %q", m, unit, first)
		}
		seen[unit] = m
		if err := p.SetMax(unit, th); err != nil {
			return Policy{}, fmt.Errorf("--max %q: %w", m, err)
		}
	}
	if len(f.Max) > 0 {
		given = append(given, "--max")
	}
	if f.Alpha != nil {
		if a := *f.Alpha; !(a > 0 && a < 1) {
			return Policy{}, fmt.Errorf("--alpha %v: want a significance level between 0 and 1 (exclusive), such as %v", a, DefaultAlpha)
		}
		p.Alpha = *f.Alpha
		given = append(given, "--alpha")
	}
	if f.MinSamples != nil {
		alpha := p.Alpha
		if alpha == 0 {
			alpha = DefaultAlpha
		}
		if least := MinSamplesFor(alpha); *f.MinSamples < least {
			return Policy{}, fmt.Errorf("--min-samples %d: the U test cannot reach p < %g with fewer than %d samples a side; want at least %d", *f.MinSamples, alpha, least, least)
		}
		p.MinSamples = *f.MinSamples
		given = append(given, "--min-samples")
	}
	if f.Correction != nil {
		if c := *f.Correction; c != Holm && c != NoCorrection {
			return Policy{}, fmt.Errorf("--correction %q: want %s or %s", string(c), Holm, NoCorrection)
		}
		p.Correction = *f.Correction
		given = append(given, "--correction")
	}
	if f.Test != nil {
		if _, err := ParseTestChoice(string(*f.Test)); err != nil {
			return Policy{}, fmt.Errorf("--%w", err)
		}
		p.Test = *f.Test
		given = append(given, "--test")
	}
	if f.AllowMissing != nil {
		p.AllowMissing = *f.AllowMissing
		given = append(given, "--allow-missing")
	}
	if f.Strict != nil {
		p.Strict = *f.Strict
		given = append(given, "--strict")
	}
	if !p.GatesAnything() {
		return Policy{}, fmt.Errorf("%s: every metric is off: the gate would pass anything (set a threshold with --max UNIT=+N%%)", p.Source)
	}
	if len(given) > 0 {
		p.Source += " with " + strings.Join(given, ", ")
	}
	return p, nil
}

// basePolicy is the policy before the flags: the file of f.Config, else
// DefaultConfig if it exists, else the built-in defaults.
func basePolicy(f PolicyFlags) (Policy, error) {
	defaults := DefaultPolicy()
	defaults.Source = "built-in defaults"
	switch {
	case f.NoConfig && f.Config != nil:
		return Policy{}, errors.New("--config and --no-config: give one or the other")
	case f.NoConfig:
		defaults.Source += " (--no-config)"
		return defaults, nil
	case f.Config != nil && *f.Config == "":
		defaults.Source += " (--config '')"
		return defaults, nil
	case f.Config != nil:
		p, err := LoadConfig(*f.Config)
		if err != nil {
			return Policy{}, fmt.Errorf("--config: %w", err)
		}
		p.Source = *f.Config + " (--config)"
		return p, nil
	}
	path, where := DefaultConfig, "the working directory"
	if f.Dir != "" {
		path, where = filepath.Join(f.Dir, DefaultConfig), f.Dir
	}
	if _, err := os.Stat(path); errors.Is(err, iofs.ErrNotExist) {
		return defaults, nil
	}
	p, err := LoadConfig(path)
	if err != nil {
		return Policy{}, fmt.Errorf("%w (%s found in %s; --no-config to use the built-in defaults)", err, DefaultConfig, where)
	}
	p.Source = path + " (found in " + where + ")"
	return p, nil
}

// GatesAnything reports whether p has a threshold, top-level or in an
// override, that is not off.
func (p Policy) GatesAnything() bool {
	for _, th := range p.Max {
		if !th.Off {
			return true
		}
	}
	for _, o := range p.Overrides {
		for _, th := range o.Max {
			if !th.Off {
				return true
			}
		}
	}
	return false
}

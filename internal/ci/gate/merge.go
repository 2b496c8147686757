package gate

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// DefaultConfig is the policy file ResolvePolicy reads when no Config is
// given: certbench.yaml in the working directory (or PolicyFlags.Dir).
const DefaultConfig = "certbench.yaml"

// PolicyFlags say which policy certbench gate applies: a policy file (or
// the defaults) and --max over it. Every other setting is a key of the
// file (docs/gate.md).
type PolicyFlags struct {
	// Config names the policy file; "" reads DefaultConfig if it exists.
	Config string
	// NoConfig uses the built-in defaults (an empty --config); Config
	// is then "".
	NoConfig bool
	// Dir is where DefaultConfig is looked for; "" is the working
	// directory.
	Dir string
	// Max holds the thresholds given as --max: each replaces the file's
	// threshold of its unit.
	Max Thresholds
}

// ResolvePolicy returns the policy certbench gate applies: f.Max over the
// file's thresholds. Source names the file and --max. A policy with every
// threshold off is an error: it would pass anything.
func ResolvePolicy(f PolicyFlags) (Policy, error) {
	p, err := basePolicy(f)
	if err != nil {
		return Policy{}, err
	}
	p = p.Clone()
	if len(f.Max) > 0 {
		if err := f.Max.validate(); err != nil {
			return Policy{}, fmt.Errorf("--max: %w", err)
		}
		if p.Max == nil {
			p.Max = Thresholds{}
		}
		maps.Copy(p.Max, f.Max)
	}
	if !p.GatesAnything() {
		return Policy{}, fmt.Errorf("%s: every metric is off: the gate would pass anything (set a threshold with --max UNIT=+N%%)", p.Source)
	}
	if len(f.Max) > 0 {
		p.Source += " with --max"
	}
	return p, nil
}

// basePolicy is the policy before --max: the file of f.Config, else
// DefaultConfig if it exists, else the built-in defaults.
func basePolicy(f PolicyFlags) (Policy, error) {
	defaults := DefaultPolicy()
	defaults.Source = "built-in defaults"
	switch {
	case f.NoConfig:
		return defaults, nil
	case f.Config != "":
		p, err := LoadConfig(f.Config)
		if err != nil {
			return Policy{}, fmt.Errorf("--config: %w", err)
		}
		p.Source = f.Config + " (--config)"
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
		return Policy{}, fmt.Errorf("%w (%s found in %s; --config '' uses the built-in defaults)", err, DefaultConfig, where)
	}
	p.Source = path + " (found in " + where + ")"
	return p, nil
}

// GatesAnything reports whether p has a threshold that is not off.
func (p Policy) GatesAnything() bool {
	on := func(m Thresholds) bool {
		for _, th := range m {
			if !th.Off {
				return true
			}
		}
		return false
	}
	return on(p.Max) || slices.ContainsFunc(p.Overrides, func(o Override) bool { return on(o.Max) })
}

package gate

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/certbench/certbench/internal/yamlfile"
)

// DefaultConfig is the policy file ResolvePolicy reads when no Config is
// given: certbench.yaml in the working directory (or PolicyFlags.Dir).
const DefaultConfig = "certbench.yaml"

// PolicyFlags say which policy "certbench gate" applies: a policy file
// (or the built-in defaults) and settings given as flags over it. A store
// author's CI program fills it as the command line would and calls
// ResolvePolicy.
type PolicyFlags struct {
	// Config names the policy file (--config); "" reads DefaultConfig if
	// it exists.
	Config string
	// NoConfig uses the built-in defaults even if DefaultConfig exists
	// (--no-config, or --config ''); it cannot be combined with Config.
	NoConfig bool
	// Dir is the directory DefaultConfig is looked for in; "" is the
	// working directory.
	Dir string
	// Set holds the settings given as flags, and Given names them by
	// their policy file keys ("alpha", "min_samples", "max"; the flags
	// are these with dashes). A given setting replaces the file's; the
	// thresholds of a given max replace the file's for their units.
	Set   Policy
	Given []string
}

// IsSetting reports whether key is a policy setting (a yaml tag of
// Policy), which certbench gate takes as the flag FlagName(key).
func IsSetting(key string) bool {
	var p Policy
	_, ok := p.setting(key)
	return ok
}

// FlagName is the flag of the policy setting key: "min_samples" is
// --min-samples.
func FlagName(key string) string { return "--" + strings.ReplaceAll(key, "_", "-") }

// ResolvePolicy returns the policy certbench gate applies: the settings
// f gives over the file f.Config names (else DefaultConfig if it exists,
// else the built-in defaults, as with NoConfig). Its Source says which
// file or defaults, and which flags were given ("certbench.yaml (found in
// the working directory) with --strict"). The settings given are held to
// what a policy file is, and errors name their flags. A policy whose
// every threshold is off is an error: it would pass anything.
func ResolvePolicy(f PolicyFlags) (Policy, error) {
	p, err := basePolicy(f)
	if err != nil {
		return Policy{}, err
	}
	p = p.Clone()
	var flags []string
	for _, key := range f.Given {
		if !IsSetting(key) {
			return Policy{}, fmt.Errorf("%s: not a policy setting", FlagName(key))
		}
	}
	for i, key := range settingKeys() { // in the order of Policy
		if !slices.Contains(f.Given, key) {
			continue
		}
		if key == "max" {
			if p.Max == nil {
				p.Max = Thresholds{}
			}
			maps.Copy(p.Max, f.Set.Max)
		} else {
			reflect.ValueOf(&p).Elem().Field(i).Set(reflect.ValueOf(f.Set).Field(i))
		}
		flags = append(flags, FlagName(key))
	}
	var errs []error
	for _, err := range yamlfile.Flatten(p.validate(true)) {
		var fe *yamlfile.FieldError
		if errors.As(err, &fe) && slices.Contains(f.Given, fe.Field) {
			errs = append(errs, err)
		}
	}
	if err := p.named(errors.Join(errs...), FlagName); err != nil {
		return Policy{}, err
	}
	if !p.GatesAnything() {
		return Policy{}, fmt.Errorf("%s: every metric is off: the gate would pass anything (set a threshold with --max UNIT=+N%%)", p.Source)
	}
	if len(flags) > 0 {
		p.Source += " with " + strings.Join(flags, ", ")
	}
	return p, nil
}

// basePolicy is the policy before the flags: the file of f.Config, else
// DefaultConfig if it exists, else the built-in defaults.
func basePolicy(f PolicyFlags) (Policy, error) {
	defaults := DefaultPolicy()
	defaults.Source = "built-in defaults"
	switch {
	case f.NoConfig && f.Config != "":
		return Policy{}, errors.New("--config and --no-config: give one or the other")
	case f.NoConfig:
		defaults.Source += " (--no-config)"
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

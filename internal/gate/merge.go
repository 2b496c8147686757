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

// PolicyFlags say which policy certbench gate applies: a policy file (or
// the defaults) and flags over it.
type PolicyFlags struct {
	// Config names the policy file; "" reads DefaultConfig if it exists.
	Config string
	// NoConfig uses the built-in defaults; not with Config.
	NoConfig bool
	// Dir is where DefaultConfig is looked for; "" is the working
	// directory.
	Dir string
	// Set holds the settings given as flags; Given names them by their
	// keys. A given max replaces the file's thresholds of its units.
	Set   Policy
	Given []string
}

// IsSetting reports whether key is a policy setting (a yaml tag of
// Policy), the flag FlagName(key).
func IsSetting(key string) bool {
	var p Policy
	_, ok := p.setting(key)
	return ok
}

// FlagName is the flag of the policy setting key: "min_samples" is
// --min-samples.
func FlagName(key string) string { return "--" + strings.ReplaceAll(key, "_", "-") }

// ResolvePolicy returns the policy certbench gate applies: f's settings
// over its file. Source names the file and flags; errors name the flags.
// A policy with every threshold off is an error: it would pass anything.
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

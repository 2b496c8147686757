package cli

import (
	"path/filepath"
	"slices"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/scenarios"
)

// ScenarioFileFlags are the scenario files (docs/scenarios.md) named in
// --scenarios: an entry ending in .yaml or .yml is a file.
type scenarioFileFlags struct {
	Files []string
}

// splitFiles returns the scenario names of entries and keeps its files.
func (s *scenarioFileFlags) splitFiles(entries []string) (names []string) {
	s.Files = nil
	for _, e := range entries {
		if ext := filepath.Ext(e); ext == ".yaml" || ext == ".yml" {
			s.Files = append(s.Files, e)
		} else {
			names = append(names, e)
		}
	}
	return names
}

// load reads the scenario files.
func (s *scenarioFileFlags) load() ([]scenarios.Scenario, error) {
	var out []scenarios.Scenario
	for _, path := range s.Files {
		sc, err := scenarios.LoadFile(path)
		if err != nil {
			return nil, usagef("--scenarios: %v", err)
		}
		out = append(out, sc)
	}
	return out, nil
}

// withFiles returns named followed by the scenarios of the files,
// refusing two scenarios of one name (the benchmark names would collide)
// and files that name their certificates when --certs names others.
func (s *scenarioFileFlags) withFiles(named []scenarios.Scenario, c *certsFlags) ([]scenarios.Scenario, error) {
	if len(s.Files) == 0 {
		return named, nil
	}
	if c.Path != "" {
		return nil, usagef("--scenarios FILE.yaml with --certs: name the certificates in the scenario file (pool.certs: SOURCE)")
	}
	files, err := s.load()
	if err != nil {
		return nil, err
	}
	out := slices.Clone(named)
	for i, sc := range files {
		if j := slices.IndexFunc(out, func(o scenarios.Scenario) bool { return o.Name == sc.Name }); j >= 0 {
			what := "the catalogue"
			if j >= len(named) {
				what = s.Files[j-len(named)]
			}
			return nil, usagef("--scenarios %s: scenario %s is also named by %s; rename one (name: in the file)", s.Files[i], sc.Name, what)
		}
		out = append(out, sc)
	}
	return out, nil
}

// certsConfig returns the configuration lines of the certificates the
// scenarios run on (certgen.Shape.KeyValues): none on generated pools.
// Result files hold one source's shape, so scenarios on different
// sources cannot share a run.
func certsConfig(scs []scenarios.Scenario) ([]string, error) {
	var src *certgen.Source
	for _, sc := range scs {
		switch {
		case sc.Certs == nil:
		case src == nil:
			src = sc.Certs
		case sc.Certs != src && sc.Certs.Shape().Fingerprint != src.Shape().Fingerprint:
			return nil, usagef("scenario %s runs on other certificates than the run's other scenarios; one certificate source per run (its shape goes into the results)", sc.Name)
		}
	}
	if src == nil {
		return nil, nil
	}
	return src.Shape().KeyValues(), nil
}

// resultConfig returns the configuration lines a run of scs records
// besides the machine's: the certificates' shape and each scenario's
// definition hash.
func resultConfig(scs []scenarios.Scenario) ([]string, error) {
	kv, err := certsConfig(scs)
	if err != nil {
		return nil, err
	}
	return append(kv, scenarios.HashConfig(scs)...), nil
}

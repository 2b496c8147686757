package cost

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/certbench/certbench/results"
	"github.com/google/pprof/profile"
)

// maxCallees caps the library callees listed under each store line.
const maxCallees = 3

// ErrNoProfiles is returned (wrapped) when a side has no profile of a
// benchmark.
var ErrNoProfiles = errors.New("no profiles")

// Folders names the code behind a regression the gate found, from a
// base's and a head's folder of profiles ("certbench profile --all", with
// --simulate for the simulated CPU's units): the store lines
// whose value per op grew most. It implements gate.SiteFinder.
type Folders struct {
	Base, Head string
}

// GrownSites returns up to n store lines whose value of unit per op grew
// most, at the store's boundary (CompareBoundary), or without store frames
// the functions whose own value grew most. A side without the benchmark's
// profile gives an error wrapping ErrNoProfiles.
func (f Folders) GrownSites(scenario, store, unit string, n int) ([]Site, error) {
	sampleType := SampleTypeOf(unit)
	if sampleType == "" {
		return nil, fmt.Errorf("no profile sample type holds %s", unit)
	}
	ps, err := f.load(scenario, store, unit)
	if err != nil {
		return nil, err
	}
	b, err := CompareWindows(ps[0], ps[1], sampleType)
	var sites []Site
	var sides Sides
	what := "store line"
	switch {
	case errors.Is(err, ErrNoStore):
		base, head, err := merged(ps)
		if err != nil {
			return nil, err
		}
		c, err := Changes(base, head, sampleType)
		if err != nil {
			return nil, err
		}
		sites, sides, what = c.Grew(n, ByFlat), c.Sides, "function"
	case err != nil:
		return nil, err
	default:
		sites, sides = b.Grew(n), b.Sides
		for i := range sites {
			sites[i].Callees = sites[i].Callees[:min(len(sites[i].Callees), maxCallees)]
		}
	}
	if len(sites) == 0 {
		return nil, fmt.Errorf("the profiles show no %s whose %s grew (base %s, head %s: %.0f and %.0f per op)",
			what, sampleType, f.Base, f.Head, sides.BaseTotal, sides.HeadTotal)
	}
	return sites, nil
}

// LoadBenchmark reads a benchmark's profiles in dir: its heap profile
// (FileName), or with simulated its windows of the simulated CPU
// (SimFileName). No such file is an error wrapping ErrNoProfiles.
func LoadBenchmark(dir, scenario, store string, simulated bool) ([]*profile.Profile, error) {
	name := scenario + "." + store
	if !simulated {
		path := filepath.Join(dir, FileName(scenario, store))
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s not found", ErrNoProfiles, path)
		}
		p, err := Load(path)
		return []*profile.Profile{p}, err
	}
	ps, err := loadWindows(dir, name)
	if err == nil && len(ps) == 0 {
		err = fmt.Errorf("%w: no %s in %s", ErrNoProfiles, SimFileName(scenario, store, 0), dir)
	}
	return ps, err
}

// loadWindows reads the profiles of the simulated CPU of a benchmark
// ("<scenario>.<store>") in dir: NAME.sim.pb.gz and NAME.<n>.sim.pb.gz.
func loadWindows(dir, name string) ([]*profile.Profile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var ps []*profile.Profile
	for _, e := range entries {
		rest, ok := strings.CutSuffix(e.Name(), ".sim.pb.gz")
		sample, numbered := strings.CutPrefix(rest, name+".")
		if !ok || e.IsDir() || rest != name && (!numbered || sample == "" || strings.Trim(sample, "0123456789") != "") {
			continue
		}
		p, err := Load(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// Merge merges windows of the same benchmark (pprof's profile.Merge) and
// records the sum of their ops, so that values per op are the mean over
// them.
func Merge(ps ...*profile.Profile) (*profile.Profile, error) {
	info := InfoOf(ps[0])
	info.Ops = 0
	for _, p := range ps {
		info.Ops += InfoOf(p).Ops
	}
	m, err := profile.Merge(ps)
	if err != nil {
		return nil, err
	}
	SetInfo(m, info)
	return m, nil
}

// load reads a benchmark's profiles of both sides that hold unit.
func (f Folders) load(scenario, store, unit string) (ps [2][]*profile.Profile, err error) {
	for i, dir := range []string{f.Base, f.Head} {
		if ps[i], err = LoadBenchmark(dir, scenario, store, results.IsSimulated(unit)); err != nil {
			return ps, err
		}
	}
	return ps, nil
}

// merged returns each side's windows merged (Merge).
func merged(ps [2][]*profile.Profile) (base, head *profile.Profile, err error) {
	if base, err = Merge(ps[0]...); err == nil {
		head, err = Merge(ps[1]...)
	}
	return base, head, err
}

// WriteFlame writes to path (.svg or .html) the differential flame graphs
// of a benchmark's profiles in the base's and the head's folder, one per
// sample type of units.
func (f Folders) WriteFlame(path, scenario, store string, units []string) error {
	var flames []*Flame
	for _, unit := range units {
		ps, err := f.load(scenario, store, unit)
		if err != nil {
			return err
		}
		base, head, err := merged(ps)
		if err != nil {
			return err
		}
		fl, err := NewFlame(base, head, SampleTypeOf(unit))
		if err != nil {
			return err
		}
		flames = append(flames, fl)
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	title := fmt.Sprintf("certbench: where the cost of %s on %s moved", scenario, store)
	err = WriteFlames(out, strings.TrimPrefix(filepath.Ext(path), "."), title, flames)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// Flames returns the flame graphs of every profile file that is in both
// folders: of alloc_space for heap profiles, of instructions for the
// simulated CPU's.
func (f Folders) Flames() ([]*Flame, error) {
	entries, err := os.ReadDir(f.Base)
	if err != nil {
		return nil, err
	}
	var flames []*Flame
	done := map[string]bool{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".pb.gz")
		sampleType := AllocSpace
		if sim, isSim := strings.CutSuffix(name, ".sim"); isSim {
			// A benchmark's windows, NAME.<n>.sim.pb.gz, drawn merged.
			if i := strings.LastIndexByte(sim, '.'); i > 0 && strings.Trim(sim[i+1:], "0123456789") == "" {
				sim = sim[:i]
			}
			name, sampleType = sim, Instructions
		}
		if !ok || done[name+sampleType] {
			continue
		}
		done[name+sampleType] = true
		var ps [2][]*profile.Profile
		for i, dir := range []string{f.Base, f.Head} {
			if sampleType == Instructions {
				ps[i], err = loadWindows(dir, name)
			} else if _, serr := os.Stat(filepath.Join(dir, e.Name())); serr == nil {
				var p *profile.Profile
				p, err = Load(filepath.Join(dir, e.Name()))
				ps[i] = []*profile.Profile{p}
			}
			if err != nil {
				return nil, err
			}
		}
		if len(ps[0]) == 0 || len(ps[1]) == 0 {
			continue
		}
		base, head, err := merged(ps)
		if err != nil {
			return nil, err
		}
		fl, err := NewFlame(base, head, sampleType)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		flames = append(flames, fl)
	}
	if len(flames) == 0 {
		return nil, fmt.Errorf("no profile (.pb.gz) is in both %s and %s", f.Base, f.Head)
	}
	return flames, nil
}

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
// --instrument simulate for the simulated CPU's units): the store lines
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
	b, err := CompareBoundary(ps[0], ps[1], sampleType)
	var sites []Site
	var sides Sides
	what := "store line"
	switch {
	case errors.Is(err, ErrNoStore):
		c, err := Compare(ps[0], ps[1], sampleType)
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

// LoadBenchmark reads a benchmark's profile in dir: its heap profile
// (FileName), or with simulated its samples of the simulated CPU
// (SimFileName) merged into one (Merge). No such file is an error
// wrapping ErrNoProfiles.
func LoadBenchmark(dir, scenario, store string, simulated bool) (*profile.Profile, error) {
	if !simulated {
		path := filepath.Join(dir, FileName(scenario, store))
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s not found", ErrNoProfiles, path)
		}
		return Load(path)
	}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var ps []*profile.Profile
	name := scenario + "." + store
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
	if len(ps) == 0 {
		return nil, fmt.Errorf("%w: no %s in %s", ErrNoProfiles, SimFileName(scenario, store, 0), dir)
	}
	return Merge(ps...)
}

// Merge merges profiles of the same benchmark (pprof's profile.Merge)
// and records the sum of their ops, so that values per op are the mean
// over all of them.
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
func (f Folders) load(scenario, store, unit string) (ps [2]*profile.Profile, err error) {
	for i, dir := range []string{f.Base, f.Head} {
		if ps[i], err = LoadBenchmark(dir, scenario, store, results.IsSimulated(unit)); err != nil {
			return ps, err
		}
	}
	return ps, nil
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
		fl, err := NewFlame(ps[0], ps[1], SampleTypeOf(unit))
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
	for _, e := range entries {
		var ps [2]*profile.Profile
		for i, dir := range []string{f.Base, f.Head} {
			if _, err := os.Stat(filepath.Join(f.Head, e.Name())); err != nil || !strings.HasSuffix(e.Name(), ".pb.gz") {
				break
			}
			if ps[i], err = Load(filepath.Join(dir, e.Name())); err != nil {
				return nil, err
			}
		}
		if ps[1] == nil {
			continue
		}
		sampleType := AllocSpace
		if strings.HasSuffix(e.Name(), ".sim.pb.gz") {
			sampleType = Instructions
		}
		fl, err := NewFlame(ps[0], ps[1], sampleType)
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

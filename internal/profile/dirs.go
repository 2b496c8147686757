package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	pprofile "github.com/google/pprof/profile"
)

// ErrNotFound is returned (wrapped) by Dirs.Compare when a side has no
// profile for the benchmark.
var ErrNotFound = errors.New("no profile")

// Dirs are the heap profiles of a base and a head binary, as
// "certbench profile --all" writes them: one file per benchmark, named
// FileName(scenario, store), in Base and in Head.
type Dirs struct {
	Base, Head string
}

// Compare loads the base and head profiles of one benchmark and compares
// them per op for sampleType (AllocObjects, AllocSpace, ...). A side
// without the file gives an error wrapping ErrNotFound; the error names
// the path.
func (d Dirs) Compare(scenario, store, sampleType string) (*Comparison, error) {
	b, h, err := d.load(scenario, store)
	if err != nil {
		return nil, err
	}
	return Compare(b, h, sampleType)
}

// CompareBoundary is Dirs.Compare at the boundary of the store under test
// (see [CompareBoundary]).
func (d Dirs) CompareBoundary(scenario, store, sampleType string) (*Boundary, error) {
	b, h, err := d.load(scenario, store)
	if err != nil {
		return nil, err
	}
	return CompareBoundary(b, h, sampleType)
}

// load reads the base and head profiles of one benchmark; a side without
// the file gives an error wrapping ErrNotFound that names the path.
func (d Dirs) load(scenario, store string) (base, head *pprofile.Profile, err error) {
	name := FileName(scenario, store)
	bp, hp := filepath.Join(d.Base, name), filepath.Join(d.Head, name)
	for _, p := range []string{bp, hp} {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("%w: %s not found", ErrNotFound, p)
		}
	}
	if base, err = Load(bp); err != nil {
		return nil, nil, err
	}
	if head, err = Load(hp); err != nil {
		return nil, nil, err
	}
	return base, head, nil
}

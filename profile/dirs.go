package profile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	name := FileName(scenario, store)
	bp, hp := filepath.Join(d.Base, name), filepath.Join(d.Head, name)
	for _, p := range []string{bp, hp} {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s not found", ErrNotFound, p)
		}
	}
	b, err := Load(bp)
	if err != nil {
		return nil, err
	}
	h, err := Load(hp)
	if err != nil {
		return nil, err
	}
	return Compare(b, h, sampleType)
}

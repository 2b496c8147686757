package gate

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/certbench/certbench/results"
)

// ErrMixedInstruments is what Evaluate's error wraps (with ErrInput)
// when results were measured by different instruments.
var ErrMixedInstruments = errors.New("measured by different instruments")

// InstrumentsOf returns the instruments of the results, sorted, once
// each (results.InstrumentWall without an "instrument" line).
func InstrumentsOf(rs *results.Set) []string {
	return distinct(rs, func(s *results.Series) string {
		return cmp.Or(s.GetConfig(results.InstrumentKey), results.InstrumentWall)
	})
}

// distinct returns the distinct values of key over the series of rs,
// sorted.
func distinct(rs *results.Set, key func(*results.Series) string) []string {
	if rs == nil {
		return nil
	}
	var out []string
	for _, s := range rs.Series {
		if v := key(s); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// checkInstruments refuses sides of different or mixed instruments; a
// side with no results (only failures) goes with either.
func checkInstruments(base, head *results.Set) error {
	b, h := InstrumentsOf(base), InstrumentsOf(head)
	if len(b) <= 1 && len(h) <= 1 && (len(b) == 0 || len(h) == 0 || b[0] == h[0]) {
		return nil
	}
	return fmt.Errorf("%w: %w: base by %s, head by %s; gate wall-clock results (certbench run) and simulated ones (certbench run --simulate) separately",
		ErrInput, ErrMixedInstruments, strings.Join(b, " and "), strings.Join(h, " and "))
}

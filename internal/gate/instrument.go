package gate

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/certbench/certbench/results"
)

// ErrMixedInstruments is what the error of Evaluate wraps (with
// ErrInput) when base and head, or the samples of one side, were measured
// by different instruments: the clock (results.InstrumentWall) and the
// simulated CPU (results.InstrumentSimulate) record different units, and
// their allocation counts come from processes run differently.
var ErrMixedInstruments = errors.New("measured by different instruments")

// InstrumentsOf returns the instruments the results were measured by,
// from their "instrument" configuration lines (results.InstrumentWall for
// results without one), without duplicates, sorted.
func InstrumentsOf(rs *results.Set) []string {
	var out []string
	if rs == nil {
		return nil
	}
	for _, s := range rs.Series {
		in := s.GetConfig(results.InstrumentKey)
		if in == "" {
			in = results.InstrumentWall
		}
		if !slices.Contains(out, in) {
			out = append(out, in)
		}
	}
	slices.Sort(out)
	return out
}

// checkInstruments refuses base and head measured by different
// instruments, or sides that mix them. A side with no results (every
// store failed: only failure lines) was measured by none, and goes with
// either.
func checkInstruments(base, head *results.Set) error {
	b, h := InstrumentsOf(base), InstrumentsOf(head)
	if len(b) <= 1 && len(h) <= 1 && (len(b) == 0 || len(h) == 0 || b[0] == h[0]) {
		return nil
	}
	return fmt.Errorf("%w: %w: base by %s, head by %s; gate wall-clock results (certbench run) and simulated ones (certbench run --instrument simulate) separately",
		ErrInput, ErrMixedInstruments, strings.Join(b, " and "), strings.Join(h, " and "))
}

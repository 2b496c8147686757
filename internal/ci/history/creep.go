package history

import (
	"fmt"

	"github.com/certbench/certbench/results"
)

// A Drift is how far one series moved between two commits, in one
// number however many steps it took.
type Drift struct {
	Key
	Since string `json:"since"` // the first commit of the drift
	Head  string `json:"head"`  // the last commit
	// Shift compares the series' per-commit medians at the Level commits
	// up to the one before Since (Since's own, if it is the first) with
	// those at the last Level commits.
	Shift
	Changes int  `json:"changes"` // change points from Since to Head
	Worse   bool `json:"worse"`   // the drift is a regression
	// Significant reports that the interval excludes 0 and the drift is
	// at least the unit's minimum effect.
	Significant bool `json:"significant"`
}

// Creep returns the drift of every series of h from the commit since
// (a hash or its start) to the last commit, so that small steps that
// each passed a gate show as one number. changes are h's change points,
// counted in each Drift.
func Creep(h *History, since string, changes []ChangePoint, opt Options) ([]Drift, error) {
	ci := h.Index(since)
	if ci < 0 {
		return nil, fmt.Errorf("--since %s: no such commit in the history", since)
	}
	var out []Drift
	for _, k := range h.Keys {
		pts := h.series[k]
		s := 0
		for s < pts.len() && int(pts.commit[s]) < ci {
			s++
		}
		if s == pts.len() {
			continue // no point from since on
		}
		y := medians(pts)
		base := y[max(0, s-level):max(s, 1)]
		head := y[max(s+1, len(y)-level):]
		if len(head) == 0 {
			continue
		}
		d := Drift{Key: k, Since: h.Commits[pts.commit[s]].Hash, Head: h.Commits[pts.commit[pts.len()-1]].Hash, Shift: shift(base, head)}
		for _, c := range changes {
			if c.Key == k && c.at >= int(pts.commit[s]) {
				d.Changes++
			}
		}
		d.Worse = float64(results.Better(k.Unit))*d.Delta < 0
		d.Significant = d.large(opt.floor(k.Unit)) && (d.Low > 0 || d.High < 0)
		out = append(out, d)
	}
	return out, nil
}

package compare

import (
	"slices"

	"golang.org/x/perf/benchfmt"
)

// valuesCopy returns a copy of r for a caller that changes only its
// Values (a benchproc filter does): it has its own Values slice and shares
// r's Config and Name, read-only. Result.Clone would copy every
// configuration line of every result.
func valuesCopy(r *benchfmt.Result) *benchfmt.Result {
	c := *r
	c.Values = slices.Clone(r.Values)
	return &c
}

// Relabel returns copies of the results of rs with label as their input
// label (under FileKey), as for merging two Results into one. The copies
// share their Name and Values with rs's results, and results that shared
// a configuration share the relabelled one: treat them as read-only, and
// Clone one before changing it.
func Relabel(rs *Results, label string) []*benchfmt.Result {
	out := make([]*benchfmt.Result, 0, len(rs.Results))
	var from, relabelled []benchfmt.Config
	for _, r := range rs.Results {
		i := slices.IndexFunc(r.Config, func(c benchfmt.Config) bool { return c.Key == FileKey })
		if i < 0 {
			// Not read by Load or Read: the slow way.
			c := r.Clone()
			c.SetConfig(FileKey, label)
			out = append(out, c)
			continue
		}
		if len(from) == 0 || &r.Config[0] != &from[0] || len(r.Config) != len(from) {
			from = r.Config
			relabelled = slices.Clone(r.Config)
			relabelled[i].Value = []byte(label)
			relabelled = relabelled[:len(relabelled):len(relabelled)]
		}
		c := *r // the same keys at the same positions: its config index holds
		c.Config = relabelled
		out = append(out, &c)
	}
	return out
}

package compare

import (
	"slices"

	"github.com/certbench/certbench/results"
)

// NameValues returns the distinct values of the sub-benchmark key (such
// as results.StoreKey, "store") in the names of rs's results, in the order first
// seen. Results without the key are skipped, so a plain go test -bench
// file has no stores.
func (rs *Results) NameValues(key string) []string {
	var vals []string
	for _, res := range rs.Results {
		if v, ok := results.NameValue(res.Name, key); ok && !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return vals
}

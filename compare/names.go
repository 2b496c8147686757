package compare

import (
	"bytes"
	"slices"

	"golang.org/x/perf/benchfmt"
)

// Name keys of certbench's own results: a certbench benchmark is named
// like BenchmarkChurn/scenario=rotate-10-of-100/store=optimized.
const (
	// ScenarioKey is the sub-benchmark key naming a result's scenario.
	ScenarioKey = "scenario"
	// StoreKey is the sub-benchmark key naming a result's store.
	StoreKey = "store"
)

// nameValue returns the value of the sub-benchmark key in name (the "x"
// of "/key=x") and whether name has the key at all.
func nameValue(name benchfmt.Name, key string) (string, bool) {
	_, parts := name.Parts()
	prefix := []byte("/" + key + "=")
	for _, p := range parts {
		if bytes.HasPrefix(p, prefix) {
			return string(p[len(prefix):]), true
		}
	}
	return "", false
}

// IsCertbench reports whether res is named like one of certbench's own
// results, with both a /scenario= and a /store= part. Results of a plain
// go test -bench (BenchmarkRefresh, BenchmarkLookup/exact) are not.
func IsCertbench(res *benchfmt.Result) bool {
	_, scenario := nameValue(res.Name, ScenarioKey)
	_, store := nameValue(res.Name, StoreKey)
	return scenario && store
}

// NameValues returns the distinct values of the sub-benchmark key (such
// as StoreKey, "store") in the names of rs's results, in the order first
// seen. Results without the key are skipped, so a plain go test -bench
// file has no stores.
func (rs *Results) NameValues(key string) []string {
	var vals []string
	for _, res := range rs.Results {
		if v, ok := nameValue(res.Name, key); ok && !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return vals
}

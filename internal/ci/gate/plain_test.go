package gate_test

import (
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
)

// Plain go test -bench results are gated per full name: the two
// sub-benchmarks of BenchmarkLookup are two benchmarks, not one.
func TestPlainBenchmarksByFullName(t *testing.T) {
	v := evaluate(t, "../../../compare/testdata/plain-base.txt", "../../../compare/testdata/plain-head.txt", gate.DefaultPolicy())
	seen := map[string]int{}
	for _, f := range v.Findings {
		if f.Unit == "sec/op" {
			seen[f.Label()] = f.BaseN
		}
	}
	for _, name := range []string{"Lookup/exact-2", "Lookup/wildcard-2", "Refresh-2"} {
		if n, ok := seen[name]; !ok || n != 6 {
			t.Errorf("benchmark %s: base n=%d (present %v), want its own row of 6; rows %v", name, n, ok, seen)
		}
	}
}

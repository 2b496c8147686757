package gate

import (
	"fmt"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// failKey identifies a benchmark for failures: its scenario and store
// for certbench's results, else its full name.
type failKey struct{ name, scenario, store string }

func failKeyOf(name string) failKey {
	n := benchfmt.Name(name)
	scenario, ok1 := results.NameValue(n, results.ScenarioKey)
	store, ok2 := results.NameValue(n, results.StoreKey)
	if ok1 && ok2 {
		return failKey{scenario: scenario, store: store}
	}
	return failKey{name: name}
}

// String names the benchmark in a message.
func (k failKey) String() string {
	if k.name != "" {
		return "benchmark " + k.name
	}
	return fmt.Sprintf("store %s in scenario %s", k.store, k.scenario)
}

// sideFailures are the failures of one side, by benchmark, in order.
type sideFailures struct {
	order  []failKey
	reason map[failKey]string // the first failure's reason
	count  map[failKey]int
}

func failuresOf(rs *results.Set) sideFailures {
	s := sideFailures{reason: map[failKey]string{}, count: map[failKey]int{}}
	for _, f := range rs.Failures {
		k := failKeyOf(f.Name)
		if s.count[k] == 0 {
			s.order = append(s.order, k)
			s.reason[k] = f.Reason
		}
		s.count[k]++
	}
	return s
}

// what is the reason of k's failures, with their number if several.
func (s sideFailures) what(k failKey) string {
	r := s.reason[k]
	if r == "" {
		r = "no reason recorded"
	}
	if n := s.count[k]; n > 1 {
		r += fmt.Sprintf("; %d failures", n)
	}
	return r
}

// checkFailures reports the benchmarks recorded as failed
// (results.FailPrefix) and returns both sides without them
// (docs/gate.md).
func (v *Verdict) checkFailures(base, head *results.Set) (*results.Set, *results.Set) {
	bf, hf := failuresOf(base), failuresOf(head)
	if len(bf.order) == 0 && len(hf.order) == 0 {
		return base, head
	}
	failed := map[failKey]bool{}
	for _, k := range hf.order {
		failed[k] = true
		if bf.count[k] == 0 {
			v.Problems = append(v.Problems, Problem{Kind: StoreFailed, Fatal: true,
				Message: fmt.Sprintf("%s failed at head, not at base: %s", k, hf.what(k))})
		} else {
			v.Problems = append(v.Problems, Problem{Kind: StoreFailed,
				Message: fmt.Sprintf("%s failed at both base (%s) and head (%s): not gated", k, bf.what(k), hf.what(k))})
		}
	}
	for _, k := range bf.order {
		if !failed[k] {
			failed[k] = true
			v.Problems = append(v.Problems, Problem{Kind: StoreFailed,
				Message: fmt.Sprintf("%s failed at base, not at head: %s; not gated", k, bf.what(k))})
		}
	}
	return withoutFailed(base, failed), withoutFailed(head, failed)
}

// withoutFailed returns rs without the results of the failed benchmarks
// (rs itself if it has none).
func withoutFailed(rs *results.Set, failed map[failKey]bool) *results.Set {
	keep := make([]*results.Series, 0, len(rs.Series))
	for _, s := range rs.Series {
		if !failed[failKeyOf(string(s.Name))] {
			keep = append(keep, s)
		}
	}
	if len(keep) == len(rs.Series) {
		return rs
	}
	out := *rs
	out.Series = keep
	return &out
}

// missingBesideFailures reports, as checkPresence would, base's
// benchmarks when head has nothing but failures.
func (v *Verdict) missingBesideFailures(base, head *results.Set) {
	if len(head.Series) > 0 {
		return
	}
	var missing []string
	seen := map[failKey]bool{}
	for _, r := range base.Series {
		if k := failKeyOf(string(r.Name)); !seen[k] {
			seen[k] = true
			missing = append(missing, k.String())
		}
	}
	v.missing(missing)
}

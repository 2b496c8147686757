package cli

import (
	"context"
	"slices"
	"testing"
)

// TestDefaultStoresAreRegistered: a binary that registers stores beyond
// naive and optimized (this test binary: the test-* stores of
// conformance_test.go) measures them all when --stores is not given,
// naive the baseline.
func TestDefaultStoresAreRegistered(t *testing.T) {
	all := storeNames()
	if len(all) < 3 || !slices.Contains(all, "naive") || !slices.Contains(all, "optimized") {
		t.Fatalf("registered %v: want naive, optimized and a third store", all)
	}
	var want []string
	for _, n := range all {
		if n != "naive" && n != "optimized" {
			want = append(want, n)
		}
	}
	want = append([]string{"naive", "optimized"}, want...)
	var got []string
	for name, cmd := range map[string]func() error{
		"run": func() error {
			return parse(t, newRunCmd(func(_ context.Context, o *runOptions) error { got = o.Stores; return nil }))
		},
		"compare": func() error {
			return parse(t, newCompareCmd(func(_ context.Context, o *compareOptions) error { got = o.Stores; return nil }))
		},
		"sweep": func() error {
			return parse(t, newSweepCmd(func(_ context.Context, o *sweepOptions) error { got = o.Stores; return nil }))
		},
	} {
		got = nil
		if err := cmd(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: --stores defaults to %v, want every registered store: %v", name, got, want)
		}
	}
}

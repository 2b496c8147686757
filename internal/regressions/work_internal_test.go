package regressions

import (
	"testing"

	"github.com/certbench/certbench/certstore"
)

func TestWorkIterations(t *testing.T) {
	for _, tc := range []struct {
		instructions float64
		ops          int
		want         uint64 // loop iterations over ops
	}{
		{0, 100, 0},
		{-5, 100, 0},
		{4, 10, 10},
		{1.5, 8, 3},                 // 12 instructions in 8 ops
		{1e6, 3, 3 * 1e6 / 4},       // large amounts are exact
		{10001, 4, (4 * 10001) / 4}, // remainders carry over
	} {
		s := WrapWork(tc.instructions, func() certstore.Store { return nil })().(*store)
		var got uint64
		for range tc.ops {
			got += s.iterations()
		}
		if got != tc.want {
			t.Errorf("WrapWork(%g): %d iterations over %d ops, want %d", tc.instructions, got, tc.ops, tc.want)
		}
	}
	if loop(3) == loop(4) {
		t.Error("loop returns the same for different counts")
	}
}

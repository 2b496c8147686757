package compare_test

import (
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/compare"
	"golang.org/x/perf/benchfmt"
)

// TestRelabel: Relabel gives every result the new label without touching
// the originals, and results that shared a configuration share the
// relabelled one (gate used to deep-copy every result to relabel it).
func TestRelabel(t *testing.T) {
	in := "goos: linux\n" + goodLine + goodLine + "goos: darwin\n" + goodLine
	rs, err := compare.Read(strings.NewReader(in), "in.txt")
	if err != nil {
		t.Fatal(err)
	}
	// A config index built before relabelling must stay right.
	if rs.Results[0].GetConfig(compare.FileKey) != "in.txt" {
		t.Fatal("no label")
	}
	// A result built by hand, without the label key.
	hand := &benchfmt.Result{Name: benchfmt.Name("X"), Iters: 1, Values: []benchfmt.Value{{Value: 1, Unit: "B/op"}}}
	rs.Results = append(rs.Results, hand)

	out := compare.Relabel(rs, "head")
	if len(out) != 4 {
		t.Fatalf("%d results", len(out))
	}
	for i, r := range out {
		if got := r.GetConfig(compare.FileKey); got != "head" {
			t.Errorf("result %d: label %q, want head", i, got)
		}
	}
	for i, want := range []string{"linux", "linux", "darwin"} {
		if got := out[i].GetConfig("goos"); got != want {
			t.Errorf("result %d: goos %q, want %q", i, got, want)
		}
		if got := rs.Results[i].GetConfig(compare.FileKey); got != "in.txt" {
			t.Errorf("original %d relabelled: %q", i, got)
		}
	}
	if &out[0].Config[0] != &out[1].Config[0] {
		t.Error("relabelled results do not share their configuration")
	}
	if &out[0].Config[0] == &rs.Results[0].Config[0] {
		t.Error("relabelled result shares the original's configuration")
	}
	if hand.GetConfig(compare.FileKey) != "" {
		t.Error("hand-built original changed")
	}
}

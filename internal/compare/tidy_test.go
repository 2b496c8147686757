package compare_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/results"
)

// A unit whose samples are sometimes 0 stays one table: benchfmt leaves
// "0 ns/op" in ns/op but reads "12 ns/op" as sec/op.
func TestZeroValuesTidiedLikeTheOthers(t *testing.T) {
	in := "BenchmarkX-2 10 12 gc-cpu-ns/op\nBenchmarkX-2 10 0 gc-cpu-ns/op\nBenchmarkX-2 10 0 ns/op\n"
	rs, err := results.Read(strings.NewReader(in), "zeros.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := compare.Build(rs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var units []string
	for _, tab := range rep.Tables {
		units = append(units, tab.Unit)
	}
	slices.Sort(units)
	if got := strings.Join(units, " "); got != "gc-cpu-sec/op sec/op" {
		t.Errorf("tables %q, want gc-cpu-sec/op and sec/op", got)
	}
	if tab := rep.Table("gc-cpu-sec/op"); tab == nil || tab.Rows[0].Cells[0].N() != 2 {
		t.Errorf("gc-cpu-sec/op table does not hold both samples")
	}
}

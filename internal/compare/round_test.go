package compare_test

import (
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/results"
)

// Samples of one side measured in different rounds (certbench run
// --round) are one cell with no "vary in round" warning.
func TestRoundIsNotResidue(t *testing.T) {
	var b strings.Builder
	for round := 1; round <= 4; round++ {
		b.WriteString("round: " + string(rune('0'+round)) + "\n")
		b.WriteString("BenchmarkChurn/scenario=s/store=naive-2 10 100 ns/op\n")
		b.WriteString("BenchmarkChurn/scenario=s/store=optimized-2 10 50 ns/op\n")
	}
	rs, err := results.Read(strings.NewReader(b.String()), "rounds.txt")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := compare.Build(rs, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rep.Table("sec/op").Rows {
		for _, c := range row.Cells {
			if c.N() != 4 {
				t.Errorf("%s: %d samples, want 4", row.Label, c.N())
			}
			for _, w := range c.Warnings {
				if strings.Contains(w, "round") {
					t.Errorf("%s: warning %q", row.Label, w)
				}
			}
		}
	}
}

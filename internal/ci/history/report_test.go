package history

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/certbench/certbench/results"
)

var update = flag.Bool("update", false, "rewrite testdata/report.golden")

func TestHistoryReportGolden(t *testing.T) {
	g := gen{commits: 40, scenarios: 2, samples: 5, units: []string{results.UnitInstructions, results.UnitAllocs, results.UnitNsPerOp}, seed: 3,
		step: func(c, s int, u string) float64 {
			switch {
			case s == 0 && u == results.UnitInstructions && c >= 15:
				return 1.0004
			case s == 1 && u == results.UnitAllocs && c >= 25:
				return 0.99
			}
			return 1
		}}
	r, err := NewSummary(g.history(), "git:refs/notes/certbench", "c00010", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	r.WriteText(&got)
	got.WriteString("\n")
	r.WriteMarkdown(&got)
	path := filepath.Join("testdata", "report.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(path, got.Bytes(), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("report differs from %s (go test -run ReportGolden -update):\n%s", path, got.String())
	}
}

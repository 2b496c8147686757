package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// TestReportHistory: report --history draws a trend chart per benchmark
// of the history, with or without result files; a history that does not
// load is bad input, named.
func TestReportHistory(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "hist")
	for i, c := range []string{"aaaa1", "bbbb2", "cccc3"} {
		code, _, stderr := run(t, "history", "add", "--history", hist, "--commit", c, "--time", "2026-10-0"+string(rune('1'+i))+"T00:00:00Z", "../internal/ci/gate/testdata/base.txt")
		if code != cli.ExitOK {
			t.Fatalf("history add: exit %d: %s", code, stderr)
		}
	}
	page := filepath.Join(dir, "report.html")
	for _, files := range [][]string{nil, {"../internal/ci/gate/testdata/golden-head.txt"}} {
		code, _, stderr := run(t, append([]string{"report", "--history", hist, "-o", page}, files...)...)
		if code != cli.ExitOK {
			t.Fatalf("report --history %v: exit %d: %s", files, code, stderr)
		}
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), `id="trend-Churn_scenario_rotate-10-of-100_store_optimized"`) {
			t.Errorf("report --history %v: no trend chart", files)
		}
	}
	if err := os.WriteFile(filepath.Join(hist, "junk-0.txt"), []byte("not results\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "report", "--history", hist, "-o", page)
	if code != cli.ExitUsage || !strings.Contains(stderr, "junk-0.txt") {
		t.Errorf("report --history with a foreign file: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "report", "-o", page)
	if code != cli.ExitUsage || !strings.Contains(stderr, "--history") {
		t.Errorf("report without files: exit %d: %s", code, stderr)
	}
}

package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// TestReportHeldTable: report --table prints the price of atomicity of
// held results, and nothing of it without them.
func TestReportHeldTable(t *testing.T) {
	page := filepath.Join(t.TempDir(), "report.html")
	for _, tc := range []struct {
		file string
		want bool
	}{
		{"../docs/held-run.txt", true},
		{"../results/reference.txt", false},
	} {
		code, stdout, stderr := run(t, "report", "--table", "-o", page, tc.file)
		if code != cli.ExitOK {
			t.Fatalf("report --table %s: exit %d: %s", tc.file, code, stderr)
		}
		if got := strings.Contains(stdout, "What each held generation costs") && strings.Contains(stdout, "retained-B in renew-1-of-1000"); got != tc.want {
			t.Errorf("report --table %s: price of atomicity printed %v, want %v:\n%s", tc.file, got, tc.want, stdout)
		}
	}
}

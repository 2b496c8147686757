package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// TestReportGate: report --gate shows the verdict and thresholds of the
// gate's JSON output at the top of the page; what is not a gate result is
// bad input, named.
func TestReportGate(t *testing.T) {
	dir := t.TempDir()
	base, head := "../internal/ci/gate/testdata/base.txt", "../internal/ci/gate/testdata/golden-head.txt"
	gateJSON := filepath.Join(dir, "gate.json")
	code, _, stderr := run(t, "gate", "--config=", "--format", "json", "-o", gateJSON, base, head)
	if code != cli.ExitRegression {
		t.Fatalf("gate: exit %d, want %d: %s", code, cli.ExitRegression, stderr)
	}
	page := filepath.Join(dir, "report.html")
	code, _, stderr = run(t, "report", "--by-file", "--gate", gateJSON, "-o", page, base, head)
	if code != cli.ExitOK {
		t.Fatalf("report --gate: exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(data)
	at := strings.Index(html, `id="gate"`)
	if at < 0 || at > strings.Index(html, "<nav>") {
		t.Fatal("the page does not open with the gate's verdict")
	}
	for _, want := range []string{"certbench gate: FAIL: 3 regressions", "<td>allocs/op</td>", "Holm&#39;s correction"} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %s", want)
		}
	}

	code, _, stderr = run(t, "report", "--gate", base, "-o", page, base)
	if code != cli.ExitUsage || !strings.Contains(stderr, "--gate "+base+": not a gate result") {
		t.Errorf("report --gate with a result file: exit %d: %s", code, stderr)
	}
	code, _, stderr = run(t, "report", "--gate", filepath.Join(dir, "nosuch.json"), "-o", page, base)
	if code != cli.ExitUsage || !strings.Contains(stderr, "nosuch.json") {
		t.Errorf("report --gate with no file: exit %d: %s", code, stderr)
	}
}

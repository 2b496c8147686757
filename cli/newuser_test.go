package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// TestSweepScenarioNames: sweep --scenarios takes families; given a
// scenario name, as run and compare take, the error names the family and
// size it stands for and the flags that ask for it.
func TestSweepScenarioNames(t *testing.T) {
	for _, tc := range []struct {
		name string
		want string
	}{
		{"renew-1-of-1000", "--scenarios: renew-1-of-1000 is a scenario, family renew-1 at 1000 certificates; sweep takes families and pool sizes (--scenarios renew-1 --sizes 1000)"},
		{"noop-10000", "noop-10000 is a scenario, family noop at 10000 certificates"},
		{"rotate-10-of-100", "(--scenarios rotate-10 --sizes 100)"},
		{"lookup-1000", "(--scenarios lookup --sizes 1000)"},
		{"rotate-10-of-100-rsa", "scenario names such as rotate-10-of-100-rsa are for run and compare"},
		{"renew-1-of-x", `unknown scenario family "renew-1-of-x"`},
	} {
		code, _, stderr := run(t, "sweep", "--scenarios", tc.name, "--sizes", "100", "--count", "1")
		if code != cli.ExitUsage {
			t.Errorf("%s: exit %d, want %d", tc.name, code, cli.ExitUsage)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: stderr %q does not say %q", tc.name, stderr, tc.want)
		}
	}
}

// TestReportResultsGlob: every .txt file in the results folder is a result
// file, so `certbench report results/*.txt` draws them all; the tables
// printed from them (reference-compare.out) used to match the glob and
// fail the command.
func TestReportResultsGlob(t *testing.T) {
	files, err := filepath.Glob("../results/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("results/*.txt: %v, %d files", err, len(files))
	}
	page := filepath.Join(t.TempDir(), "report.html")
	code, _, stderr := run(t, append([]string{"report", "-o", page}, files...)...)
	if code != cli.ExitOK {
		t.Errorf("report %s: exit %d, want 0; stderr:\n%s", strings.Join(files, " "), code, stderr)
	}
}

// TestRunSweepScenarioHint: run and profile given a scenario name that only
// sweep makes (a family at a size not in the catalogue) say how to get it.
func TestRunSweepScenarioHint(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--scenarios", "rotate-10-of-1000", "--count", "1"},
		{"profile", "--stores", "optimized", "--scenarios", "rotate-10-of-1000"},
	} {
		code, _, stderr := run(t, args...)
		if code != cli.ExitUsage {
			t.Errorf("%s: exit %d, want %d", args[0], code, cli.ExitUsage)
		}
		if want := "certbench sweep --scenarios rotate-10 --sizes 1000"; !strings.Contains(stderr, want) {
			t.Errorf("%s: stderr %q does not say %q", args[0], stderr, want)
		}
	}
	if code, _, stderr := run(t, "run", "--scenarios", "nosuch", "--count", "1"); code != cli.ExitUsage || strings.Contains(stderr, "sweep") {
		t.Errorf("run --scenarios nosuch: exit %d, stderr %q; want exit 2 and no sweep hint", code, stderr)
	}
}

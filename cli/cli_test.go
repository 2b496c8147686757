package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/certbench/certbench/internal/golden"

	"github.com/certbench/certbench/cli"
	_ "github.com/certbench/certbench/stores/naive"
	_ "github.com/certbench/certbench/stores/optimized"
)

// run runs certbench with args and returns its exit code and output.
func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Main(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestGoldenOutput(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"list.golden", []string{"list"}},
		{"compare-files.txt.golden", []string{"compare", "testdata/old.txt", "testdata/new.txt"}},
		{"compare-files.md.golden", []string{"compare", "--format", "markdown", "testdata/old.txt", "testdata/new.txt"}},
		{"compare-files.csv.golden", []string{"compare", "--format", "csv", "testdata/old.txt", "testdata/new.txt"}},
		{"compare-stores.txt.golden", []string{"compare", "testdata/old.txt"}},
		{"compare-filtered.txt.golden", []string{"compare", "--stores", "optimized", "--scenarios", "rotate-10-of-100", "testdata/old.txt", "testdata/new.txt"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			if code != cli.ExitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			golden(t, tc.golden, out)
		})
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"run", "--stores", "nosuch"}, `unknown store "nosuch" (registered: naive, optimized`},
		// A store of another module: where its binary comes from.
		{[]string{"run", "--stores", "mystore"}, `(a store of another module is measured by a certbench binary that registers it: its own cmd/certbench calling cli.Main`},
		{[]string{"run", "--stores", "optimised"}, `); did you mean optimized? (a store of another module`},
		{[]string{"run", "--scenarios", "rotate-1-of-2"}, `unknown scenario "rotate-1-of-2"; did you mean rotate-10-of-100? (valid: rotate-10-of-100`},
		{[]string{"run", "--scenarios", "lookup-100"}, `unknown scenario "lookup-100"; did you mean lookup-1000?`},
		{[]string{"run", "--count", "0"}, "--count 0"},
		{[]string{"run", "--stores", "naive,naive"}, `"naive" named twice`},
		{[]string{"run", "--nosuchflag"}, "unknown flag --nosuchflag"},
		{[]string{"nosuchcommand"}, `unknown command "nosuchcommand"`},
		{[]string{"compare", "--stores", "naive,nosuch", "testdata/old.txt"}, `"nosuch"`},
		{[]string{"compare", "testdata/old.txt", "testdata/missing.txt"}, "testdata/missing.txt"},
		{[]string{"compare", "testdata/old.txt", "testdata/malformed.txt"}, "testdata/malformed.txt:2"},
		{[]string{"compare", "--format", "yaml", "testdata/old.txt", "testdata/new.txt"}, `--format "yaml"`},
		{[]string{"compare", "--scenarios", "nosuch", "testdata/old.txt", "testdata/new.txt"}, "no"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, errOut := run(t, tc.args...)
			if code != cli.ExitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitUsage, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Errorf("stderr %q does not mention %q", errOut, tc.want)
			}
		})
	}
}

func TestRunWritesResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.txt")
	code, _, errOut := run(t, "run", "--stores", "optimized", "--scenarios", "rotate-10-of-100,lookup-1000", "--count", "2", "--ops", "4", "-o", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "BenchmarkChurn/scenario="); n != 4 {
		t.Errorf("%d result lines, want 4:\n%s", n, data)
	}
	// The file compares against itself with no significant change.
	code, table, errOut := run(t, "compare", out, out)
	if code != cli.ExitOK {
		t.Fatalf("compare exit %d: %s", code, errOut)
	}
	if strings.Contains(table, "%  (p=") || strings.Contains(table, "% (p=") {
		t.Errorf("a file compared with itself shows a significant change:\n%s", table)
	}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), []byte(got))
}

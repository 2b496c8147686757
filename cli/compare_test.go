package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// Plain go test -bench fixtures of package compare.
const (
	plainBase = "../internal/compare/testdata/plain-base.txt"
	plainHead = "../internal/compare/testdata/plain-head.txt"
	mixed     = "../internal/compare/testdata/mixed.txt"
)

func TestCompareRejectsRunFlagsWithFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.txt")
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"compare", "testdata/old.txt", "-o", out, "--count", "-3", "--ops", "5"}, "--count"},
		{[]string{"compare", "testdata/old.txt", "--count", "6"}, "--count"},
		{[]string{"compare", "testdata/old.txt", "testdata/new.txt", "--ops", "5"}, "--ops"},
		{[]string{"compare", "-q", "testdata/old.txt"}, "-q/--quiet"},
		{[]string{"compare", "-o", out, "testdata/old.txt", "testdata/new.txt"}, "-o/--output"},
		{[]string{"compare", "--output=" + out, plainBase}, "-o/--output"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, tc.args...)
			if code != cli.ExitUsage {
				t.Errorf("exit %d, want %d", code, cli.ExitUsage)
			}
			want := tc.flag + " applies only when compare runs the benchmarks; it was given with result files"
			if !strings.Contains(stderr, want) {
				t.Errorf("stderr %q lacks %q", stderr, want)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

func TestComparePlainFiles(t *testing.T) {
	code, out, stderr := run(t, "compare", plainBase, plainHead)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Refresh-2", "Lookup/exact-2", "Lookup/wildcard-2", "B/op", "allocs/op", "vs base"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"scenario=", "store=", "benchmarks vary"} {
		if strings.Contains(out, bad) {
			t.Errorf("output has %q:\n%s", bad, out)
		}
	}
	// One plain file: the benchmarks, one column.
	code, out, stderr = run(t, "compare", plainBase)
	if code != cli.ExitOK || !strings.Contains(out, "Lookup/wildcard-2") || strings.Contains(out, "benchmarks vary") {
		t.Errorf("one plain file: exit %d, stderr %q, output:\n%s", code, stderr, out)
	}
}

func TestCompareProjectionFlags(t *testing.T) {
	// Stores of one certbench file, only one scenario, by benchproc flags.
	code, out, stderr := run(t, "compare", "--col", "/store", "--filter", "/scenario:rotate-10-of-100", "testdata/old.txt")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "rotate-10-of-100") || strings.Contains(out, "lookup-1000") ||
		!strings.Contains(out, "naive") || !strings.Contains(out, "optimized") {
		t.Errorf("output:\n%s", out)
	}
	// Plain files: rows by base name, a filter on names.
	code, out, stderr = run(t, "compare", "--row", ".fullname", "--filter", ".name:Lookup", plainBase, plainHead)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.Contains(out, "Refresh") || !strings.Contains(out, "Lookup/exact-2") {
		t.Errorf("filtered plain output:\n%s", out)
	}
	// A mixed file: --stores selects the certbench results and their
	// stores become the columns.
	code, out, stderr = run(t, "compare", "--stores", "optimized,naive", mixed)
	if code != cli.ExitOK {
		t.Fatalf("mixed: exit %d: %s", code, stderr)
	}
	var header string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "│") {
			header = l
			break
		}
	}
	if i, j := strings.Index(header, "optimized"), strings.Index(header, "naive"); i < 0 || j < i {
		t.Errorf("mixed: header %q, want optimized then naive", header)
	}
	if strings.Contains(out, "Refresh") {
		t.Errorf("mixed: plain benchmarks kept:\n%s", out)
	}
}

func TestCompareErrorsInUsersWords(t *testing.T) {
	// lookup-1000 only for naive.
	partial := filepath.Join(t.TempDir(), "partial.txt")
	var b strings.Builder
	for i := 0; i < 6; i++ {
		b.WriteString("BenchmarkChurn/scenario=rotate-10-of-100/store=naive 5 100 ns/op\n")
		b.WriteString("BenchmarkChurn/scenario=rotate-10-of-100/store=optimized 5 50 ns/op\n")
		b.WriteString("BenchmarkChurn/scenario=lookup-1000/store=naive 5 100 ns/op\n")
	}
	if err := os.WriteFile(partial, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want []string // in stderr
	}{
		{[]string{"compare", "--stores", "nosuch", "testdata/old.txt", "testdata/new.txt"},
			[]string{`--stores: no results for store "nosuch" in testdata/old.txt, testdata/new.txt (stores there: naive, optimized)`}},
		{[]string{"compare", "--scenarios", "nosuch", "testdata/old.txt", "testdata/new.txt"},
			[]string{`--scenarios: no results for scenario "nosuch"`, "scenarios there: rotate-10-of-100"}},
		{[]string{"compare", "--stores", "naive", plainBase, plainHead},
			[]string{"--stores: the results in " + plainBase + ", " + plainHead + " name no stores", "--filter"}},
		{[]string{"compare", "--stores", "optimized", "--scenarios", "lookup-1000", partial, partial},
			[]string{"no results in " + partial + ", " + partial + " match --stores optimized --scenarios lookup-1000 together"}},
		{[]string{"compare", "--filter", "/scenario:nope", "testdata/old.txt", "testdata/new.txt"},
			[]string{"no results in testdata/old.txt, testdata/new.txt match --filter '/scenario:nope'"}},
		{[]string{"compare", "--filter", "/scenario:(", "testdata/old.txt"}, []string{`--filter "/scenario:("`}},
		{[]string{"compare", "--row", "/scenario@", "testdata/old.txt"}, []string{`--row "/scenario@"`}},
		{[]string{"compare", "--col", ".unit", "testdata/old.txt"}, []string{`--col ".unit"`}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != cli.ExitUsage {
				t.Errorf("exit %d, want %d; stderr %q", code, cli.ExitUsage, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			// No benchproc filter that the user did not write.
			for _, internal := range []string{"(/store:", "(/scenario:", `filter "(`} {
				if strings.Contains(stderr, internal) {
					t.Errorf("stderr %q shows internal filter syntax %q", stderr, internal)
				}
			}
		})
	}
}

func TestCompareOutputDashIsAnError(t *testing.T) {
	// The table is on stdout; -o - would mix raw results into it. The
	// check comes before anything runs.
	code, _, stderr := run(t, "compare", "-o", "-")
	if code != cli.ExitUsage || !strings.Contains(stderr, "-o -: the table goes to stdout") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func TestHelpSaysWhatOutputWrites(t *testing.T) {
	code, out, _ := run(t, "compare", "--help")
	if code != cli.ExitOK || !strings.Contains(out, "raw results") || !strings.Contains(out, "--count, --ops, -q, -o) apply only when compare runs") {
		t.Errorf("compare --help:\n%s", out)
	}
	code, out, _ = run(t, "report", "--help")
	if code != cli.ExitOK || !strings.Contains(out, "write the HTML page to this file (not stdout)") {
		t.Errorf("report --help:\n%s", out)
	}
}

func TestReportPlainFiles(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	code, out, stderr := run(t, "report", "-o", page, plainBase, plainHead)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "wrote "+page+" (3 charts of 9 panels)") { // 3 scenarios, 3 units each
		t.Errorf("stdout %q", out)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Refresh-2", "Lookup/exact-2", "Lookup/wildcard-2"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(string(html), "scenario=") {
		t.Error("page has scenario= labels")
	}

	// Projections and filters, and their errors.
	code, out, stderr = run(t, "report", "-o", page, "--filter", ".name:Refresh", plainBase, plainHead)
	if code != cli.ExitOK || !strings.Contains(out, "(1 chart of 3 panels)") {
		t.Errorf("--filter: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "-o", page, "--filter", ".name:Nope", plainBase}, "match --filter '.name:Nope'"},
		{[]string{"report", "-o", page, "--by-file", "--col", "/store", plainBase}, "--by-file and --col"},
		{[]string{"report", "-o", page, "--row", "@", plainBase}, `--row "@"`},
		{[]string{"report", "-o", "", plainBase}, "-o: name the HTML file"},
		// Sweep samples only: the comparison flags would do nothing.
		{[]string{"report", "-o", page, "--filter", "/store:naive", "../docs/growth-sweep.txt"}, "--filter applies to results other than sweep samples"},
		{[]string{"report", "-o", page, "--by-file", "../docs/growth-sweep.txt"}, "--by-file applies to results other than sweep samples"},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.args, code, stderr, tc.want)
		}
	}
}

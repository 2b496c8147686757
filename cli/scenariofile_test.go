package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// writeScenario writes a scenario file and returns its path.
func writeScenario(t *testing.T, dir, name, doc string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const smallScenario = `name: tiny-renew
description: 40 certs, two renewed per refresh
pool: {seed: 11, count: 40, key: mixed, ip_every: 4}
churn: {kind: renew, renew: 2}
ops: 3
`

// TestScenarioFileRunAndGate runs a scenario file, gates the result
// against itself, then against a run of the file edited (a different
// definition under the same name): the gate refuses it, exit 2, unless
// allow_different_scenarios.
func TestScenarioFileRunAndGate(t *testing.T) {
	dir := t.TempDir()
	file := writeScenario(t, dir, "tiny.yaml", smallScenario)
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for _, out := range []string{a, b} {
		if code, _, stderr := run(t, "run", "--stores", "optimized", "--scenarios", file, "--count", "4", "-q", "-o", out); code != cli.ExitOK {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
	}
	data, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if !strings.Contains(text, "BenchmarkChurn/scenario=tiny-renew/store=optimized") || !strings.Contains(text, "scenario-hash.tiny-renew: ") {
		t.Fatalf("results lack the scenario or its hash:\n%s", text)
	}
	if strings.Contains(text, dir) || strings.Contains(text, "tiny.yaml") {
		t.Errorf("results name the scenario file's path:\n%s", text)
	}
	if strings.Contains(text, "rotate-10-of-100") {
		t.Errorf("a scenario file alone ran the default set too")
	}
	if code, _, stderr := run(t, "gate", "--config=", a, b); code == cli.ExitUsage {
		t.Fatalf("gate of one definition: exit %d: %s", code, stderr)
	}
	// The same name, another definition.
	edited := writeScenario(t, dir, "tiny2.yaml", strings.Replace(smallScenario, "renew: 2", "renew: 3", 1))
	if code, _, stderr := run(t, "run", "--stores", "optimized", "--scenarios", edited, "--count", "4", "-q", "-o", b); code != cli.ExitOK {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	code, _, stderr := run(t, "gate", "--config=", a, b)
	if code != cli.ExitUsage || !strings.Contains(stderr, "scenario defined differently: tiny-renew (base ") || !strings.Contains(stderr, "allow_different_scenarios") {
		t.Errorf("gate of two definitions: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(t, "gate", configFlag(t, "allow_different_scenarios: true"), a, b)
	if code == cli.ExitUsage || !strings.Contains(stdout+stderr, "defined differently") {
		t.Errorf("gate with allow_different_scenarios: exit %d: %s%s", code, stdout, stderr)
	}
	_, _, stderr = run(t, "compare", a, b)
	if !strings.Contains(stderr, "warning: scenarios defined differently across the files") {
		t.Errorf("compare does not warn: %s", stderr)
	}
}

func TestScenarioFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeScenario(t, dir, "bad.yaml", "name: x\npool: {count: 10}\nchurn:\n  kind: shuffle\nops: 1\n")
	good := writeScenario(t, dir, "good.yaml", smallScenario)
	certsDir, _ := writeCertsDir(t, 3, 4)
	yamlDir := filepath.Join(dir, "dir.yaml")
	if err := os.Mkdir(yamlDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--scenarios", bad}, "bad.yaml:4:9: churn.kind: \"shuffle\": want one of"},
		{[]string{"run", "--scenarios", filepath.Join(dir, "none.yaml")}, "scenario file: stat"},
		{[]string{"run", "--scenarios", yamlDir}, "not a regular file"},
		{[]string{"run", "--scenarios", good, "--scenarios", good}, "scenario tiny-renew is also named by " + good},
		{[]string{"run", "--scenarios", good, "--certs", certsDir}, "--scenarios FILE.yaml with --certs"},
		{[]string{"list", bad}, "bad.yaml:4:9"},
		{[]string{"profile", "--stores", "optimized", "--scenarios", bad}, "bad.yaml:4:9"},
	} {
		code, _, stderr := run(t, tc.args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestListScenarioFile(t *testing.T) {
	file := writeScenario(t, t.TempDir(), "tiny.yaml", smallScenario)
	code, stdout, stderr := run(t, "list", file)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"SCENARIO FILES", "tiny-renew  40 certs, two renewed per refresh", "kind=renew", "renew=2", "pool=seed=11,count=40,key=mixed,sans=2,wild=5,domain=example.test,ip=4"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, stdout)
		}
	}
}

// TestScenarioFileCerts runs a scenario file whose pool is the user's
// certificates, loaded strictly (pool.strict); the results
// record its shape and never its names or path.
func TestScenarioFileCerts(t *testing.T) {
	certsDir, names := writeCertsDir(t, 5, 6)
	file := writeScenario(t, filepath.Dir(certsDir), "mine.yaml",
		"name: mine\npool: {certs: "+filepath.Base(certsDir)+", strict: true}\nchurn: {kind: renew}\nops: 2\n")
	out := filepath.Join(t.TempDir(), "r.txt")
	code, _, stderr := run(t, "run", "--stores", "optimized", "--scenarios", file, "--count", "2", "-q", "-o", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"certs-count: 6", "scenario-hash.mine: ", "BenchmarkChurn/scenario=mine/store=optimized"} {
		if !strings.Contains(text, want) {
			t.Errorf("results lack %q", want)
		}
	}
	checkPrivate(t, "results", text, certsDir, names)
}

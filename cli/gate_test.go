package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// gateData is where the gate package keeps its crafted inputs.
const gateData = "../internal/ci/gate/testdata/"

func runGate(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Main(append([]string{"gate"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestGateExitCodes(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte("gate:\n  max:\n    allocs/op: +1allocs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badPolicy := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badPolicy, []byte("gate:\n  max:\n    ms/op: +1%\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	allowMissing, strict := filepath.Join(dir, "allow-missing.yaml"), filepath.Join(dir, "strict.yaml")
	for f, text := range map[string]string{allowMissing: "gate:\n  allow_missing: true\n", strict: "gate:\n  strict: true\n"} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // substring of stdout
		stderr string // substring of stderr
	}{
		{"pass", []string{gateData + "base.txt", gateData + "same.txt"}, cli.ExitOK, "certbench gate: PASS", ""},
		{"baseline flag", []string{"--baseline", gateData + "base.txt", gateData + "same.txt"}, cli.ExitOK, "PASS", ""},
		{"one more allocation", []string{gateData + "base.txt", gateData + "alloc1.txt"}, cli.ExitRegression, "FAIL: 1 regression", ""},
		{"threshold flag", []string{"--max", "allocs/op=+1allocs", gateData + "base.txt", gateData + "alloc1.txt"}, cli.ExitOK, "PASS", ""},
		{"threshold off", []string{"--max", "allocs/op=off", gateData + "base.txt", gateData + "alloc1.txt"}, cli.ExitOK, "PASS", ""},
		{"config file", []string{"--config", policy, gateData + "base.txt", gateData + "alloc1.txt"}, cli.ExitOK, "PASS", ""},
		{"flag beats file", []string{"--config", policy, "--max", "allocs/op=+0%", gateData + "base.txt", gateData + "alloc1.txt"}, cli.ExitRegression, "FAIL", ""},
		{"slow", []string{gateData + "base.txt", gateData + "timeslow.txt"}, cli.ExitRegression, "sec/op", ""},
		{"too few samples", []string{gateData + "base.txt", gateData + "few.txt"}, cli.ExitRegression, "too few samples", ""},
		{"missing in head", []string{gateData + "base.txt", gateData + "missing.txt"}, cli.ExitRegression, "missing in head", ""},
		{"allow missing", []string{"--config", allowMissing, gateData + "base.txt", gateData + "missing.txt"}, cli.ExitOK, "note: warning: ", ""},
		{"mixed machines warn", []string{gateData + "base.txt", gateData + "othercpu.txt"}, cli.ExitOK, "different machines", ""},
		{"mixed machines strict", []string{"--config", strict, gateData + "base.txt", gateData + "othercpu.txt"}, cli.ExitRegression, "failed check: ", ""},
		{"no arguments", nil, cli.ExitUsage, "", "gate needs BASE.txt and HEAD.txt"},
		{"baseline and two files", []string{"--baseline", gateData + "base.txt", gateData + "same.txt", gateData + "same.txt"}, cli.ExitUsage, "", "exactly one HEAD file"},
		{"unreadable file", []string{gateData + "base.txt", gateData + "nosuch.txt"}, cli.ExitUsage, "", "nosuch.txt"},
		{"malformed file", []string{gateData + "base.txt", gateData + "malformed.txt"}, cli.ExitUsage, "", "malformed.txt:8"},
		{"bad --max syntax", []string{"--max", "allocs/op+0%", gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "want UNIT=THRESHOLD"},
		{"bad threshold", []string{"--max", "B/op=-2%", gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", `threshold "-2%"`},
		{"unknown unit", []string{"--max", "ms/op=+1%", gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", `unknown unit "ms/op"`},
		{"bad config", []string{"--config", badPolicy, gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "bad.yaml:3:5"},
		{"missing config", []string{"--config", filepath.Join(dir, "nosuch.yaml"), gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "nosuch.yaml"},
		{"bad format", []string{"--format", "csv", gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", `--format "csv"`},
		{"half the profiles", []string{"--base-profiles", dir, gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "go together"},
		{"profiles not a dir", []string{"--base-profiles", policy, "--head-profiles", dir, gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "not a readable directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runGate(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			if !strings.Contains(out, tc.stdout) {
				t.Errorf("stdout does not contain %q:\n%s", tc.stdout, out)
			}
			if !strings.Contains(errOut, tc.stderr) {
				t.Errorf("stderr does not contain %q:\n%s", tc.stderr, errOut)
			}
			if tc.code == cli.ExitRegression && errOut != "" {
				t.Errorf("a failed gate wrote to stderr (the report is on stdout): %q", errOut)
			}
		})
	}
}

func TestGateOutputs(t *testing.T) {
	dir := t.TempDir()
	summary := filepath.Join(dir, "summary.md")
	report := filepath.Join(dir, "gate.json")
	code, out, errOut := runGate(t, "--format", "json", "-o", report, "--summary", summary, gateData+"base.txt", gateData+"alloc1.txt")
	if code != cli.ExitRegression || out != "" {
		t.Fatalf("exit %d stdout %q stderr %q; want 1 and the report in the file", code, out, errOut)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Passed   bool `json:"passed"`
		Findings []struct {
			Unit, Status string
		} `json:"findings"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Passed {
		t.Fatalf("json: %v, passed %v", err, doc.Passed)
	}
	md, err := os.ReadFile(summary)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(md), "### certbench gate: FAIL") || !strings.Contains(string(md), "| rotate-10-of-100/optimized | allocs/op | 1,191 | 1,192 | **+1 (+0.08%)** |") {
		t.Errorf("markdown summary:\n%s", md)
	}
	code, out, _ = runGate(t, "--format", "markdown", gateData+"base.txt", gateData+"same.txt")
	if code != cli.ExitOK || !strings.HasPrefix(out, "### certbench gate: PASS") {
		t.Errorf("markdown pass: exit %d\n%s", code, out)
	}
}

// Bad flag values are usage errors (exit 2) that name the flag, never a
// gate that silently checks less than asked.
func TestGateRejectsFlagFootguns(t *testing.T) {
	dir := t.TempDir()
	// Copies, so that a gate that did overwrite its input harms no fixture.
	base, same := filepath.Join(dir, "base.txt"), filepath.Join(dir, "same.txt")
	for _, f := range [][2]string{{gateData + "base.txt", base}, {gateData + "same.txt", same}} {
		data, err := os.ReadFile(f[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f[1], data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	allOff := []string{"--max", "sec/op=off", "--max", "B/op=off", "--max", "allocs/op=off", "--max", "retained-B=off", "--max", "goroutines=off",
		"--max", "held-B/gen=off", "--max", "held-goroutines/gen=off", "--max", "released-held-B=off", "--max", "released-held-goroutines=off", "--max", "instructions/op=off", "--max", "est-cycles/op=off"}
	for _, tc := range []struct {
		name string
		args []string
		want string // substring of stderr
	}{
		// --max sec/op=10 used to mean ten seconds and passed everything.
		{"bare seconds", []string{"--max", "sec/op=10"}, `invalid argument "sec/op=10" for "--max" flag: threshold "10": a bare number is ambiguous; write +10% (relative to the base) or +10ms (absolute)`},
		{"bare bytes", []string{"--max", "B/op=+512"}, "write +512% (relative to the base) or +512KiB (absolute)"},
		{"bare allocs", []string{"--max", "allocs/op=1"}, "or +1allocs (absolute)"},
		{"wrong measure", []string{"--max", "B/op=+10ms"}, "B/op is measured in bytes, not time"},
		{"minutes", []string{"--max", "sec/op=+1m"}, `"m" is ambiguous`},
		{"unit twice", []string{"--max", "sec/op=+5%", "--max", "ns/op=+10%"}, `invalid argument "ns/op=+10%" for "--max" flag: sec/op is already set by an earlier --max`},
		{"everything off", allOff, "every metric is off: the gate would pass anything"},
		{"empty summary", []string{"--summary", ""}, "--summary: empty file name"},
		{"empty output", []string{"-o", ""}, "--output: empty file name"},
		{"empty profiles", []string{"--base-profiles", "", "--head-profiles", dir}, "--base-profiles: empty file name"},
		{"output over input", []string{"-o", same}, "-o " + same + ": would overwrite the input"},
		{"summary over input", []string{"--summary", base}, "--summary " + base + ": would overwrite the input"},
		{"output is summary", []string{"-o", filepath.Join(dir, "r.md"), "--summary", filepath.Join(dir, "r.md")}, "-o and --summary name the same file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runGate(t, append(tc.args, base, same)...)
			if code != cli.ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, want %d; stderr does not contain %q:\n%s\nstdout:\n%s", code, cli.ExitUsage, tc.want, errOut, out)
			}
		})
	}
	if data, err := os.ReadFile(same); err != nil || !strings.Contains(string(data), "Benchmark") {
		t.Errorf("an input was overwritten: %v\n%.200s", err, data)
	}
	// --baseline '' is not "no baseline".
	if code, _, errOut := runGate(t, "--baseline", "", same); code != cli.ExitUsage || !strings.Contains(errOut, "--baseline: empty file name") {
		t.Errorf("--baseline '': exit %d, stderr %q", code, errOut)
	}
}

// gate reads ./certbench.yaml when no --config is given, and says which
// policy it applied.
func TestGateFindsCertbenchYAML(t *testing.T) {
	data, err := filepath.Abs(gateData)
	if err != nil {
		t.Fatal(err)
	}
	base, alloc1 := filepath.Join(data, "base.txt"), filepath.Join(data, "alloc1.txt")
	dir := t.TempDir()
	t.Chdir(dir)

	// No certbench.yaml: the built-in defaults (allocs/op +0%) fail one
	// more allocation.
	code, out, _ := runGate(t, base, alloc1)
	if code != cli.ExitRegression || !strings.Contains(out, "policy: built-in defaults: ") {
		t.Errorf("without certbench.yaml: exit %d, want 1 and the defaults named:\n%s", code, out)
	}

	// With one that allows an allocation, the same files pass, and the
	// report says where the policy came from.
	if err := os.WriteFile("certbench.yaml", []byte("gate:\n  max:\n    allocs/op: +1allocs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runGate(t, base, alloc1)
	if code != cli.ExitOK || !strings.Contains(out, "policy: certbench.yaml (found in the working directory): ") || !strings.Contains(out, "allocs/op +1allocs") {
		t.Errorf("with certbench.yaml: exit %d, want 0 and the file named:\n%s%s", code, out, errOut)
	}
	code, out, _ = runGate(t, "--format", "markdown", base, alloc1)
	if code != cli.ExitOK || !strings.Contains(out, "policy: certbench.yaml (found in the working directory): ") {
		t.Errorf("markdown with certbench.yaml: exit %d:\n%s", code, out)
	}
	// --max on top is named too.
	code, out, _ = runGate(t, "--max", "B/op=+5%", base, alloc1)
	if code != cli.ExitOK || !strings.Contains(out, "policy: certbench.yaml (found in the working directory) with --max: ") {
		t.Errorf("with certbench.yaml and --max: exit %d:\n%s", code, out)
	}

	// --config '' ignores it.
	for _, args := range [][]string{{"--config="}, {"--config", ""}} {
		code, out, _ := runGate(t, append(args, base, alloc1)...)
		if code != cli.ExitRegression || !strings.Contains(out, "policy: built-in defaults: ") {
			t.Errorf("%q: exit %d, want 1 with the built-in defaults:\n%s", args, code, out)
		}
	}

	// An explicit --config wins over the file found.
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte("gate:\n  max:\n    allocs/op: +0%\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runGate(t, "--config", other, base, alloc1)
	if code != cli.ExitRegression || !strings.Contains(out, "policy: "+other+" (--config): ") {
		t.Errorf("--config other.yaml: exit %d, want 1:\n%s", code, out)
	}

	// A broken certbench.yaml is an error with its position and the way
	// out, not a silent fallback to the defaults.
	if err := os.WriteFile("certbench.yaml", []byte("gate:\n  alpha: 0.05\n  max:\n    sec/op: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runGate(t, base, alloc1)
	for _, want := range []string{"certbench.yaml:4:13: gate.max.sec/op", "found in the working directory; --config '' uses the built-in defaults"} {
		if code != cli.ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("broken certbench.yaml: exit %d, stderr does not contain %q:\n%s", code, want, errOut)
		}
	}
	if code, _, _ := runGate(t, "--config=", base, alloc1); code != cli.ExitRegression {
		t.Errorf("--config '' with a broken certbench.yaml: exit %d, want 1", code)
	}
}

// The checked-in certbench.yaml is valid and is what gate uses from the
// repository root.
func TestGateRepositoryPolicy(t *testing.T) {
	data, err := filepath.Abs(gateData)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("..")
	code, out, errOut := runGate(t, filepath.Join(data, "base.txt"), filepath.Join(data, "same.txt"))
	if code != cli.ExitOK || !strings.Contains(out, "policy: certbench.yaml (found in the working directory): ") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
}

// configFlag writes a policy file with the gate keys given (YAML lines
// under "gate:") and returns the --config flag naming it.
func configFlag(t *testing.T, keys ...string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(f, []byte("gate:\n  "+strings.Join(keys, "\n  ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return "--config=" + f
}

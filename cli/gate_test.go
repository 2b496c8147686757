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
const gateData = "../gate/testdata/"

func runGate(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = cli.Main(append([]string{"gate"}, args...), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestGateExitCodes(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte("gate:\n  max:\n    allocs/op: +1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badPolicy := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(badPolicy, []byte("gate:\n  max:\n    ms/op: +1%\n"), 0o644); err != nil {
		t.Fatal(err)
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
		{"threshold flag", []string{"--max", "allocs/op=+1", gateData + "base.txt", gateData + "alloc1.txt"}, cli.ExitOK, "PASS", ""},
		{"threshold off", []string{"--max", "allocs/op=off", gateData + "base.txt", gateData + "alloc1.txt"}, cli.ExitOK, "PASS", ""},
		{"config file", []string{"--config", policy, gateData + "base.txt", gateData + "alloc1.txt"}, cli.ExitOK, "PASS", ""},
		{"flag beats file", []string{"--config", policy, "--max", "allocs/op=+0%", gateData + "base.txt", gateData + "alloc1.txt"}, cli.ExitRegression, "FAIL", ""},
		{"slow", []string{gateData + "base.txt", gateData + "timeslow.txt"}, cli.ExitRegression, "sec/op", ""},
		{"too few samples", []string{gateData + "base.txt", gateData + "few.txt"}, cli.ExitRegression, "too few samples", ""},
		{"missing in head", []string{gateData + "base.txt", gateData + "missing.txt"}, cli.ExitRegression, "missing in head", ""},
		{"allow missing", []string{"--allow-missing", gateData + "base.txt", gateData + "missing.txt"}, cli.ExitOK, "WARNINGS", ""},
		{"mixed machines warn", []string{gateData + "base.txt", gateData + "othercpu.txt"}, cli.ExitOK, "different machines", ""},
		{"mixed machines strict", []string{"--strict", gateData + "base.txt", gateData + "othercpu.txt"}, cli.ExitRegression, "FAILED CHECKS", ""},
		{"no arguments", nil, cli.ExitUsage, "", "gate needs BASE.txt and HEAD.txt"},
		{"baseline and two files", []string{"--baseline", gateData + "base.txt", gateData + "same.txt", gateData + "same.txt"}, cli.ExitUsage, "", "exactly one HEAD file"},
		{"unreadable file", []string{gateData + "base.txt", gateData + "nosuch.txt"}, cli.ExitUsage, "", "nosuch.txt"},
		{"malformed file", []string{gateData + "base.txt", gateData + "malformed.txt"}, cli.ExitUsage, "", "malformed.txt:8"},
		{"bad --max syntax", []string{"--max", "allocs/op+0%", gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "want UNIT=THRESHOLD"},
		{"bad threshold", []string{"--max", "B/op=-2%", gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", `threshold "-2%"`},
		{"unknown unit", []string{"--max", "ms/op=+1%", gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", `unknown unit "ms/op"`},
		{"bad config", []string{"--config", badPolicy, gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "bad.yaml:3"},
		{"missing config", []string{"--config", filepath.Join(dir, "nosuch.yaml"), gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "nosuch.yaml"},
		{"bad alpha", []string{"--alpha", "0", gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "alpha 0"},
		{"bad correction", []string{"--correction", "sidak", gateData + "base.txt", gateData + "same.txt"}, cli.ExitUsage, "", "sidak"},
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
	if !strings.HasPrefix(string(md), "### ❌ certbench gate: FAIL") || !strings.Contains(string(md), "| rotate-10-of-100/optimized | allocs/op | 1,191 | 1,192 | **+1 (+0.08%)** |") {
		t.Errorf("markdown summary:\n%s", md)
	}
	code, out, _ = runGate(t, "--format", "markdown", gateData+"base.txt", gateData+"same.txt")
	if code != cli.ExitOK || !strings.HasPrefix(out, "### ✅ certbench gate: PASS") {
		t.Errorf("markdown pass: exit %d\n%s", code, out)
	}
}

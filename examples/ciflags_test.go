package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCIScriptFlagProbe checks how scripts/certbench-ci.sh asks a binary
// whether it has a flag (has_flag): the help is read whole, so a binary
// with much help to write after the flag is not taken for one without it.
// `BIN --help | grep -q FLAG` under pipefail did that whenever grep exited
// at its match before the binary finished writing (SIGPIPE), and then a
// head binary ran without the policy's sample timeout. No line of the
// script may pipe into a reader that stops early (grep -q, head).
func TestCIScriptFlagProbe(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skipf("bash not found: %v", err)
	}
	script := readFile(t, filepath.Join("..", "scripts", "certbench-ci.sh"))
	early := regexp.MustCompile(`\|\s*(grep\s+(-\w*q\w*|--quiet)|head)\b`)
	for i, line := range strings.Split(script, "\n") {
		if code, _, _ := strings.Cut(line, " #"); !strings.HasPrefix(strings.TrimSpace(code), "#") && early.MatchString(code) {
			t.Errorf("certbench-ci.sh:%d: a pipe into a reader that stops early fails under pipefail when the writer is not done: %s", i+1, line)
		}
	}
	fn := regexp.MustCompile(`(?ms)^has_flag\(\) \{\n.*?^\}\n`).FindString(script)
	if fn == "" {
		t.Fatal("certbench-ci.sh has no has_flag function")
	}

	// A binary whose help names the flag first, then writes far more than
	// a pipe holds: a reader that stopped at the flag kills it.
	fake := filepath.Join(t.TempDir(), "certbench")
	writeFile(t, fake, "#!/usr/bin/env bash\n[[ $1 == run && $2 == --help ]] || exit 2\n"+
		"echo '      --round N   the round'\nfor ((i = 0; i < 20000; i++)); do echo '      --filler    more help text'; done\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd, flag string
		want      bool
	}{
		{"run", "--round", true},
		{"run", "--sample-timeout", false},
		{"profile", "--round", false}, // the binary fails: no flag
	} {
		cmd := exec.Command("bash", "-c", "set -euo pipefail\n"+fn+`has_flag "$@"`, "probe", fake, c.cmd, c.flag)
		out, err := cmd.CombinedOutput()
		if got := err == nil; got != c.want {
			t.Errorf("has_flag %s %s = %v (%v, %q), want %v", c.cmd, c.flag, got, err, out, c.want)
		}
	}
}

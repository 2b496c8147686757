package cli_test

import (
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// maxHelpLines is the longest a command's --help may be: what few need
// goes to config files and docs.
const maxHelpLines = 40

func TestHelpFits(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"list", "--help"}, {"merge", "--help"}} {
		code, out, stderr := run(t, args...)
		if code != cli.ExitOK {
			t.Errorf("%s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
		if n := strings.Count(out, "\n"); n > maxHelpLines || n == 0 {
			t.Errorf("%s: %d lines, want 1 to %d:\n%s", strings.Join(args, " "), n, maxHelpLines, out)
		}
	}
}

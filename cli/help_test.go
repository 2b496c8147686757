package cli_test

import (
	"io"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
	"github.com/spf13/cobra"
)

// maxHelpLines is the longest a command's --help may be: what few need
// goes to config files and docs.
const maxHelpLines = 40

// TestHelpFits: every command's and subcommand's --help fits in
// maxHelpLines; the gate's help links to its rules (docs/gate.md).
func TestHelpFits(t *testing.T) {
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		args := append(append([]string(nil), path...), "--help")
		code, out, stderr := run(t, args...)
		if code != cli.ExitOK {
			t.Errorf("%s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
		}
		if n := strings.Count(out, "\n"); n > maxHelpLines || n == 0 {
			t.Errorf("%s: %d lines, want 1 to %d", strings.Join(args, " "), n, maxHelpLines)
		}
		for _, sub := range c.Commands() {
			walk(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	walk(cli.NewRoot(io.Discard, io.Discard), nil)
	if _, out, _ := run(t, "gate", "--help"); !strings.Contains(out, "docs/gate.md") {
		t.Error("gate --help does not link to docs/gate.md")
	}
}

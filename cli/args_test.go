package cli

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Single-dash long flags, as go test and benchstat spell them, are read
// as the command's long flags; values, shorthands and what follows "--"
// are left alone.
func TestLongForms(t *testing.T) {
	root := NewRoot(io.Discard, io.Discard)
	for _, tc := range []struct{ in, want string }{
		{"compare -count 6 -row .name -col .file -filter /x a.txt", "compare --count 6 --row .name --col .file --filter /x a.txt"},
		{"compare -count=6 -ops=2", "compare --count=6 --ops=2"},
		{"compare -q -count 6", "compare -q --count 6"},
		{"compare --row -count a.txt", "compare --row -count a.txt"}, // -count is --row's value
		{"compare -o -count", "compare -o -count"},                   // and here -o's
		{"run -stores naive -scenarios x -ops 2", "run --stores naive --scenarios x --ops 2"},
		{"run -- -count", "run -- -count"},
		{"gate -count 6 a b", "gate -count 6 a b"}, // gate has no --count: pflag says so
		{"gate -max sec/op=+1% -summary s.md a b", "gate --max sec/op=+1% --summary s.md a b"},
		{"profile diff -top 3 a b", "profile diff --top 3 a b"},
		{"compare -help", "compare --help"},
		{"__complete compare -count", "__complete compare -count"},
		{"nosuchcommand -count", "nosuchcommand -count"},
	} {
		if got := strings.Join(longForms(root, strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// The single-dash spellings set the options their long flags set.
func TestLongFormsSetOptions(t *testing.T) {
	var got *compareOptions
	root := &cobra.Command{Use: "certbench", SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(newCompareCmd(func(_ context.Context, o *compareOptions) error { got = o; return nil }))
	root.SetArgs(longForms(root, strings.Fields("compare -count 4 -row .name -col /store -filter /store:naive -ops 3")))
	root.SetOut(io.Discard)
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Count != 4 || got.Row != ".name" || got.Col != "/store" || got.Filter != "/store:naive" || got.Ops != 3 {
		t.Errorf("options %+v", got)
	}
}

// An unknown flag is a usage error (exit 2) that names the command's
// closest flag, or what certbench calls a go test habit.
func TestUnknownFlags(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"run --store naive", "unknown flag --store; did you mean --stores? (see certbench run --help)"},
		{"run --scenario x", "unknown flag --scenario; did you mean --scenarios?"},
		{"compare --scenario x", "did you mean --scenarios?"},
		{"merge --ouptut x a.txt", "unknown flag --ouptut; did you mean --output?"},
		{"gate --confg x a b", "did you mean --config?"},
		{"gate -count 6 a b", "unknown flag -count (see certbench gate --help)"},
		{"compare -benchtime 10x", "unknown flag -benchtime: a sample runs a fixed number of ops, set by --ops"},
		{"run -benchmem", "unknown flag -benchmem: not needed, B/op and allocs/op are always measured"},
		{"run -x", "unknown shorthand flag -x (see certbench run --help)"},
		{"run --colour=red", "unknown flag --colour (see certbench run --help)"},
	} {
		var out, errOut bytes.Buffer
		code := Main(strings.Fields(tc.args), &out, &errOut)
		if code != ExitUsage || !strings.Contains(errOut.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut.String(), ExitUsage, tc.want)
		}
	}
}

// -o/--output names a file in every command (profile writes its folder
// with --dir).
func TestOutputIsAFile(t *testing.T) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "output" || f.Shorthand == "o" {
				if name, _ := pflag.UnquoteUsage(f); name != "file" {
					t.Errorf("%s --%s names a %q", c.CommandPath(), f.Name, name)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRoot(io.Discard, io.Discard))
}

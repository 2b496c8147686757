package cli_test

import (
	"regexp"
	"testing"

	"github.com/certbench/certbench/cli"
)

// Off a terminal (here a buffer), run writes a line per finished
// scenario to stderr: what, how long, what is left; -q writes none.
func TestProgressOffTerminal(t *testing.T) {
	args := []string{"run", "--stores", "optimized", "--scenarios", "rotate-10-of-100,renew-1-of-1000", "--count", "2", "--ops", "2"}
	code, _, stderr := run(t, args...)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := regexp.MustCompile(`^\[1/2\] rotate-10-of-100: 2 samples in \d+s; 1 scenario left, about \d+\S*\n` +
		`\[2/2\] renew-1-of-1000: 2 samples in \d+s; 4 samples in all, \d+\S*\n$`)
	if !want.MatchString(stderr) {
		t.Errorf("stderr:\n%s\nwant lines matching\n%s", stderr, want)
	}
	if code, _, stderr := run(t, append(args, "-q")...); code != cli.ExitOK || stderr != "" {
		t.Errorf("with -q: exit %d, stderr %q", code, stderr)
	}
	// Two stores, --count 2: 4 samples of the scenario, 2 per store.
	code, _, stderr = run(t, "run", "--stores", "naive,optimized", "--scenarios", "lookup-1000", "--count", "2", "--ops", "2")
	if want := regexp.MustCompile(`^\[1/1\] lookup-1000: 4 samples \(2 per store\) in \d+s; 4 samples in all`); code != cli.ExitOK || !want.MatchString(stderr) {
		t.Errorf("two stores: exit %d, stderr:\n%s\nwant %s", code, stderr, want)
	}
}

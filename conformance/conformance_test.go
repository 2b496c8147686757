package conformance

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
)

func TestReferenceStore(t *testing.T) {
	start := time.Now()
	Run(t, func() certstore.Store { return newRefStore() })
	t.Logf("suite took %v against the reference store", time.Since(start).Round(time.Millisecond))
}

const brokenEnv = "CERTBENCH_CONFORMANCE_BROKEN_STORE"

// TestHelperBrokenStore runs the suite against the broken store that the
// environment names; TestBrokenStoresFail runs it in a subprocess.
func TestHelperBrokenStore(t *testing.T) {
	name := os.Getenv(brokenEnv)
	if name == "" {
		t.Skip("helper for TestBrokenStoresFail")
	}
	b, ok := brokenStores[name]
	if !ok {
		t.Fatalf("no broken store %q", name)
	}
	Run(t, b.factory)
}

// TestBrokenStoresFail shows that the suite fails each broken store, in the
// subtest that checks the rule the store breaks, by its own checks (not by
// a crash or the race detector).
func TestBrokenStoresFail(t *testing.T) {
	if os.Getenv(brokenEnv) != "" {
		t.Skip("running as a helper")
	}
	var names []string
	for name := range brokenStores {
		names = append(names, name)
	}
	slices.Sort(names)
	if testing.Short() {
		// -short: the stores whose rules run quickest go through go test;
		// TestCheckBrokenStores checks every store in-process, .ci/run
		// every store here.
		names = []string{"deepwildcard", "inplace", "overwrite"}
	}
	for _, name := range names {
		b, ok := brokenStores[name]
		if !ok {
			t.Fatalf("no broken store %q", name)
		}
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBrokenStore$"+b.run, "-test.count=1", "-test.timeout=5m")
			cmd.Env = append(os.Environ(), brokenEnv+"="+name)
			out, err := cmd.CombinedOutput()
			text := string(out)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() == 0 {
				t.Fatalf("the suite passed the broken store %q (err %v); output:\n%s", name, err, text)
			}
			for _, w := range b.want {
				if !strings.Contains(text, w) {
					t.Errorf("output for the broken store %q does not contain %q", name, w)
				}
			}
			for _, bad := range []string{"\npanic: ", "WARNING: DATA RACE"} {
				if strings.Contains(text, bad) {
					t.Errorf("the suite did not catch the broken store %q by its own checks: output contains %q", name, bad)
				}
			}
			if t.Failed() {
				t.Logf("output:\n%s", text)
			}
		})
	}
}

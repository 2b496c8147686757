//go:build unix

package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// mainEnv makes the test binary run certbench with the arguments in the
// variable (space-separated) instead of the tests, for the tests that
// signal a real process.
const mainEnv = "CERTBENCH_CLI_TEST_MAIN"

func TestMain(m *testing.M) {
	if args := os.Getenv(mainEnv); args != "" {
		registerFaultyStores() // only in the process: list's golden output has none
		os.Exit(cli.Main(strings.Fields(args), os.Stdout, os.Stderr))
	}
	// certbench run --simulate re-executes the binary it runs
	// in under callgrind, with certbench's arguments: this one.
	if os.Getenv(callgrind.DirEnv) != "" {
		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestSignalsKeepSamples starts each command that writes samples to -o
// in a process, signals it once the file holds two samples, and checks
// the exit code (130 for SIGINT, 143 for SIGTERM), the message, and that
// the file holds only complete samples, as many as the message says, with
// no negative value.
func TestSignalsKeepSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts certbench processes")
	}
	for _, tc := range []struct {
		name string
		args string // -o FILE follows
		sig  syscall.Signal
		code int
		out  string // on stdout after the signal
	}{
		{"run/SIGINT", "run -q --stores optimized --scenarios rotate-10-of-100 --count 100000", syscall.SIGINT, cli.ExitInterrupted, ""},
		{"run/SIGTERM", "run -q --stores optimized --scenarios rotate-10-of-100 --count 100000", syscall.SIGTERM, cli.ExitTerminated, ""},
		// compare tables the samples it kept.
		{"compare/SIGINT", "compare -q --stores naive,optimized --scenarios rotate-10-of-100 --count 100000", syscall.SIGINT, cli.ExitInterrupted, "rotate-10-of-100"},
		{"sweep/SIGINT", "sweep -q --stores optimized --scenarios renew-1 --sizes 100 --count 100000", syscall.SIGINT, cli.ExitInterrupted, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "results.txt")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), mainEnv+"="+tc.args+" -o "+out)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// Wait for two samples; the process exits only when
			// signalled (100,000 samples take hours).
			poll := time.NewTicker(20 * time.Millisecond)
			defer poll.Stop()
			giveUp := time.After(5 * time.Minute) // not an assertion: a guard against hanging
		wait:
			for {
				select {
				case <-giveUp:
					cmd.Process.Kill()
					<-exited
					t.Fatalf("no two samples written to -o\n%s", stderr.String())
				case err := <-exited:
					t.Fatalf("certbench exited before the signal: %v\n%s", err, stderr.String())
				case <-poll.C:
					if data, _ := os.ReadFile(out); bytes.Count(data, []byte("\nBenchmark")) >= 2 {
						break wait
					}
				}
			}
			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-exited:
			case <-time.After(5 * time.Minute):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("still running long after %v\n%s", tc.sig, stderr.String())
			}
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != tc.code {
				t.Fatalf("after %v: %v, want exit status %d\n%s", tc.sig, err, tc.code, stderr.String())
			}
			m := regexp.MustCompile(`interrupted: (\d+) samples kept`).FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("stderr %q, want \"interrupted: N samples kept\"", stderr.String())
			}
			kept, _ := strconv.Atoi(m[1])
			if !strings.Contains(stdout.String(), tc.out) {
				t.Errorf("stdout %q, want it to contain %q", stdout.String(), tc.out)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			n := checkResults(t, data)
			if n != kept || n < 2 {
				t.Errorf("%d results in the file, stderr says %d kept (want >= 2)", n, kept)
			}
			if !bytes.HasSuffix(data, []byte("\n")) {
				t.Errorf("file does not end with a complete line:\n%s", data)
			}
			// The results package reads back every sample counted.
			rs, err := results.Load(out)
			if err != nil {
				t.Fatal(err)
			}
			got := 0
			for _, se := range rs.Series {
				got += se.N
			}
			if len(rs.Warnings) > 0 || got != kept {
				t.Errorf("results.Load: %d samples, warnings %v; stderr says %d kept", got, rs.Warnings, kept)
			}
		})
	}
}

// checkResults parses a result file and returns its number of results,
// reporting malformed lines, results without every metric, and negative
// values.
func checkResults(t *testing.T, data []byte) int {
	t.Helper()
	r := benchfmt.NewReader(bytes.NewReader(data), "results.txt")
	n := 0
	var first []string // the units of the first sample: every sample has them all
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("malformed: %v", rec)
		case *benchfmt.Result:
			n++
			var units []string
			for _, v := range rec.Values {
				u := v.OrigUnit // set only where benchfmt tidied the unit
				if u == "" {
					u = v.Unit
				}
				units = append(units, u)
			}
			if first == nil {
				first = units
				for _, u := range []string{results.UnitNsPerOp, results.UnitBytes, results.UnitAllocs, results.UnitRetained, results.UnitRetainedPerCert, results.UnitGoroutines} {
					if !slices.Contains(units, u) {
						t.Errorf("%s: no %s value (units %v)", rec.Name, u, units)
					}
				}
			} else if absent := func(u string) bool { return results.Absent(u) != "" }; !slices.Equal(slices.DeleteFunc(units, absent), slices.DeleteFunc(slices.Clone(first), absent)) {
				// A sample may lack only what it says may be absent (peak-B: not read).
				t.Errorf("%s: units %v, want those of the first sample, %v", rec.Name, units, first)
			}
			for _, v := range rec.Values {
				if v.Value < 0 {
					t.Errorf("%s: %s", rec.Name, fmt.Sprint(v.Value, " ", v.Unit))
				}
			}
		}
	}
	return n
}

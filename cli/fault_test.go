//go:build unix

package cli_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/internal/regressions"
)

// hangMarkEnv names a file that the "hang1" store creates when its Update
// blocks, for the tests that signal a process stuck in a store.
const hangMarkEnv = "CERTBENCH_CLI_TEST_HANG_MARK"

// registerFaultyStores registers the stores of the fault tests, in the
// process they start: "boom" panics in its 5th Update, "hang" blocks in
// it for ever, "hang1" in its first (creating the file hangMarkEnv names
// first). Each wraps optimized.
func registerFaultyStores() {
	opt, err := certstore.LookupFactory("optimized")
	if err != nil {
		panic(err)
	}
	certstore.Register("boom", "panics in its 5th Update", regressions.Panic(5, opt.New))
	certstore.Register("hang", "blocks in its 5th Update", regressions.Hang(5, nil, opt.New))
	certstore.Register("hang1", "blocks in its first Update", func() certstore.Store { return &markHang{Store: opt.New()} })
	// The second store the process makes panics in its 3rd Update: under
	// the simulate instrument, the first sample's (the first store is its
	// warm-up's), inside its callgrind window.
	var made atomic.Int32
	certstore.Register("boom2nd", "the second store made panics in its 3rd Update", func() certstore.Store {
		if made.Add(1) == 2 {
			return regressions.Panic(3, opt.New)()
		}
		return opt.New()
	})
}

// markHang blocks in its first Update, after creating the file
// hangMarkEnv names.
type markHang struct{ certstore.Store }

func (s *markHang) Update(*certstore.Config) error {
	if p := os.Getenv(hangMarkEnv); p != "" {
		os.WriteFile(p, nil, 0o644)
	}
	select {}
}

// certbench runs certbench with args in a process of its own (the test
// binary, see TestMain), with extra environment, and returns its exit
// code and stderr. It fails the test if the process is still running
// after limit (a guard against hanging, not a timing).
func certbench(t *testing.T, limit time.Duration, env []string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), mainEnv+"="+strings.Join(args, " ")), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), stderr.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, stderr.String()
	case <-time.After(limit):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("certbench %s: still running after %v\n%s", strings.Join(args, " "), limit, stderr.String())
	}
	return 0, ""
}

// stackPath returns the path of the stack file that a fault line of
// stderr names.
func stackPath(t *testing.T, stderr string) string {
	t.Helper()
	m := regexp.MustCompile(`; stack in (\S+)\n`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no \"stack in FILE\" on stderr:\n%s", stderr)
	}
	return m[1]
}

// TestRunStoreFaults runs certbench run on optimized and a store that
// panics (or hangs) in its 5th Update: the process reports the store, the
// scenario, the sample and the call on one line, writes the stack beside
// the results, writes optimized's samples (after a hang: those measured
// before it) with the failure recorded as go test records a failed
// benchmark, and exits 1.
func TestRunStoreFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts certbench processes")
	}
	for _, tc := range []struct {
		store   string
		args    string
		line    string // on stderr
		stack   []string
		samples int // optimized's
	}{
		{
			store: "boom",
			line:  "certbench: store boom, scenario rotate-10-of-100, sample 1: panic in Update (configuration 4 of 6): regressions: update 5: deliberate panic; stack in ",
			stack: []string{"panic: regressions: update 5: deliberate panic", "regressions.(*faulty).Update", "The stack of the goroutine that panicked"},
			// The later samples of boom in the scenario are not
			// taken; optimized's all are.
			samples: 3,
		},
		{
			store: "hang",
			args:  "--sample-timeout=2s", // as ab passes the policy's sample_timeout
			line:  "certbench: store hang, scenario rotate-10-of-100, sample 1: Update (configuration 4 of 6) did not return within 2s; stack in ",
			stack: []string{`labels:{"certbench-sample": `, "regressions.(*faulty).Update", "Every goroutine's stack, 2s into the sample"},
			// Measuring stops at the hang: optimized's first sample
			// only.
			samples: 1,
		},
	} {
		t.Run(tc.store, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "r.txt")
			code, stderr := certbench(t, 5*time.Minute, nil, "run", "-q", "--stores", "optimized,"+tc.store,
				"--scenarios", "rotate-10-of-100", "--count", "3", "--ops", "6", "-o", out, tc.args)
			if code != cli.ExitStoreFailed {
				t.Fatalf("exit %d, want %d\n%s", code, cli.ExitStoreFailed, stderr)
			}
			if !strings.Contains(stderr, tc.line) {
				t.Errorf("stderr lacks the line %q:\n%s", tc.line, stderr)
			}
			if strings.Contains(stderr, "goroutine ") {
				t.Errorf("a stack on stderr:\n%s", stderr)
			}
			path := stackPath(t, stderr)
			kind := "panic"
			if tc.store == "hang" {
				kind = "hang"
			}
			if want := filepath.Join(dir, "r-"+kind+"-"+tc.store+"-rotate-10-of-100-1.txt"); path != want {
				t.Errorf("stack in %s, want %s", path, want)
			}
			stack, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.stack {
				if !bytes.Contains(stack, []byte(want)) {
					t.Errorf("stack file lacks %q:\n%s", want, stack)
				}
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if n := checkResults(t, data); n != tc.samples {
				t.Errorf("%d results, want %d of optimized:\n%s", n, tc.samples, data)
			}
			if bytes.Contains(data, []byte("\nBenchmarkChurn/scenario=rotate-10-of-100/store="+tc.store)) {
				t.Errorf("a result of %s was written:\n%s", tc.store, data)
			}
			fail := regexp.MustCompile(`(?m)^--- FAIL: BenchmarkChurn/scenario=rotate-10-of-100/store=` + tc.store + `(-\d+)?\n    (.*)$`).FindSubmatch(data)
			if fail == nil || !strings.HasPrefix(tc.line, "certbench: store "+tc.store+", scenario rotate-10-of-100, sample 1: "+string(fail[2])) {
				t.Errorf("results lack the failure of %s, or its reason differs from stderr's:\n%s", tc.store, data)
			}
			if !bytes.Contains(data, []byte("\nUnit ")) {
				t.Errorf("results lack their unit lines:\n%s", data)
			}
		})
	}
}

// TestSignalEndsHungRun: SIGTERM or SIGINT ends a run whose store is
// stuck in a call (with no sample timeout) within seconds, keeping the
// complete samples, with the signal's exit code. The bound is a liveness
// check for a loaded machine, not a timing: today's certbench must exit
// within bench.StopGrace of the signal.
func TestSignalEndsHungRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts certbench processes")
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGTERM, cli.ExitTerminated},
		{syscall.SIGINT, cli.ExitInterrupted},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			mark := filepath.Join(dir, "hung")
			out := filepath.Join(dir, "r.txt")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), hangMarkEnv+"="+mark,
				mainEnv+"=run -q --stores optimized,hang1 --scenarios rotate-10-of-100 --count 1 --ops 2 --sample-timeout 0 -o "+out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			poll := time.NewTicker(20 * time.Millisecond)
			defer poll.Stop()
			giveUp := time.After(5 * time.Minute) // a guard, not an assertion
		wait:
			for {
				select {
				case <-giveUp:
					cmd.Process.Kill()
					t.Fatalf("the store never hung\n%s", stderr.String())
				case err := <-exited:
					t.Fatalf("certbench exited before the signal: %v\n%s", err, stderr.String())
				case <-poll.C:
					if _, err := os.Stat(mark); err == nil {
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
			case <-time.After(2 * time.Minute): // a guard: the stuck store never returns
				cmd.Process.Kill()
				t.Fatalf("still running 2 min after %v with a store stuck in Update\n%s", tc.sig, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Fatalf("after %v: %v, want exit status %d\n%s", tc.sig, err, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted: 1 sample kept") {
				t.Errorf("stderr %q, want \"interrupted: 1 sample kept\"", stderr.String())
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if n := checkResults(t, data); n != 1 {
				t.Errorf("%d results, want optimized's one", n)
			}
		})
	}
}

// TestCompareStoreFault: compare prints the table of the stores that did
// not fail, reports the one that did with its stack in a file it names,
// and exits 1.
func TestCompareStoreFault(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts certbench processes")
	}
	dir := t.TempDir()
	raw := filepath.Join(dir, "raw.txt")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), mainEnv+"=compare -q --stores optimized,boom --scenarios rotate-10-of-100 --count 2 --ops 6 -o "+raw)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitStoreFailed {
		t.Fatalf("compare: %v, want exit %d\n%s", err, cli.ExitStoreFailed, stderr.String())
	}
	if !strings.Contains(stdout.String(), "optimized") || !strings.Contains(stdout.String(), "rotate-10-of-100") {
		t.Errorf("no table of optimized on stdout:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "certbench: store boom, scenario rotate-10-of-100, sample 1: panic in Update") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if path := stackPath(t, stderr.String()); path != filepath.Join(dir, "raw-panic-boom-rotate-10-of-100-1.txt") {
		t.Errorf("stack in %s", path)
	}
}

// TestProfileStoreFault profiles optimized and a store that panics in its
// 5th Update: the panic is reported on one line with its stack in the
// profile folder, optimized's profile is still written and summarized,
// and the exit code says a store failed.
func TestProfileStoreFault(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts certbench processes")
	}
	dir := t.TempDir()
	code, stderr := certbench(t, 5*time.Minute, nil, "profile", "--stores", "boom,optimized", "--scenarios", "rotate-10-of-100", "--ops", "6", "--out", dir)
	if code != cli.ExitStoreFailed {
		t.Fatalf("exit %d, want %d\n%s", code, cli.ExitStoreFailed, stderr)
	}
	if !strings.Contains(stderr, "certbench: store boom, scenario rotate-10-of-100: panic in") {
		t.Errorf("no fault line naming the store and scenario:\n%s", stderr)
	}
	stack, err := os.ReadFile(stackPath(t, stderr))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(stack), "regressions.(*faulty).Update") {
		t.Errorf("stack file lacks the store's frame:\n%s", stack)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*optimized*.pb.gz")); len(m) == 0 {
		t.Errorf("optimized's profile not written after boom's panic (stderr:\n%s)", stderr)
	}
}

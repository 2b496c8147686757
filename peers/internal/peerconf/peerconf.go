// Package peerconf records which conformance rules a peer store passes.
//
// A peer (Traefik's TLS manager, Caddy's certmagic cache) does not keep the
// whole certstore contract, and that is the point of measuring it: the
// failures must be recorded, not hidden, and must not turn CI red. Each
// peer's store package therefore has two tests:
//
//	// TestConformance runs the suite; it only runs in the subprocess.
//	func TestConformance(t *testing.T) {
//		peerconf.Inner(t)
//		conformance.Run(t, factory)
//	}
//
//	// TestConformanceTable runs TestConformance in a subprocess (the test
//	// binary itself) and compares its per-rule results with the peer's
//	// column of the table in peers/README.md.
//	func TestConformanceTable(t *testing.T) {
//		peerconf.Check(t, "traefik", "../../README.md")
//	}
//
// TestConformanceTable fails only when the table is out of date (a rule
// that passed now fails, or the reverse, or a rule appeared or vanished).
// Run it with -update-readme to rewrite the peer's column instead:
//
//	go test -race ./store -run TestConformanceTable -update-readme
//
// The package is shared by the peer modules, which reach it through their
// replace of the certbench module (it lives in the main module, under
// peers/, so only the peers may import it).
package peerconf

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// EnvInner is the environment variable that tells TestConformance it runs
// in the subprocess TestConformanceTable started.
const EnvInner = "CERTBENCH_PEER_CONFORMANCE"

// InnerTest is the name of the test that runs the suite.
const InnerTest = "TestConformance"

var updateReadme = flag.Bool("update-readme", false, "rewrite this peer's column of the conformance table in peers/README.md instead of checking it")

// Inner skips t unless it runs in the subprocess Check starts. Call it
// first in TestConformance.
func Inner(t *testing.T) {
	t.Helper()
	if os.Getenv(EnvInner) != "1" {
		t.Skipf("the suite runs in a subprocess started by TestConformanceTable (set %s=1 to run it here; it fails on the rules the peer breaks)", EnvInner)
	}
}

// Result is the outcome of one rule.
type Result string

// The outcomes.
const (
	Pass Result = "pass"
	Fail Result = "FAIL"
	Skip Result = "skip"
)

// Results maps each rule (the subtest path below TestConformance, such as
// "Lookup/ExactName") to its outcome. Only leaf subtests are rules.
type Results struct {
	Order []string // rules in the order the suite ran them
	Of    map[string]Result
}

// framing matches the result lines testing prints with -test.v=test2json:
// a SYN byte, then "--- PASS: Name (0.00s)".
var framing = regexp.MustCompile(`^\x16--- (PASS|FAIL|SKIP): (\S+) \(`)

// Parse reads the output of a test binary run with -test.v=test2json and
// returns the results of test's leaf subtests.
func Parse(out []byte, test string) Results {
	r := Results{Of: map[string]Result{}}
	prefix := test + "/"
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		m := framing.FindSubmatch(sc.Bytes())
		if m == nil || !bytes.HasPrefix(m[2], []byte(prefix)) {
			continue
		}
		name := string(m[2][len(prefix):])
		var res Result
		switch string(m[1]) {
		case "PASS":
			res = Pass
		case "FAIL":
			res = Fail
		default:
			res = Skip
		}
		if _, seen := r.Of[name]; !seen {
			r.Order = append(r.Order, name)
		}
		r.Of[name] = res
	}
	// Keep leaves only: a parent's outcome is its children's.
	var leaves []string
	for _, name := range r.Order {
		parent := false
		for _, other := range r.Order {
			if strings.HasPrefix(other, name+"/") {
				parent = true
				break
			}
		}
		if parent {
			delete(r.Of, name)
		} else {
			leaves = append(leaves, name)
		}
	}
	r.Order = leaves
	return r
}

// RunSuite runs InnerTest of the current test binary in a subprocess and
// returns its results and output. A failing suite is expected; err reports
// only a subprocess that could not run or produced no results.
func RunSuite(timeout time.Duration) (Results, []byte, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	cmd := exec.Command(exe,
		"-test.run=^"+InnerTest+"$", "-test.v=test2json", "-test.count=1",
		"-test.timeout="+timeout.String())
	cmd.Env = append(os.Environ(), EnvInner+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return Results{}, out, fmt.Errorf("running the suite: %w", err)
	}
	r := Parse(out, InnerTest)
	if len(r.Order) == 0 {
		return r, out, fmt.Errorf("the suite reported no results (exit: %v)", err)
	}
	if bytes.Contains(out, []byte("\npanic: ")) {
		return r, out, errors.New("the suite crashed or timed out before finishing")
	}
	return r, out, nil
}

// Check runs the suite in a subprocess and compares the results with the
// peer's column of the table in readme; with -update-readme it rewrites
// that column instead. A mismatch is confirmed by a second run before it is
// reported, so that a rule whose failure depends on timing (a store that
// publishes non-atomically may get through the atomicity check unseen)
// does not make the check flaky.
func Check(t *testing.T, peer, readme string) {
	t.Helper()
	if os.Getenv(EnvInner) == "1" {
		t.Skip("running as the suite's subprocess")
	}
	const timeout = 10 * time.Minute
	start := time.Now()
	got, out, err := RunSuite(timeout)
	if err != nil {
		t.Fatalf("%v; output:\n%s", err, tail(out, 8000))
	}
	t.Logf("suite ran in %v: %d rules, %d pass", time.Since(start).Round(time.Millisecond), len(got.Order), got.count(Pass))

	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	table, err := ReadTable(text)
	if err != nil {
		t.Fatalf("%s: %v", readme, err)
	}
	if *updateReadme {
		table.Set(peer, got)
		newText, err := ReplaceTable(text, table.Render())
		if err != nil {
			t.Fatalf("%s: %v", readme, err)
		}
		if err := os.WriteFile(readme, newText, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote the %s column of the conformance table in %s", peer, readme)
		return
	}
	diff := table.Diff(peer, got)
	if len(diff) == 0 {
		return
	}
	// Confirm with a second run: keep only the rules that differ twice.
	again, out2, err := RunSuite(timeout)
	if err != nil {
		t.Fatalf("second run: %v; output:\n%s", err, tail(out2, 8000))
	}
	diff = slices.DeleteFunc(table.Diff(peer, again), func(d string) bool { return !slices.Contains(diff, d) })
	if len(diff) == 0 {
		t.Logf("a first run differed from the table but a second one matched it")
		return
	}
	t.Errorf("the %s column of the conformance table in %s is out of date:\n  %s\n"+
		"If the change is intended, rewrite the column with\n  go test -race ./store -run TestConformanceTable -update-readme\n"+
		"Suite output (first run):\n%s",
		peer, readme, strings.Join(diff, "\n  "), tail(out, 20000))
}

func (r Results) count(want Result) int {
	n := 0
	for _, res := range r.Of {
		if res == want {
			n++
		}
	}
	return n
}

// tail returns the last n bytes of out, without the framing bytes.
func tail(out []byte, n int) string {
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return strings.ReplaceAll(string(out), "\x16", "")
}

package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/stores/optimized"
)

// storeBlindStore ignores the store a lookup names: it always looks up in
// the default store, so the Stores rules and the differential pass fail.
type storeBlindStore struct{ *optimized.Store }

func (s storeBlindStore) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.Store.Certificate(certstore.DefaultStore, hello)
}

func init() {
	certstore.Register("test-storeblind", "test: ignores the store name of lookups", func() certstore.Store {
		return storeBlindStore{optimized.New()}
	})
}

// useTestMain makes the conformance command start its children as this test
// binary's main (TestMain in interrupt_test.go runs cli.Main with the
// arguments of CERTBENCH_CLI_TEST_MAIN).
func useTestMain(t *testing.T) {
	t.Helper()
	old := conformanceCommand
	t.Cleanup(func() { conformanceCommand = old })
	conformanceCommand = func(ctx context.Context, exe string, args []string) *exec.Cmd {
		for _, a := range args {
			if strings.ContainsAny(a, " \t") {
				t.Fatalf("argument %q has a space; CERTBENCH_CLI_TEST_MAIN splits on spaces", a)
			}
		}
		c := exec.CommandContext(ctx, os.Args[0])
		c.Env = append(os.Environ(), "CERTBENCH_CLI_TEST_MAIN="+strings.Join(args, " "))
		return c
	}
}

func TestConformanceCommandPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the conformance suite in a process")
	}
	useTestMain(t)
	var stdout, stderr bytes.Buffer
	code := Main([]string{"conformance", "--stores", "optimized", "--iterations", "3", "--seed", "9", "--format", "json"}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s\nstdout:\n%s", code, stderr.String(), stdout.String())
	}
	var doc struct {
		Stores []string
		Passed bool
		Rules  []struct {
			Rule    string
			Results map[string]struct {
				Result string
				Output []string
			}
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout.String())
	}
	if !doc.Passed || len(doc.Stores) != 1 || doc.Stores[0] != "optimized" {
		t.Errorf("passed %v, stores %v; want true, [optimized]", doc.Passed, doc.Stores)
	}
	if len(doc.Rules) < 90 {
		t.Errorf("%d rules; want the whole suite (90 or more)", len(doc.Rules))
	}
	last := doc.Rules[len(doc.Rules)-1]
	if last.Rule != "Differential" || last.Results["optimized"].Result != rulePass {
		t.Errorf("last rule %+v; want Differential, pass", last)
	} else if out := strings.Join(last.Results["optimized"].Output, "\n"); !strings.Contains(out, "differential seed 0x9: 3 iterations") {
		t.Errorf("Differential output %q does not give the seed and iterations", out)
	}
}

func TestConformanceCommandFails(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the conformance suite in a process")
	}
	useTestMain(t)
	var stdout, stderr bytes.Buffer
	code := Main([]string{"conformance", "--stores", "test-storeblind", "--iterations", "20"}, &stdout, &stderr)
	out := stdout.String()
	if code != ExitRegression {
		t.Fatalf("exit %d, want %d; stderr:\n%s\nstdout:\n%s", code, ExitRegression, stderr.String(), out)
	}
	for _, w := range []string{
		`(?m)^Stores/StoreOnlyInItsStore +FAIL$`,
		`(?m)^Differential +FAIL$`,
		`(?m)^NoConfiguration +pass$`,
		`(?m)^--- test-storeblind: Differential$`,
		`conformance\.CheckCase\(t, newStore, conformance\.Case\{\n *\t\tConfigs:`,
	} {
		if !regexp.MustCompile(w).MatchString(out) {
			t.Errorf("output does not match %s", w)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}
}

func TestConformanceCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"conformance", "--stores", "no-such-store"},
		{"conformance", "--format", "csv"},
		{"conformance", "--iterations", "-1"},
		{"conformance", "extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(args, &stdout, &stderr); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, ExitUsage, stderr.String())
		}
	}
}

func TestParseSuiteOutputCrash(t *testing.T) {
	out := strings.Join([]string{
		frame + "=== RUN   TestConformance",
		frame + "=== RUN   TestConformance/NoConfiguration",
		frame + "--- PASS: TestConformance/NoConfiguration (0.00s)",
		frame + "=== RUN   TestConformance/Lookup",
		frame + "=== RUN   TestConformance/Lookup/ExactName",
		"    lookup.go:1: got x; want y",
		frame + "--- FAIL: TestConformance/Lookup/ExactName (0.00s)",
		frame + "=== RUN   TestConformance/Atomicity",
		"panic: store goroutine",
		"",
	}, "\n")
	run := parseSuiteOutput([]byte(out))
	if got, want := strings.Join(run.order, ","), "NoConfiguration,Lookup/ExactName,Atomicity"; got != want {
		t.Fatalf("rules %s, want %s", got, want)
	}
	for rule, want := range map[string]string{"NoConfiguration": rulePass, "Lookup/ExactName": ruleFail, "Atomicity": ruleFail} {
		if r := run.results[rule]; r == nil || r.Result != want {
			t.Errorf("%s: %+v, want %s", rule, r, want)
		}
	}
	if o := strings.Join(run.results["Lookup/ExactName"].Output, "\n"); !strings.Contains(o, "got x; want y") {
		t.Errorf("ExactName output %q", o)
	}
	if o := strings.Join(run.results["Atomicity"].Output, "\n"); !strings.Contains(o, "ended during this rule") || !strings.Contains(o, "panic: store goroutine") {
		t.Errorf("Atomicity output %q", o)
	}
	tab := &conformanceTable{Stores: []string{"s"}}
	tab.add("s", run)
	if tab.Passed() {
		t.Error("a table with failures passed")
	}
	var md bytes.Buffer
	if err := tab.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "| `Atomicity` | **FAIL** |") || !strings.Contains(md.String(), "| **rules passed** | **1 / 3** |") {
		t.Errorf("markdown (%v):\n%s", err, md.String())
	}
}

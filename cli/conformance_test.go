package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
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
	conformanceCommand = func(ctx context.Context) *exec.Cmd {
		c := exec.CommandContext(ctx, os.Args[0])
		c.Env = append(os.Environ(), "CERTBENCH_CLI_TEST_MAIN=conformance")
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
	if last.Rule != "Differential" || last.Results["optimized"].Result != string(conformance.Pass) {
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
		{"conformance", "--against", "optimized"},
		{"conformance", "--stores", "optimized", "--against", "optimized"},
		{"conformance", "--stores", "naive,optimized", "--against", "test-lasttie"},
		{"conformance", "--stores", "optimized", "--against", "no-such-store"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Main(args, &stdout, &stderr); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, ExitUsage, stderr.String())
		}
	}
}

// lastTieStore serves the last of tied certificates: it hands
// optimized its configuration in reverse order.
type lastTieStore struct{ *optimized.Store }

func (s lastTieStore) Update(cfg *certstore.Config) error {
	if cfg == nil {
		return s.Store.Update(nil)
	}
	rev := *cfg
	rev.Certificates = slices.Clone(cfg.Certificates)
	slices.Reverse(rev.Certificates)
	return s.Store.Update(&rev)
}

// crashStore fails its second Update as CERTBENCH_TEST_CRASH says: "hang"
// never returns, anything else panics in a goroutine of its own.
type crashStore struct {
	*optimized.Store
	n *atomic.Int32
}

func (s crashStore) Update(cfg *certstore.Config) error {
	if s.n.Add(1) == 2 {
		if os.Getenv("CERTBENCH_TEST_CRASH") != "hang" {
			go func() { panic("a store goroutine panics") }()
		}
		select {} // the panic ends the process, or the parent does
	}
	return s.Store.Update(cfg)
}

func init() {
	certstore.Register("test-lasttie", "test: optimized, serving the last of tied certificates", func() certstore.Store {
		return lastTieStore{optimized.New()}
	})
	certstore.Register("test-lasttie@declared", "test: test-lasttie, with the tie-break declared", func() certstore.Store {
		return lastTieStore{optimized.New()}
	})
	conformance.Declare("test-lasttie@declared", conformance.Deviation{
		Name: "the last of tied certificates wins",
		Explains: func(d *conformance.Divergence) bool {
			return d.Want.Kind == conformance.AnswerCertificate && d.Got.Kind == conformance.AnswerCertificate && d.Got.Index > d.Want.Index
		},
	})
	certstore.Register("test-crash", "test: its second Update panics in a goroutine, or hangs", func() certstore.Store {
		return crashStore{optimized.New(), new(atomic.Int32)}
	})
}

// TestConformanceDeclaredDeviations shows that the deviations declared for
// a registered store are known to the command's differential pass, and
// that without them the same behaviour fails.
func TestConformanceDeclaredDeviations(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the conformance suite in a process")
	}
	useTestMain(t)
	for store, want := range map[string]string{
		"test-lasttie@declared": `(?m)^Differential +pass$`,
		"test-lasttie":          `(?m)^Differential +FAIL$`,
	} {
		var stdout, stderr bytes.Buffer
		code := Main([]string{"conformance", "--stores", store, "--iterations", "20"}, &stdout, &stderr)
		out := stdout.String()
		if code != ExitRegression { // both break Lookup/FirstInConfig*
			t.Errorf("%s: exit %d, want %d", store, code, ExitRegression)
		}
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("%s: output does not match %s:\n%s", store, want, out)
		}
		if store == "test-lasttie@declared" && !strings.Contains(out, `known deviation "the last of tied certificates wins": `) {
			t.Errorf("%s: the differential summary does not count the declared deviation:\n%s", store, out)
		}
	}
}

func TestConformanceAgainst(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the comparison in a process")
	}
	useTestMain(t)
	var stdout, stderr bytes.Buffer
	code := Main([]string{"conformance", "--stores", "optimized", "--against", "test-lasttie", "--iterations", "10", "--seed", "3"}, &stdout, &stderr)
	out := stdout.String()
	if code != ExitRegression {
		t.Fatalf("exit %d, want %d; stderr:\n%s\nstdout:\n%s", code, ExitRegression, stderr.String(), out)
	}
	for _, w := range []string{
		"compare optimized -> test-lasttie, seed 0x3, ",
		": stopped at its iteration limit after 10 iterations, ",
		"; 1 behaviour change",
		"cause 1 of 1: a tie between certificates is broken differently (seen ",
		"change 1.1: tie-break: the first configured -> a later one (seen ",
		"on the generation of configuration 0 of 1: optimized served certificate 0 ",
		", test-lasttie serves certificate 1 ",
		"}.Compare(base, head, ",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("output does not say %q", w)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out)
	}

	stdout.Reset()
	code = Main([]string{"conformance", "--stores", "test-lasttie", "--against", "test-lasttie@declared", "--iterations", "5", "--format", "markdown"}, &stdout, &stderr)
	if code != ExitOK || !strings.Contains(stdout.String(), "no behaviour change (stopped at its iteration limit after 5 iterations") {
		t.Errorf("identical stores: exit %d, output:\n%s", code, stdout.String())
	}
}

// TestConformanceChildCrashes shows that a store that panics in a goroutine
// of its own, or hangs, fails the rule that was running.
func TestConformanceChildCrashes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the suite in a process")
	}
	useTestMain(t)
	for _, tc := range []struct {
		crash string
		// limit bounds the child: for "hang", the time it waits (long
		// enough for a loaded machine to reach Replace); for "panic",
		// only a guard.
		limit time.Duration
		want  []string
	}{
		// A store's second Update fails; Replace is the first rule whose
		// store takes two.
		{"panic", 10 * time.Minute, []string{"\nReplace  ", "\n--- test-crash: Replace\n", "the check's process ended during this rule", "panic: a store goroutine panics"}},
		{"hang", 30 * time.Second, []string{"\nReplace  ", "\n--- test-crash: Replace\n", "was stopped after 30s during this rule: a store that hangs?"}},
	} {
		t.Setenv("CERTBENCH_TEST_CRASH", tc.crash)
		var stdout, stderr bytes.Buffer
		opts := &conformanceOptions{ioStreams: ioStreams{Out: &stdout, ErrOut: &stderr}, Stores: []string{"test-crash"}, Format: "text", Iterations: 1, ChildTimeout: tc.limit}
		err := runConformance(context.Background(), opts)
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != ExitRegression {
			t.Errorf("%s: error %v; want exit %d", tc.crash, err, ExitRegression)
		}
		out := stdout.String()
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output does not say %q:\n%s", tc.crash, w, out)
			}
		}
	}
}

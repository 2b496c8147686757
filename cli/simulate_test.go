package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// needCallgrind skips tests that run certbench under valgrind: not under
// -short or -race (the race detector's runtime under valgrind is far too
// slow), nor without valgrind or off amd64.
func needCallgrind(t *testing.T) {
	t.Helper()
	if testing.Short() || raceEnabled {
		t.Skip("runs certbench under valgrind (not with -short or -race)")
	}
	if !callgrind.Supported() {
		t.Skip("client requests are implemented for amd64 only")
	}
	if _, _, err := callgrind.Find(""); err != nil {
		t.Skip(err)
	}
}

func TestRunSimulate(t *testing.T) {
	needCallgrind(t)
	dir := t.TempDir()
	out, cg := filepath.Join(dir, "sim.txt"), filepath.Join(dir, "cg")
	code, stdout, stderr := run(t, "run", "--instrument", "simulate", "-q", "--stores", "optimized", "--scenarios", "lookup-1000",
		"--count", "3", "--ops", "2000", "--callgrind-dir", cg, "-o", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := benchfmt.NewReader(f, out)
	n := 0
	var lo, hi float64
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		n++
		if got := res.GetConfig(results.InstrumentKey); got != results.InstrumentSimulate {
			t.Errorf("instrument %q", got)
		}
		if !strings.HasPrefix(res.GetConfig(results.SimulatorKey), "valgrind-") {
			t.Errorf("simulator %q", res.GetConfig(results.SimulatorKey))
		}
		units := map[string]float64{}
		for _, v := range res.Values {
			units[v.OrigUnit] = v.Value
			if v.OrigUnit == "" {
				units[v.Unit] = v.Value
			}
		}
		if _, ok := units[results.UnitNsPerOp]; ok {
			t.Errorf("a simulated sample has ns/op: %v", units)
		}
		// A lookup of the optimized store is a few hundred instructions.
		ir := units[results.UnitInstructions]
		if ir < 50 || ir > 50000 {
			t.Errorf("instructions/op %v", ir)
		}
		if n == 1 || ir < lo {
			lo = ir
		}
		hi = max(hi, ir)
		if res.Iters != 2000 {
			t.Errorf("iterations %d, want --ops 2000", res.Iters)
		}
	}
	if n != 3 {
		t.Errorf("%d samples, want 3", n)
	}
	// Every sample is the same steady state (bench's simulator).
	if hi > lo*1.0005 {
		t.Errorf("instructions/op %v to %v: more than 0.05%% apart", lo, hi)
	}
	for _, k := range []int{1, 2, 3} {
		if _, err := os.Stat(filepath.Join(cg, fmt.Sprintf("lookup-1000.optimized.%d.callgrind", k))); err != nil {
			t.Errorf("callgrind file of sample %d: %v", k, err)
		}
	}
	// profile top reads them. (Test binaries are linked without a symbol
	// table: callgrind names their functions by address.)
	code, stdout, stderr = run(t, "profile", "top", "--top", "3", filepath.Join(cg, "lookup-1000.optimized.1.callgrind"))
	if code != cli.ExitOK || !strings.Contains(stdout, "instructions per op (2000 ops)") {
		t.Errorf("profile top: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestSimulateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--instrument", "clock"}, `--instrument "clock": want wall or simulate`},
		{[]string{"run", "--cache-sim"}, "--cache-sim needs --instrument simulate"},
		{[]string{"run", "--callgrind-dir", "x"}, "--callgrind-dir needs --instrument simulate"},
		{[]string{"run", "--instrument", "simulate", "--stores", "optimized", "--scenarios", "handshake-1000"}, "handshake-1000: the simulate instrument measures refresh and lookup scenarios"},
		{[]string{"run", "--instrument", "simulate", "--stores", "optimized", "--scenarios", "lookup-1000", "--sync", "d"}, "--sync starts the clocks"},
		{[]string{"profile", "--instrument", "simulate", "--stores", "optimized", "--scenarios", "handshake-under-churn", "--dir", "DIR"}, "handshake-under-churn: the simulate instrument"},
	} {
		args := tc.args
		for i, a := range args {
			if a == "DIR" {
				args[i] = t.TempDir()
			}
		}
		code, _, stderr := run(t, args...)
		if code != cli.ExitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestSimulateWithoutValgrind(t *testing.T) {
	if !callgrind.Supported() {
		t.Skip("amd64 only")
	}
	t.Setenv("PATH", t.TempDir())
	code, _, stderr := run(t, "run", "--instrument", "simulate", "--stores", "optimized", "--scenarios", "lookup-1000")
	if code != cli.ExitUsage || !strings.Contains(stderr, "apt-get install valgrind") {
		t.Errorf("exit %d, stderr %q; want 2 naming the package", code, stderr)
	}
}

func TestGateNamesFunctionsFromCallgrindFiles(t *testing.T) {
	small, err := os.ReadFile("../internal/callgrind/testdata/small.callgrind")
	if err != nil {
		t.Fatal(err)
	}
	base, head := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Three windows a side; head's Update calls memmove for 5,000 more
	// instructions (one window of head, an outlier, for 50,000 more: the
	// median window is blamed).
	grown := func(extra string) string {
		h := strings.Replace(string(small), "calls=10 0x10\n* 300 0 2 1 1 1", "calls=10 0x10\n* "+extra+" 0 2 1 1 1", 1)
		return strings.Replace(h, "16 300 0 2 1 1 1", "16 "+extra+" 0 2 1 1 1", 1)
	}
	for k, text := range []string{string(small), string(small), string(small)} {
		write(base, fmt.Sprintf("s.optimized.%d.callgrind", k+1), text)
	}
	for k, extra := range []string{"5300", "50300", "5300"} {
		write(head, fmt.Sprintf("s.optimized.%d.callgrind", k+1), grown(extra))
	}
	res := func(v float64) string {
		var b strings.Builder
		b.WriteString("instrument: simulate\n")
		for range 5 {
			fmt.Fprintf(&b, "BenchmarkChurn/scenario=s/store=optimized 1 %g instructions/op\n", v)
		}
		return b.String()
	}
	dir := t.TempDir()
	write(dir, "base.txt", res(1000))
	write(dir, "head.txt", res(6000))
	code, stdout, stderr := run(t, "gate", "--no-config", "--base-profiles", base, "--head-profiles", head,
		filepath.Join(dir, "base.txt"), filepath.Join(dir, "head.txt"))
	if code != cli.ExitRegression {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"Functions that grew: s/optimized instructions/op (per op by store function", "stores/optimized.(*Store).Update", "memmove"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report does not name %q:\n%s", want, stdout)
		}
	}
	// 5,000 more per op in the median window, not the outlier's 50,000.
	if !regexp.MustCompile(`\+5,000 +1,000 +6,000 `).MatchString(stdout) {
		t.Errorf("the report does not show the median window's growth:\n%s", stdout)
	}
}

// TestRunSimulateStoreFault: a store that panics inside a sample's
// callgrind window is reported and recorded as under the clock (exit 1, a
// failure line), and the window is closed: the other store's samples,
// measured after it in the same process, count their own instructions,
// alike.
func TestRunSimulateStoreFault(t *testing.T) {
	needCallgrind(t)
	out := filepath.Join(t.TempDir(), "sim.txt")
	code, stderr := certbench(t, 10*time.Minute, nil, "run", "--instrument", "simulate", "-q", "--stores", "boom2nd,optimized",
		"--scenarios", "rotate-10-of-100", "--count", "2", "--ops", "6", "-o", out)
	if code != cli.ExitRegression {
		t.Fatalf("exit %d, want %d (a store failed)\n%s", code, cli.ExitRegression, stderr)
	}
	if want := "store boom2nd, scenario rotate-10-of-100, sample 1: panic in Update"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "--- FAIL: ") || !strings.Contains(string(b), "boom2nd") {
		t.Errorf("no failure line of boom2nd in the results:\n%s", b)
	}
	r := benchfmt.NewReader(strings.NewReader(string(b)), out)
	var ir []float64
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		if v, ok := res.Value(results.UnitInstructions); ok {
			ir = append(ir, v)
		}
	}
	if len(ir) != 2 {
		t.Fatalf("%d samples with instructions/op, want optimized's 2:\n%s", len(ir), b)
	}
	// A window left open by the panic would make the next one toggle
	// collection off: next to nothing counted.
	if ir[0] < 10000 || ir[1] < 10000 || ir[0] > ir[1]*1.01 || ir[1] > ir[0]*1.01 {
		t.Errorf("optimized's instructions/op after the panic: %v", ir)
	}
}

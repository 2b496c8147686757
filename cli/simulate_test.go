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
	"github.com/certbench/certbench/internal/cost"
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
	code, stdout, stderr := run(t, "run", "--simulate", "-q", "--stores", "optimized", "--scenarios", "lookup-1000",
		"--count", "3", "--ops", "2000", "--profiles", cg, "-o", out)
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
		if _, err := os.Stat(filepath.Join(cg, cost.SimFileName("lookup-1000", "optimized", k))); err != nil {
			t.Errorf("profile of sample %d: %v", k, err)
		}
	}
	// profile top reads them, per op. (Test binaries are linked without a
	// symbol table: callgrind names their functions by address.)
	code, stdout, stderr = run(t, "profile", "top", "--top", "3", filepath.Join(cg, cost.SimFileName("lookup-1000", "optimized", 1)))
	if code != cli.ExitOK || !strings.Contains(stdout, "lookup-1000 on optimized, 2000 ops") || !strings.Contains(stdout, "instructions per op, by flat") {
		t.Errorf("profile top: exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestSimulateUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--cache-sim"}, "--cache-sim needs --simulate"},
		{[]string{"run", "--profiles", "x"}, "--profiles needs --simulate"},
		{[]string{"run", "--simulate", "--stores", "optimized", "--scenarios", "handshake-1000"}, "handshake-1000: the simulate instrument measures refresh and lookup scenarios"},
		{[]string{"profile", "--simulate", "--stores", "optimized", "--scenarios", "handshake-under-churn", "--out", "DIR"}, "handshake-under-churn: the simulate instrument"},
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
	code, _, stderr := run(t, "run", "--simulate", "--stores", "optimized", "--scenarios", "lookup-1000")
	if code != cli.ExitUsage || !strings.Contains(stderr, "apt-get install valgrind") {
		t.Errorf("exit %d, stderr %q; want 2 naming the package", code, stderr)
	}
}

// The gate names the store line whose instructions grew, from profiles
// of the simulated CPU (callgrind windows with stacks, as certbench
// profile --simulate writes them), with the library function
// below it that grew.
func TestGateNamesLinesFromSimulatedProfiles(t *testing.T) {
	window := func(memmove int) string {
		return fmt.Sprintf(`desc: Trigger: dump scenario=s store=optimized sample=1 ops=10
events: Ir
fl=(1) /src/stores/optimized/update.go
fn=(1) github.com/certbench/certbench/stores/optimized.(*Store).Update
40 2000
cfn=(2) memmove'github.com/certbench/certbench/stores/optimized.(*Store).Update
calls=10 1
42 %d
fl=(2) memmove.S
fn=(2)
1 %d
`, memmove, memmove)
	}
	dirs := [2]string{t.TempDir(), t.TempDir()}
	for i, memmove := range []int{30000, 80000} {
		parts, err := cost.ReadCallgrind(strings.NewReader(window(memmove)))
		if err != nil {
			t.Fatal(err)
		}
		if err := cost.Save(parts[0].Profile, filepath.Join(dirs[i], cost.SimFileName("s", "optimized", 0))); err != nil {
			t.Fatal(err)
		}
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
	os.WriteFile(filepath.Join(dir, "base.txt"), []byte(res(5000)), 0o644)
	os.WriteFile(filepath.Join(dir, "head.txt"), []byte(res(10000)), 0o644)
	code, stdout, stderr := run(t, "gate", "--config=", "--base-profiles", dirs[0], "--head-profiles", dirs[1],
		filepath.Join(dir, "base.txt"), filepath.Join(dir, "head.txt"))
	if code != cli.ExitRegression {
		t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"Functions that grew: s/optimized instructions/op (per op by store line",
		"stores/optimized.(*Store).Update (update.go:42)", "↳ memmove"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report does not name %q:\n%s", want, stdout)
		}
	}
	if !regexp.MustCompile(`\+5,000 +3,000 +8,000 `).MatchString(stdout) {
		t.Errorf("the report does not show the line's growth per op:\n%s", stdout)
	}
	// Without profiles, the gate says what would name the line.
	_, stdout, _ = run(t, "gate", "--config=", filepath.Join(dir, "base.txt"), filepath.Join(dir, "head.txt"))
	if want := "certbench ab BASE_REF --simulate --stores optimized --scenarios s"; !strings.Contains(stdout, want) {
		t.Errorf("no profiles: the report does not say %q:\n%s", want, stdout)
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
	code, stderr := certbench(t, 10*time.Minute, nil, "run", "--simulate", "-q", "--stores", "boom2nd,optimized",
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

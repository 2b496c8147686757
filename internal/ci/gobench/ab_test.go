package gobench

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/ci/ab"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
)

// gitModule makes a git repository of tinyModule(base) on main and a
// branch whose lib.go works as head (a README change when head is "") and
// returns it, on the branch.
func gitModule(t *testing.T, base, head string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	repo := tinyModule(t, base)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	git("checkout", "-q", "-b", "pr")
	name, content := "README.md", "# tiny\n"
	if head != "" {
		name, content = "lib/lib.go", string(must(os.ReadFile(filepath.Join(tinyModule(t, head), "lib", "lib.go"))))
	}
	if err := os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".")
	git("commit", "-q", "-m", "head")
	return repo
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// abBench runs certbench ab's protocol with --bench on repo (no certbench
// binary: the module's benchmarks only) and returns its report.
func abBench(t *testing.T, repo string, simulate bool) *ab.Outcome {
	t.Helper()
	t.Chdir(repo)
	out := t.TempDir()
	o := ab.RunOptions{BaseRef: "main", Main: "./cmd/certbench", Count: 4, Simulate: simulate, SimCount: 5, Out: out,
		Policy: gate.PolicyFlags{NoConfig: true}}
	o.Bench = AB(Options{Packages: []string{"./..."}, Bench: ".", Rounds: o.Count, Simulate: simulate, SimCount: o.SimCount}, out)
	rep, err := ab.Run(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Wall != nil || rep.Sim != nil {
		t.Error("scenarios measured in a module without a certbench binary")
	}
	return rep
}

// finding returns v's finding for unit, or fails.
func finding(t *testing.T, v *gate.Verdict, unit string) *gate.Finding {
	t.Helper()
	for _, f := range v.Findings {
		if f.Unit == unit {
			return f
		}
	}
	t.Fatalf("no %s finding in %+v", unit, v.Findings)
	return nil
}

// TestABBench gates a module's own benchmark at base and head on the
// clock: one more allocation per op fails, a README change passes.
func TestABBench(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	alloc := "\tsink = append(sink[:0], make([]byte, 64))\n"
	rep := abBench(t, gitModule(t, alloc, alloc+"\tsink = append(sink, make([]byte, 64))\n"), false)
	if rep.Passed() || rep.Bench == nil || finding(t, rep.Bench.Verdict, results.UnitAllocs).Status != gate.Regressed {
		t.Errorf("one more allocation per op: passed %v, %+v", rep.Passed(), rep.Bench)
	}
	if rep := abBench(t, gitModule(t, alloc, ""), false); !rep.Passed() || rep.Bench == nil {
		t.Errorf("a README change: passed %v, %+v", rep.Passed(), rep.Bench)
	}
}

// TestABBenchSimulated gates a module's own benchmark on the simulated
// CPU: 0.5% more work per op fails on instructions/op (+0.25% allowed),
// allocations exact; a README change passes.
func TestABBenchSimulated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs test binaries under valgrind")
	}
	if _, _, err := callgrind.Find(""); err != nil || !callgrind.Supported() {
		t.Skip("no valgrind, or not amd64")
	}
	work := func(rounds int) string {
		return "\tx := uint64(len(sink)) | 1\n\tfor i := 0; i < " + strconv.Itoa(rounds) + "; i++ {\n\t\tx ^= x << 13\n\t\tx ^= x >> 7\n\t\tx ^= x << 17\n\t}\n\tsink = append(sink[:0], make([]byte, 64+x&63))\n"
	}
	rep := abBench(t, gitModule(t, work(20000), work(20100)), true)
	if rep.Passed() || rep.BenchSim == nil {
		t.Fatalf("0.5%% more work: passed %v, %+v", rep.Passed(), rep.BenchSim)
	}
	ir := finding(t, rep.BenchSim.Verdict, results.UnitInstructions)
	if ir.Status != gate.Regressed || ir.Head/ir.Base < 1.004 || ir.Head/ir.Base > 1.006 {
		t.Errorf("instructions/op %v -> %v (%s), want regressed by 0.5%%", ir.Base, ir.Head, ir.Status)
	}
	if a := finding(t, rep.BenchSim.Verdict, results.UnitAllocs); a.Base != 1 || a.Head != 1 {
		t.Errorf("allocs/op %v -> %v, want exactly 1", a.Base, a.Head)
	}
	if rep := abBench(t, gitModule(t, work(20000), ""), true); !rep.Passed() || rep.BenchSim == nil {
		t.Errorf("a README change: passed %v, %+v", rep.Passed(), rep.BenchSim)
	}
}

// TestSimulateFallsBack counts BenchmarkWork on the simulated CPU and
// sends BenchmarkSleep, which waits, to the clock with a note; a benchmark
// whose setup draws crypto/rand counts alike in every run.
func TestSimulateFallsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("runs test binaries under valgrind")
	}
	if _, _, err := callgrind.Find(""); err != nil || !callgrind.Supported() {
		t.Skip("no valgrind, or not amd64")
	}
	sleep := "package lib\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc BenchmarkSleep(b *testing.B) {\n\tfor i := 0; i < b.N; i++ {\n\t\ttime.Sleep(time.Millisecond)\n\t}\n}\n"
	random := "package lib\n\nimport (\n\tcrand \"crypto/rand\"\n\t\"testing\"\n)\n\nfunc BenchmarkRandomSetup(b *testing.B) {\n\tvar r [1]byte\n\tcrand.Read(r[:])\n" +
		"\tx := uint64(1)\n\tfor i := 0; i < 1000*(1+int(r[0])); i++ {\n\t\tx ^= x << 13\n\t\tx ^= x >> 7\n\t\tx ^= x << 17\n\t}\n\tb.ResetTimer()\n\tfor i := 0; i < b.N; i++ {\n\t\tWork()\n\t}\n\tsink = append(sink, make([]byte, x&1))\n}\n"
	dir := tinyModule(t, "\tsink = append(sink[:0], make([]byte, 64))\n", "lib/sleep_test.go", sleep, "lib/random_test.go", random)
	res, err := Run(t.Context(), Options{Base: dir, Head: dir, Packages: []string{"./lib"}, Rounds: 1, Benchtime: "5x", Simulate: true, SimCount: 2, Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "BenchmarkSleep (example.com/tiny/lib) ran on the clock: it waits") {
		t.Errorf("notes %q, want one: BenchmarkSleep waits", res.Notes)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(res.SimBase), "bin", "base", "0.lib.test.sim")); err != nil {
		t.Errorf("no test binary with crypto/rand's stream fixed: %v", err)
	}
	var randomIR []float64
	for file, want := range map[string]string{res.SimBase: "RandomSetup Work", res.SimHead: "RandomSetup Work", res.Base: "Sleep"} {
		set, err := results.Load(file)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range set.Series {
			names = append(names, strings.TrimPrefix(topLevel(string(s.Name)), "Benchmark")) // no -GOMAXPROCS
			if m := s.Metric(results.UnitInstructions); m != nil && strings.Contains(string(s.Name), "Random") {
				randomIR = append(randomIR, m.Values...)
			}
		}
		if slices.Sort(names); strings.Join(names, " ") != want {
			t.Errorf("%s holds %q, want %s", filepath.Base(file), names, want)
		}
	}
	if len(randomIR) != 4 || slices.Max(randomIR) > slices.Min(randomIR)*1.0005 {
		t.Errorf("BenchmarkRandomSetup's instructions/op %v: want 4 samples within 0.05%% (crypto/rand's stream fixed)", randomIR)
	}
}

package gobench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/certbench/certbench/internal/callgrind"
	"github.com/certbench/certbench/internal/ci/ab"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// On the simulated CPU (Options.Simulate) each benchmark, each leaf of its
// sub-benchmarks, runs for D iterations in a test binary of its own whose
// testing package counts under callgrind only while the benchmark's timer
// runs (callgrind.TestingOverlay: the process's start, the benchmark's
// set-up and testing's calibration run are not counted, and run
// uninstrumented, faster), its instructions per op what the timed region
// counted over D; testing's exact count of the timed region's objects and
// bytes gives allocs/op and B/op (one more object per read of crypto/rand
// in the timed region than natively: the fixed stream's copy). What the
// count leaves out is callgrind.Cost.Counted's; the collector is off
// (GOGC=off). D makes the counted region about simWindow of native time,
// within simMaxBytes of allocation. A benchmark that works in the kernel
// (system time over half its CPU time), that waits (see simMinIPN), or
// whose counting would take past simBudget, and every benchmark when this
// Go's testing package cannot be patched, runs on the clock instead, with
// a note saying why.
const (
	simWindow   = 50 * time.Millisecond
	simMaxBytes = 1 << 30
	simBudget   = 3 * time.Minute
	// simSlowdown is how much slower a Go program runs under callgrind
	// than natively (measured: 40-70 on certbench's benchmarks), and
	// simSetup how much slower uninstrumented (the set-up).
	simSlowdown = 60
	simSetup    = 8
)

// simBinary builds p's test binary for the simulated CPU: bin with the
// testing package patched to count its benchmarks' timed regions
// (callgrind.TestingOverlay) and a test file added (go test -overlay) whose
// init gives crypto/rand a fixed stream (Go's testing hook
// crypto/internal/rand.SetTestingReader, as testing/cryptotest uses it), so
// that a benchmark that generates keys or draws random inputs does the same
// work in every run. It returns "" and why where it cannot.
func simBinary(ctx context.Context, out, tree string, p *Package, bin string) (string, string, error) {
	dir := filepath.Join(out, "overlay", filepath.Base(bin)+"."+filepath.Base(tree))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return "", "", fmt.Errorf("go env GOROOT: %w", err)
	}
	replace, err := callgrind.TestingOverlay(strings.TrimSpace(string(goroot)), dir)
	if err != nil {
		return "", err.Error(), nil
	}
	src, overlay := filepath.Join(dir, "zz_certbench_rand_test.go"), filepath.Join(dir, "overlay.json")
	replace[filepath.Join(tree, p.Dir, "zz_certbench_rand_test.go")] = src
	js, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err == nil {
		err = errors.Join(os.WriteFile(src, []byte(fmt.Sprintf(fixedRand, p.name)), 0o644), os.WriteFile(overlay, js, 0o644))
	}
	if err != nil {
		return "", "", err
	}
	if ok, err := buildTest(ctx, tree, p, bin+".sim", overlay); err != nil || !ok {
		return "", fmt.Sprintf("its test binary does not build with the patched testing package (%v)", err), nil
	}
	return bin + ".sim", "", nil
}

// fixedRand is simBinary's test file, for a package named %s.
const fixedRand = `package %s

import (
	_ "crypto/rand"
	"io"
	"math/rand/v2"
	"sync"
	_ "unsafe"
)

//go:linkname certbenchSetTestingReader crypto/internal/rand.SetTestingReader
func certbenchSetTestingReader(r io.Reader)

type certbenchRand struct {
	sync.Mutex
	r *rand.ChaCha8
}

func (c *certbenchRand) Read(b []byte) (int, error) {
	c.Lock()
	defer c.Unlock()
	return c.r.Read(b)
}

func init() { certbenchSetTestingReader(&certbenchRand{r: rand.NewChaCha8([32]byte{'c', 'e', 'r', 't', 'b', 'e', 'n', 'c', 'h'})}) }
`

// A leaf is one benchmark counted on the simulated CPU.
type leaf struct {
	pkg       *Package
	top, name string  // its top-level benchmark; its name, GOMAXPROCS=1 (no suffix)
	ops       int     // D
	ns        float64 // ns/op natively (wall time)
	headOnly  bool
	samples   [2][]*benchfmt.Result // by side
}

// A simSample is a counted sample, for results.Writer.
type simSample benchfmt.Result

// Result returns the sample's line under config and its package.
func (s *simSample) Result(config []benchfmt.Config, _ int) *benchfmt.Result {
	r := benchfmt.Result(*s)
	r.Config = append(slices.Clip(config), r.Config...)
	return &r
}

// plan calibrates each benchmark of the packages natively on the head and
// returns the leaves to count; those left to the clock get a note.
func (res *Result) plan(ctx context.Context, opts Options) ([]*leaf, error) {
	var leaves []*leaf
	for _, p := range res.Packages {
		if p.noSim != "" {
			continue
		}
		for i, names := range [2][]string{p.Benchmarks, p.HeadOnly} {
			for _, top := range names {
				ls, why, err := calibrate(ctx, p.Head, filepath.Join(opts.Head, p.Dir), top)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", p.ImportPath, err)
				}
				if why != "" {
					res.Notes = append(res.Notes, fmt.Sprintf("%s (%s) ran on the clock: %s", top, p.ImportPath, why))
					continue
				}
				if p.simulated == nil {
					p.simulated = map[string]bool{}
				}
				p.simulated[top] = true
				for _, l := range ls {
					l.pkg, l.headOnly = p, i == 1
				}
				leaves = append(leaves, ls...)
			}
		}
	}
	return leaves, nil
}

// calibrate runs the top-level benchmark natively for about simWindow a
// leaf and returns its leaves with their D, or why it runs on the clock
// (it works in the kernel; counting it would take past simBudget).
func calibrate(ctx context.Context, bin, dir, top string) ([]*leaf, string, error) {
	cmd := exec.CommandContext(ctx, bin, "-test.run=^$", "-test.bench=^"+regexp.QuoteMeta(top)+"$",
		"-test.benchtime="+simWindow.String(), "-test.benchmem", "-test.count=1")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "GOMAXPROCS=1")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, "", fmt.Errorf("%s: %v\n%s", top, err, tail(out.String()+stderr.String(), 15))
	}
	// ns/op is wall time, which other tenants of the machine stretch; D
	// and the budget go by the CPU time the process got of it.
	st, wall := cmd.ProcessState, time.Since(start)
	cpu := st.UserTime() + st.SystemTime()
	if st.SystemTime() > cpu/2 && cpu > simWindow/2 { // (one that sleeps has too little to judge: see simMinIPN)
		return nil, fmt.Sprintf("%d%% of its CPU time was in the kernel, which the simulated CPU does not count", 100*st.SystemTime()/cpu), nil
	}
	share := min(1, float64(cpu)/float64(wall))
	var leaves []*leaf
	var worst time.Duration
	for _, l := range strings.Split(out.String(), "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || f[3] != "ns/op" {
			continue
		}
		ns, err := strconv.ParseFloat(f[2], 64)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %q: %w", top, l, err)
		}
		bytesPerOp := 0.0
		for i := 4; i+1 < len(f); i += 2 {
			if f[i+1] == "B/op" {
				bytesPerOp, _ = strconv.ParseFloat(f[i], 64)
			}
		}
		d := max(1, math.Ceil(float64(simWindow)/max(ns*share, 1)))
		if bytesPerOp > 0 {
			d = max(1, min(d, simMaxBytes/bytesPerOp))
		}
		leaves = append(leaves, &leaf{top: top, name: f[0], ops: int(min(max(d, 2), 1e8)), ns: ns}) // D > 1: testing's calibration run is n=1
		worst = max(worst, time.Duration(float64(int(d)+1)*ns*share))
	}
	if len(leaves) == 0 {
		return nil, "", fmt.Errorf("%s printed no result:\n%s", top, tail(out.String(), 15))
	}
	if est := simSlowdown*worst + simSetup*cpu; est > simBudget {
		return nil, fmt.Sprintf("counting it would take about %s a sample under callgrind (more than %s)", est.Round(time.Second), simBudget), nil
	}
	return leaves, "", nil
}

// simulate counts the leaves on both sides, opts.SimCount samples each
// (the head-only ones at most HeadOnlyRounds), both sides at once
// (instruction counts do not depend on what else runs), and returns each
// side's file and the head-only file. A benchmark that counts fewer than
// simMinIPN instructions per native nanosecond waits (sleeps, I/O), which
// instructions do not count: it goes to the clock, with a note.
func (res *Result) simulate(ctx context.Context, opts Options, leaves []*leaf) ([3][]byte, error) {
	errs := make(chan error, 2)
	for side := range 2 {
		go func() { errs <- simulateSide(ctx, opts, leaves, side) }()
	}
	if err := errors.Join(<-errs, <-errs); err != nil {
		return [3][]byte{}, err
	}
	for _, l := range leaves {
		if ir := l.samples[1][0].Values[0].Value; l.pkg.simulated[l.top] && ir < simMinIPN*l.ns {
			res.Notes = append(res.Notes, fmt.Sprintf("%s (%s) ran on the clock: it waits (sleeps, I/O), which instructions do not count: %s of them per op against %s natively",
				l.top, l.pkg.ImportPath, results.Format(ir, results.UnitInstructions), results.Format(l.ns/1e9, results.UnitSec)))
			delete(l.pkg.simulated, l.top)
		}
	}
	var files [3]bytes.Buffer
	var out [3][]byte
	for i := range files {
		w := results.NewWriter(&files[i], "gomaxprocs", "1", results.InstrumentKey, results.InstrumentSimulate, results.SimulatorKey, res.simulator)
		for _, l := range leaves {
			if !l.pkg.simulated[l.top] || l.headOnly != (i == 2) {
				continue
			}
			for _, r := range l.samples[min(i, 1)] {
				if err := w.Write((*simSample)(r)); err != nil {
					return out, err
				}
			}
		}
		if err := w.Close(); err != nil {
			return out, err
		}
		out[i] = files[i].Bytes()
	}
	return out, nil
}

// simMinIPN is the fewest instructions per native nanosecond of a
// benchmark that does not wait: CPU-bound code runs 1 to 4, or a few
// times fewer on a loaded machine.
const simMinIPN = 0.05

// simulateSide counts side's leaves into their samples.
func simulateSide(ctx context.Context, opts Options, leaves []*leaf, side int) error {
	tmp, err := os.MkdirTemp(opts.Out, "sim-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for k := 1; k <= opts.SimCount; k++ {
		for _, l := range leaves {
			if l.headOnly && (side == 0 || k > HeadOnlyRounds) {
				continue
			}
			bin := l.pkg.sims[side]
			logf(opts.Log, "gobench: simulated %d/%d %s (%s)", k, opts.SimCount, l.name, ab.Sides[side])
			r, err := count(ctx, bin, filepath.Join(treeOf(opts, side), l.pkg.Dir), l, tmp)
			if err != nil {
				return fmt.Errorf("%s %s (%s): %w", l.pkg.ImportPath, l.name, ab.Sides[side], err)
			}
			r.Config = []benchfmt.Config{{Key: "pkg", Value: []byte(l.pkg.ImportPath)}}
			l.samples[side] = append(l.samples[side], r)
		}
	}
	return nil
}

// count measures one sample of leaf l: the instructions, objects and bytes
// its run of D iterations counted while testing's timer ran, per op.
func count(ctx context.Context, bin, dir string, l *leaf, tmp string) (*benchfmt.Result, error) {
	out, err := os.MkdirTemp(tmp, "cg-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(out)
	cmd, err := callgrind.Command(ctx, callgrind.Options{Dir: out}, bin, leafArgs(l.name, l.ops)...)
	if err != nil {
		return nil, err
	}
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "GOGC=off")
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stdout
	if _, err = callgrind.Start(cmd); err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(out, callgrind.LogFile))
		return nil, fmt.Errorf("under callgrind: %v\n%s%s", err, tail(stdout.String(), 10), tail(string(log), 10))
	}
	// The dumps of the leaf's timed region (one per stop of its timer),
	// and the one that carries its allocations.
	var ir, objects, space float64
	timed, allocs := fmt.Sprintf("%s n=%d", callgrind.TimedLabel, l.ops), fmt.Sprintf("%s-allocs n=%d ", callgrind.TimedLabel, l.ops)
	s := &callgrind.Session{Dir: out}
	for k := 1; ; k++ {
		file := filepath.Join(out, callgrind.OutFile+"."+strconv.Itoa(k))
		if names, _ := filepath.Glob(file + "-*"); len(names) == 0 {
			break
		}
		c, err := s.Read("", file)
		if err != nil {
			return nil, err
		}
		switch {
		case c.Label == timed:
			ir += float64(c.Counted[0]) // instructions, the first sample type
		case strings.HasPrefix(c.Label, allocs):
			fmt.Sscanf(strings.TrimPrefix(c.Label, allocs), "allocs=%g bytes=%g", &objects, &space)
		}
	}
	if ir <= 0 {
		return nil, fmt.Errorf("no timed region of %s was counted (%s)", l.name, tail(stdout.String(), 10))
	}
	d := float64(l.ops)
	return &benchfmt.Result{Name: []byte(strings.TrimPrefix(l.name, "Benchmark")), Iters: l.ops, Values: []benchfmt.Value{
		{Value: ir / d, Unit: results.UnitInstructions},
		{Value: space / d, Unit: results.UnitBytes},
		{Value: objects / d, Unit: results.UnitAllocs},
	}}, nil
}

// leafArgs runs exactly the leaf named name (every level anchored) for n
// iterations.
func leafArgs(name string, n int) []string {
	levels := strings.Split(name, "/")
	for i, s := range levels {
		levels[i] = "^" + regexp.QuoteMeta(s) + "$"
	}
	return []string{"-test.run=^$", "-test.bench=" + strings.Join(levels, "/"), "-test.benchtime=" + strconv.Itoa(n) + "x", "-test.count=1"}
}

// simulatorName says which simulator counts, for the files' configuration.
func simulatorName() (string, error) {
	_, version, err := callgrind.Find("")
	if err != nil {
		return "", err
	}
	return version + " callgrind, benchmarks' timed regions, GOGC=off", nil
}

// Package gobench measures a Go module's own benchmarks (go test -bench)
// at a pull request's base and head: it builds each package's test binary
// in both trees, runs them in the A/B protocol's rounds (ab.Rounds) at a
// fixed iteration count, and merges each side's samples, each under
// "round: N". Benchmarks only at the head run too, in the first rounds,
// into a file of their own (shown, not gated). After an allocation regression, [Sites] names
// the functions that grew. The trees are only read (-mod=readonly).
//
// With Options.Simulate they run on the simulated CPU instead, per op and
// exact (see simulate.go), but for those it cannot count.
package gobench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/internal/ci/ab"
)

// DefaultBenchtime is the fixed iteration count of a round.
const DefaultBenchtime = "100x"

// HeadOnlyRounds is how many rounds (the first) run the benchmarks only
// the head has: their medians are shown, not gated, so more rounds would
// only cost time.
const HeadOnlyRounds = 3

// Options configure Run.
type Options struct {
	// Base and Head are the trees' roots (their go.mod's directory).
	Base, Head string
	// Packages are patterns relative to a tree ("./pkg/tls/...", "."),
	// resolved in the head tree.
	Packages []string
	// Bench selects benchmarks (-test.bench; "" is "."); Benchtime is the
	// fixed iteration count ("Nx"; "" is DefaultBenchtime).
	Bench, Benchtime string
	// Rounds is the number of rounds (samples per side).
	Rounds int
	// Simulate counts the benchmarks on the simulated CPU, SimCount
	// samples a side (those it cannot count run on the clock).
	Simulate bool
	SimCount int
	// Out is the directory for binaries, raw outputs and merged files.
	Out string
	// Log, when not nil, gets a line per step.
	Log io.Writer
}

// Package is one package measured.
type Package struct {
	// ImportPath is its import path; Dir its directory relative to a tree.
	ImportPath, Dir string
	// Benchmarks are those at both sides (gated); HeadOnly those only the
	// head has (run, not gated); BaseOnly those the head removed.
	Benchmarks, HeadOnly, BaseOnly []string
	// Base and Head are the test binaries; Base is "" when the package has
	// no tests at the base.
	Base, Head string

	declares  bool            // its test files at the head declare a Benchmark function
	name      string          // the package's name
	sims      [2]string       // the test binaries counted on the simulated CPU, by side
	noSim     string          // why they could not be built
	simulated map[string]bool // the benchmarks counted on the simulated CPU
}

// benchFunc matches the declaration of a benchmark function.
var benchFunc = regexp.MustCompile(`(?m)^func (Benchmark|Benchmark[^\p{Ll}]\w*)\(`)

// declaresBenchmarks reports whether a file in dir declares a benchmark;
// an unreadable one counts, so that the build says why.
func declaresBenchmarks(dir string, files []string) bool {
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || benchFunc.Match(b) {
			return true
		}
	}
	return false
}

// Result is what Run measured.
type Result struct {
	// Base and Head are the merged files of the benchmarks at both sides
	// ("" when there are none); HeadOnly the head's samples of those only
	// it has ("" when none). SimBase, SimHead and SimHeadOnly are the same
	// on the simulated CPU (Options.Simulate); the others then hold those
	// that ran on the clock.
	Base, Head, HeadOnly          string
	SimBase, SimHead, SimHeadOnly string
	// Packages are the packages with benchmarks at the head.
	Packages []*Package
	// Notes say what was left out and why.
	Notes []string
	// Benchtime is the fixed iteration count used; HeadOnlyRounds the
	// rounds of the benchmarks only the head has.
	Benchtime      string
	HeadOnlyRounds int

	simulator string // its configuration line
}

var benchtimeRE = regexp.MustCompile(`^[1-9][0-9]*x$`)

// Run builds, runs and merges; see the package documentation.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	res := &Result{Benchtime: opts.Benchtime, HeadOnlyRounds: min(opts.Rounds, HeadOnlyRounds)}
	pkgs, err := listPackages(ctx, opts.Head, opts.Packages)
	if err != nil {
		return nil, err
	}
	for i, p := range pkgs {
		if !p.declares {
			// Building a test binary takes long; one that can list no
			// benchmark is not worth it.
			res.Notes = append(res.Notes, fmt.Sprintf("%s has no benchmarks at the head (its test files declare none): not built", p.ImportPath))
			continue
		}
		if err := res.prepare(ctx, opts, i, p); err != nil {
			return nil, err
		}
	}
	if len(res.Packages) == 0 {
		return res, nil
	}
	if opts.Simulate {
		var err error
		if res.simulator, err = simulatorName(); err != nil {
			return nil, &ab.InputError{Err: err}
		}
		leaves, err := res.plan(ctx, opts)
		if err != nil {
			return nil, err
		}
		files, err := res.simulate(ctx, opts, leaves)
		if err != nil {
			return nil, err
		}
		if err := keep(opts.Out, "sim-", files, [3]*string{&res.SimBase, &res.SimHead, &res.SimHeadOnly}); err != nil {
			return nil, err
		}
	}
	files, err := res.runRounds(ctx, opts)
	if err != nil {
		return nil, err
	}
	return res, keep(opts.Out, "", files, [3]*string{&res.Base, &res.Head, &res.HeadOnly})
}

// keep writes the base's, the head's and the head-only results that hold
// any into out (PREFIXbase.txt, ...) and sets their paths; base and head
// only both or neither.
func keep(out, prefix string, files [3][]byte, paths [3]*string) error {
	for i, p := range paths {
		if !bytes.Contains(files[i], []byte("\nBenchmark")) {
			continue
		}
		*p = filepath.Join(out, prefix+[]string{"base.txt", "head.txt", "head-only.txt"}[i])
		if err := os.WriteFile(*p, files[i], 0o644); err != nil {
			return err
		}
	}
	if *paths[0] == "" || *paths[1] == "" {
		*paths[0], *paths[1] = "", ""
	}
	return nil
}

// check fills in opts' defaults and checks it.
func (opts *Options) check() error {
	if opts.Bench == "" {
		opts.Bench = "."
	}
	if opts.Benchtime == "" {
		opts.Benchtime = DefaultBenchtime
	}
	if !benchtimeRE.MatchString(opts.Benchtime) {
		return &ab.InputError{Err: fmt.Errorf("benchtime %q: want a fixed iteration count such as 100x", opts.Benchtime)}
	}
	if _, err := regexp.Compile(opts.Bench); err != nil {
		return &ab.InputError{Err: fmt.Errorf("bench %q: %w", opts.Bench, err)}
	}
	if opts.Rounds < 1 || opts.Simulate && opts.SimCount < 1 {
		return &ab.InputError{Err: fmt.Errorf("rounds %d, simulated samples %d: want at least 1", opts.Rounds, opts.SimCount)}
	}
	if len(opts.Packages) == 0 {
		return &ab.InputError{Err: errors.New("no packages")}
	}
	return nil
}

// prepare builds package p's test binary (the i-th) on both sides and adds
// it to res.Packages with its benchmarks by side, or says why not.
func (res *Result) prepare(ctx context.Context, opts Options, i int, p *Package) error {
	for k, side := range ab.Sides {
		tree := treeOf(opts, k)
		bin := filepath.Join(opts.Out, "bin", side, fmt.Sprintf("%d.%s.test", i, filepath.Base(p.ImportPath)))
		logf(opts.Log, "gobench: go test -c %s (%s)", p.ImportPath, side)
		ok, err := buildTest(ctx, tree, p, bin, "")
		if err != nil {
			return fmt.Errorf("%s: %w", side, err)
		}
		if !ok {
			continue
		}
		if opts.Simulate {
			var why string
			if p.sims[k], why, err = simBinary(ctx, opts.Out, tree, p, bin); err != nil {
				return fmt.Errorf("%s: %w", side, err)
			}
			if why != "" && p.noSim == "" {
				p.noSim = fmt.Sprintf("%s's benchmarks ran on the clock: %s", p.ImportPath, why)
				res.Notes = append(res.Notes, p.noSim)
			}
		}
		if side == "base" {
			p.Base = bin
		} else {
			p.Head = bin
		}
	}
	if p.Head == "" {
		return nil
	}
	names, err := listBenchmarks(ctx, p.Head, opts.Bench)
	if err != nil {
		return fmt.Errorf("head %s: %w", p.ImportPath, err)
	}
	if len(names) == 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("%s has no benchmarks matching %q at the head", p.ImportPath, opts.Bench))
		return nil
	}
	var baseNames []string
	if p.Base != "" {
		if baseNames, err = listBenchmarks(ctx, p.Base, opts.Bench); err != nil {
			return fmt.Errorf("base %s: %w", p.ImportPath, err)
		}
	}
	for _, n := range names {
		if slices.Contains(baseNames, n) {
			p.Benchmarks = append(p.Benchmarks, n)
		} else {
			p.HeadOnly = append(p.HeadOnly, n)
		}
	}
	p.BaseOnly = slices.DeleteFunc(baseNames, func(n string) bool { return slices.Contains(names, n) })
	res.Packages = append(res.Packages, p)
	return nil
}

// runRounds runs the A/B protocol's rounds (a package is a group), the
// head's head-only benchmarks with its others in the first
// res.HeadOnlyRounds rounds, keeping each raw output in
// Out/raw, and returns the base's, the head's and the head-only samples,
// each under its "round: N" line.
func (res *Result) runRounds(ctx context.Context, opts Options) ([3][]byte, error) {
	var files [3][]byte
	raw := filepath.Join(opts.Out, "raw")
	if err := os.MkdirAll(raw, 0o755); err != nil {
		return files, err
	}
	err := ab.Rounds(ctx, opts.Rounds, len(res.Packages), nil, func(ctx context.Context, s ab.Sample) error {
		p := res.Packages[s.Group]
		bin, names := p.Base, p.onClock(p.Benchmarks)
		if s.Side == 1 {
			bin = p.Head
			if s.Round <= res.HeadOnlyRounds {
				names = append(names, p.onClock(p.HeadOnly)...)
			}
		}
		if len(names) == 0 {
			return nil
		}
		logf(opts.Log, "gobench: round %d/%d %s (%s)", s.Round, opts.Rounds, p.ImportPath, ab.Sides[s.Side])
		out, err := runBench(ctx, bin, filepath.Join(treeOf(opts, s.Side), p.Dir), benchArgs(names, opts.Benchtime))
		if err != nil {
			return fmt.Errorf("%s: %w", p.ImportPath, err)
		}
		sample := append([]byte("round: "+strconv.Itoa(s.Round)+"\n"), out...)
		if s.Side == 0 {
			files[0] = append(files[0], sample...)
		}
		// The head's configuration lines go to both its files, each result
		// to its own.
		for _, l := range strings.SplitAfter(string(sample), "\n") {
			only := strings.HasPrefix(l, "Benchmark") && slices.Contains(p.HeadOnly, topLevel(strings.Fields(l)[0]))
			if s.Side == 1 && !only {
				files[1] = append(files[1], l...)
			}
			if s.Side == 1 && (only || !strings.HasPrefix(l, "Benchmark")) {
				files[2] = append(files[2], l...)
			}
		}
		return os.WriteFile(filepath.Join(raw, s.Name()), sample, 0o644)
	})
	return files, err
}

// onClock returns the names not counted on the simulated CPU.
func (p *Package) onClock(names []string) []string {
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return p.simulated[n] })
}

func treeOf(opts Options, side int) string { return [2]string{opts.Base, opts.Head}[side] }

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// goEnv is the go commands' environment: read-only modules, no workspace.
func goEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly -buildvcs=false")
}

// listPackages resolves patterns in tree.
func listPackages(ctx context.Context, tree string, patterns []string) ([]*Package, error) {
	args := append([]string{"list", "-e", "-json=ImportPath,Name,Dir,Error,TestGoFiles,XTestGoFiles", "--"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = tree, goEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, &ab.InputError{Err: fmt.Errorf("go list %s in %s: %v\n%s", strings.Join(patterns, " "), tree, err, strings.TrimSpace(stderr.String()))}
	}
	var pkgs []*Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct {
			ImportPath, Name, Dir string
			Error                 *struct{ Err string }
			TestGoFiles           []string
			XTestGoFiles          []string
		}
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		if p.Error != nil {
			return nil, &ab.InputError{Err: fmt.Errorf("package %s: %s", p.ImportPath, p.Error.Err)}
		}
		rel, err := filepath.Rel(tree, p.Dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			return nil, &ab.InputError{Err: fmt.Errorf("package %s is outside the tree %s", p.ImportPath, tree)}
		}
		if len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 {
			continue
		}
		pkgs = append(pkgs, &Package{ImportPath: p.ImportPath, Dir: rel, name: p.Name,
			declares: declaresBenchmarks(p.Dir, append(p.TestGoFiles, p.XTestGoFiles...))})
	}
	if len(pkgs) == 0 {
		return nil, &ab.InputError{Err: fmt.Errorf("no package with tests matches %s in %s", strings.Join(patterns, " "), tree)}
	}
	return pkgs, nil
}

// buildTest builds p's test binary in tree (with the -overlay file
// overlay, if set); false when it is missing there or has no tests.
func buildTest(ctx context.Context, tree string, p *Package, bin, overlay string) (bool, error) {
	if _, err := os.Stat(filepath.Join(tree, p.Dir)); err != nil {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return false, err
	}
	args := []string{"test", "-c", "-o", bin}
	if overlay != "" {
		// The linker lets only testing/cryptotest reach the hook.
		args = append(args, "-overlay", overlay, "-ldflags=-checklinkname=0")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./"+filepath.ToSlash(p.Dir))...)
	cmd.Dir, cmd.Env = tree, goEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return false, &ab.InputError{Err: fmt.Errorf("go test -c %s in %s does not build:\n%s", p.ImportPath, tree, tail(string(out), 15))}
	}
	if _, err := os.Stat(bin); err != nil {
		return false, nil // no test files
	}
	return true, nil
}

// listBenchmarks lists the benchmarks of a test binary matching re.
func listBenchmarks(ctx context.Context, bin, re string) ([]string, error) {
	cmd := exec.CommandContext(ctx, bin, "-test.list", "^Benchmark")
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %w", bin, err)
	}
	sel := regexp.MustCompile(re)
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Benchmark") && sel.MatchString(l) {
			names = append(names, l)
		}
	}
	return names, nil
}

// benchArgs are the arguments of one round: the benchmarks by exact name.
func benchArgs(names []string, benchtime string) []string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = regexp.QuoteMeta(n)
	}
	return []string{"-test.run=^$", "-test.bench=^(" + strings.Join(quoted, "|") + ")$",
		"-test.benchtime=" + benchtime, "-test.benchmem", "-test.count=1"}
}

// runBench runs a test binary in dir (where its testdata is) and returns
// its benchmark and configuration lines.
func runBench(ctx context.Context, bin, dir string, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, tail(string(out)+stderr.String(), 15))
	}
	var b bytes.Buffer
	for _, l := range strings.SplitAfter(string(out), "\n") {
		t := strings.TrimSpace(l)
		if t == "PASS" || t == "" || strings.HasPrefix(t, "ok ") {
			continue
		}
		b.WriteString(l)
		if !strings.HasSuffix(l, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

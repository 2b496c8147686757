package ab

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/ci/history"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// RunOptions configure Run.
type RunOptions struct {
	// Module is the module, relative to the repository's root ("": the
	// working directory); Main its certbench main package; Build, when
	// set, a bash command that builds it instead (see builder.build).
	Module, Main, Build string
	// BaseRef is the ref whose merge base with HEAD is the base;
	// BaseReplace edits the base's go.mod (MODULE=DIR).
	BaseRef     string
	BaseReplace []string
	// Stores (default the head binary's) and Scenarios (default its
	// default set); Count, Ops and ByRound as for Measure.
	Stores, Scenarios []string
	Count, Ops        int
	ByRound           bool
	// Policy's Config, when "", is Module's certbench.yaml at the base,
	// else in the working tree, else the built-in policy.
	Policy gate.PolicyFlags
	// Simulate adds a simulated CPU pass of SimCount samples per side;
	// WallMax is then the clock's time threshold (see LoosenClock).
	Simulate bool
	SimCount int
	WallMax  string
	// History, when set, is main's results (a directory or git:REF, see
	// package history): Run gates the head alone against them when they
	// have the base's commits (see againstHistory), else runs the base
	// too. With Record it adds HEAD's results to them instead of gating.
	History string
	Record  bool
	// Out is the output directory; Cache, when set, keeps base binaries
	// and results by commit.
	Out, Cache string
	Log        io.Writer
	// Bench, when set, gates the module's own go test benchmarks too: it
	// measures them in the base's tree and the head's and gates them with
	// policy, on the simulated CPU (sim: with Simulate) and on the clock
	// (clock: those sim could not count, or all), each nil when absent
	// (package gobench makes it). With Bench, a module without Main, or
	// Scenarios "none", has its benchmarks gated only.
	Bench func(ctx context.Context, base, head string, policy gate.Policy) (sim, clock *Result, err error)
}

// An Outcome is what Run found.
type Outcome struct {
	// Wall is the clock's pass; Sim the simulated CPU's (nil without
	// Simulate). Both nil: nothing to compare. Bench and BenchSim are
	// the module's own benchmarks' (RunOptions.Bench).
	Wall, Sim       *Result
	Bench, BenchSim *Result
	// Summary is the Markdown report (also in Out/summary.md).
	Summary []byte
}

// Passed reports whether no gate failed.
func (r *Outcome) Passed() bool {
	for _, res := range []*Result{r.Wall, r.Sim, r.Bench, r.BenchSim} {
		if res != nil && !res.Verdict.Passed() {
			return false
		}
	}
	return true
}

// run is one Run's state.
type run struct {
	o         RunOptions
	root, out string
	commit    string   // the base's
	edits     []string // the base's go.mod edits (BaseReplace)
	bins      [2]string
	desc      [2]string
	binKey    string
	notes     []string
	b         *builder
	hist      history.Store // History's
	// policy is the gate's; clock the clock's pass's (with Simulate its
	// time loosened: LoosenClock).
	policy, clock gate.Policy
	// rounds says how the clock's pass measured: both sides in
	// interleaved rounds, the head alone beside a cached base, or the
	// head alone against History.
	rounds string
}

// Run is the protocol on a git repository: it builds the module's binary
// at the merge base of BaseRef and HEAD and from the working tree, runs
// Measure, gates with the base's policy, and writes in Out: base.txt,
// head.txt, raw/, gate.txt, gate.json, summary.md, profiles, bin/,
// build.log (and sim-* with Simulate). With History it may run the head
// alone, or record it (see RunOptions.History).
func Run(ctx context.Context, o RunOptions) (*Outcome, error) {
	start := time.Now()
	r := &run{o: o}
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	defer r.b.log.Close()
	ref, isRef := strings.CutPrefix(o.History, history.GitPrefix)
	if isRef {
		if _, err := git(ctx, r.root, "fetch", "-q", "origin", "+"+ref+":"+ref); err != nil {
			logf(o.Log, "ab: %s not fetched from origin (none there yet?): %v", ref, err)
		}
	}
	if o.Record {
		return r.record(ctx, isRef)
	}
	if err := r.base(ctx); err != nil {
		return nil, err
	}
	if err := r.resolvePolicy(ctx); err != nil {
		return nil, err
	}
	rep := &Outcome{}
	var stores, scenarios []string
	if ok, err := r.againstHistory(ctx); err != nil {
		return nil, err
	} else if ok {
		stores, scenarios = o.Stores, o.Scenarios
		if err := r.gateHistory(ctx, rep); err != nil {
			return nil, err
		}
	} else {
		if err := r.build(ctx); err != nil {
			return nil, err
		}
		if r.bins[1] != "" {
			if stores, scenarios, err = r.plan(ctx); err != nil {
				return nil, err
			}
		}
		if (len(stores) == 0 || len(scenarios) == 0) && o.Bench == nil {
			rep.Summary = []byte("### ⚠️ certbench gate: nothing to compare\n\nThe base has none of the stores or scenarios to measure.\n\n" + r.noteList())
			return rep, os.WriteFile(filepath.Join(r.out, "summary.md"), rep.Summary, 0o644)
		}
		if len(scenarios) > 0 {
			if err := r.scenarios(ctx, rep, stores, scenarios); err != nil {
				return nil, err
			}
		}
		if o.Bench != nil {
			if err := r.bench(ctx, rep); err != nil {
				return nil, err
			}
		}
	}
	var summary bytes.Buffer
	for _, p := range []struct {
		res    *Result
		prefix string
	}{{rep.Sim, "sim-"}, {rep.Wall, ""}, {rep.BenchSim, "sim-bench-"}, {rep.Bench, "bench-"}} {
		if p.res == nil {
			continue
		} else if summary.Len() > 0 {
			summary.WriteString("\n")
		}
		if err := writeReports(p.res.Verdict, r.out, p.prefix, &summary); err != nil {
			return nil, err
		}
		r.notes = append(r.notes, p.res.Notes...)
	}
	module := "module " + r.o.Module
	if r.o.Module == "." {
		module = "module at the repository's root"
	}
	clock := ""
	if r.rounds != "" {
		clock = "; clock: " + r.rounds
	}
	fmt.Fprintf(&summary, "\n<sub>certbench ab: base %s; head %s; %s; stores %s%s; %s on %s, %d CPUs.</sub>\n\n%s",
		r.desc[0], r.desc[1], module, cmp.Or(strings.Join(stores, ","), "run's default"), clock, time.Since(start).Round(time.Second), runtime.GOARCH, runtime.NumCPU(), r.noteList())
	rep.Summary = summary.Bytes()
	for _, n := range r.notes {
		logf(o.Log, "ab: note: %s", n)
	}
	if err := os.WriteFile(filepath.Join(r.out, "summary.md"), rep.Summary, 0o644); err != nil {
		return rep, err
	}
	var wrote []string // what is there, as it is
	entries, _ := os.ReadDir(r.out)
	for _, e := range entries {
		wrote = append(wrote, e.Name()+map[bool]string{true: "/"}[e.IsDir()])
	}
	logf(o.Log, "ab: wrote %s in %s", strings.Join(wrote, ", "), r.out)
	return rep, nil
}

// bench gates the module's own benchmarks (RunOptions.Bench) in the base's
// tree (a worktree of its commit) and the head's.
func (r *run) bench(ctx context.Context, rep *Outcome) error {
	base, _, remove, err := Checkout(ctx, r.root, r.commit)
	if err != nil {
		return err
	}
	defer remove()
	rep.BenchSim, rep.Bench, err = r.o.Bench(ctx, filepath.Join(base, r.o.Module), filepath.Join(r.root, r.o.Module), r.policy)
	return err
}

// scenarios runs the passes on certbench's scenarios.
func (r *run) scenarios(ctx context.Context, rep *Outcome, stores, scenarios []string) error {
	o := r.o
	var err error
	if o.Simulate {
		so := Options{Stores: stores, Scenarios: scenarios, Count: o.SimCount, Ops: o.Ops, RunArgs: r.runArgs(),
			Policy: SimPolicy(r.policy), Out: r.out, Log: o.Log}
		so.Sides[0].Bin, so.Sides[1].Bin = r.bins[0], r.bins[1]
		if rep.Sim, err = Simulate(ctx, so); err != nil {
			return err
		}
	}
	rep.Wall, err = r.measure(ctx, stores, scenarios)
	return err
}

func (r *run) noteList() string {
	if len(r.notes) == 0 {
		return ""
	}
	return "- " + strings.Join(r.notes, "\n- ") + "\n"
}

// setup checks the options and finds the repository, the module and the
// output directory, with its build log.
func (r *run) setup(ctx context.Context) error {
	o := &r.o
	switch {
	case o.Count < 1 || o.Ops < 0 || (o.Simulate && o.SimCount < 1):
		return inputf("count %d, ops %d, sim-count %d: want positive counts", o.Count, o.Ops, o.SimCount)
	case o.Record && o.History == "":
		return inputf("--record: give --history, where to record")
	case o.History != "" && o.Bench != nil:
		return inputf("--history and --bench: the history keeps no go test benchmarks")
	}
	if _, err := exec.LookPath("valgrind"); o.Simulate && err != nil {
		return inputf("--simulate needs valgrind: install it (Debian, Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind)")
	}
	root, err := git(ctx, ".", "rev-parse", "--show-toplevel")
	if err != nil {
		return inputf("not in a git repository: %v", err)
	}
	r.root = root
	if o.History != "" {
		if r.hist, err = history.Open(o.History, root); err != nil {
			return &InputError{err}
		}
	}
	if o.Module == "" {
		prefix, _ := git(ctx, ".", "rev-parse", "--show-prefix")
		o.Module = strings.TrimSuffix(prefix, "/")
	}
	if o.Module = filepath.Clean(o.Module); filepath.IsAbs(o.Module) || strings.HasPrefix(o.Module, "..") {
		return inputf("--module %s: want a directory inside the repository, relative to its root", o.Module)
	}
	if r.out, err = filepath.Abs(o.Out); err != nil {
		return err
	}
	logf(o.Log, "ab: output in %s", r.out)
	for _, g := range []string{"sim-*", "summary.md", "gate.*", "bench-gate.*", "flame.*"} {
		old, _ := filepath.Glob(filepath.Join(r.out, g))
		for _, f := range old {
			os.RemoveAll(f)
		}
	}
	if err := os.MkdirAll(filepath.Join(r.out, "bin"), 0o755); err != nil {
		return err
	}
	log, err := os.Create(filepath.Join(r.out, "build.log"))
	if err != nil {
		return err
	}
	r.b = &builder{dir: o.Module, main: o.Main, cmd: o.Build, log: log}
	r.bins = [2]string{filepath.Join(r.out, "bin", "certbench-base"), filepath.Join(r.out, "bin", "certbench-head")}
	for _, bin := range r.bins {
		os.Remove(bin) // a build that fails must not leave an earlier binary
	}
	head, _ := git(ctx, r.root, "rev-parse", "--short", "HEAD")
	r.desc[1] = "working tree at " + head
	if st, _ := git(ctx, r.root, "status", "--porcelain", "--untracked-files=no"); st != "" {
		r.desc[1] += " with uncommitted changes"
	}
	return nil
}

// base finds the base: the merge base of BaseRef and HEAD, and checks the
// go.mod edits of its build.
func (r *run) base(ctx context.Context) error {
	o := &r.o
	if o.BaseRef == "" {
		o.BaseRef = "main"
		if _, err := git(ctx, r.root, "rev-parse", "--verify", "-q", "origin/main"); err == nil {
			o.BaseRef = "origin/main"
		}
	}
	var err error
	if r.commit, err = git(ctx, r.root, "merge-base", o.BaseRef, "HEAD"); err != nil {
		return inputf("no merge base of %s and HEAD (fetch it, or use fetch-depth: 0 in CI): %v", o.BaseRef, err)
	}
	r.desc[0] = r.commit[:min(12, len(r.commit))] + " (merge base of " + o.BaseRef + " and HEAD)"
	r.edits, err = replaceEdits(ctx, r.root, o.Module, r.commit, o.BaseReplace)
	return err
}

// build builds the head from the working tree and the base (or takes
// the base's binary from the cache).
func (r *run) build(ctx context.Context) error {
	o := &r.o
	if fi, err := os.Stat(filepath.Join(r.root, o.Module, o.Main)); o.Bench != nil && (slices.Equal(o.Scenarios, []string{"none"}) || err != nil || !fi.IsDir()) {
		r.bins = [2]string{}
		r.notes = append(r.notes, fmt.Sprintf("the module's own benchmarks only (no certbench binary: --main %s, --scenarios %s)", o.Main, strings.Join(o.Scenarios, ",")))
		return nil
	}
	logf(o.Log, "ab: building head (%s) in %s", r.desc[1], o.Module)
	if err := r.b.build(ctx, r.root, r.bins[1]); err != nil {
		return err
	}
	var err error
	var cached string
	if r.binKey, cached, err = r.b.cachedCommit(ctx, r.root, o.Cache, r.commit, r.edits, r.bins[0], o.Log, "base "+r.desc[0]); err == nil && cached != "" {
		r.notes = append(r.notes, "base binary from the cache ("+cached+")")
	}
	return err
}

// cachedCommit builds the binary at commit (with edits) into bin, taken
// from or kept in cache (none when cache is ""), keyed by what makes the
// binary, and says which to log (if not nil) as what. It returns the key
// ("" without a cache) and the cached file when bin came from the cache.
func (b *builder) cachedCommit(ctx context.Context, root, cache, commit string, edits []string, bin string, log io.Writer, what string) (binKey, cached string, err error) {
	if cache == "" {
		logf(log, "ab: building %s", what)
		return "", "", b.buildCommit(ctx, root, commit, edits, bin)
	}
	binKey = key(commit, b.dir, b.main, b.cmd, strings.Join(edits, " "), runtime.GOOS, runtime.GOARCH)
	kept := filepath.Join(cache, "base-"+binKey)
	if copyFile(kept, bin) == nil && os.Chmod(bin, 0o755) == nil {
		logf(log, "ab: %s: binary from the cache (%s), not built", what, kept)
		return binKey, kept, nil
	}
	logf(log, "ab: building %s", what)
	if err := b.buildCommit(ctx, root, commit, edits, bin); err != nil {
		return "", "", err
	}
	saveCache(bin, kept)
	return binKey, "", nil
}

// cacheFiles is how many files the cache keeps: the newest.
const cacheFiles = 40

// saveCache copies a file into the cache (through a temporary file: a
// concurrent run never reads half) and removes the oldest beyond
// cacheFiles.
func saveCache(from, to string) {
	if os.MkdirAll(filepath.Dir(to), 0o755) != nil || copyFile(from, to+".tmp") != nil || os.Rename(to+".tmp", to) != nil {
		return
	}
	ents, _ := os.ReadDir(filepath.Dir(to))
	infos := make([]os.FileInfo, 0, len(ents))
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			infos = append(infos, fi)
		}
	}
	slices.SortFunc(infos, func(a, b os.FileInfo) int { return b.ModTime().Compare(a.ModTime()) })
	for _, fi := range infos[min(len(infos), cacheFiles):] {
		os.Remove(filepath.Join(filepath.Dir(to), fi.Name()))
	}
}

// key is a cache key: a hash of the parts.
func key(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:12])
}

// plan lists both binaries' stores and scenarios and returns those to
// measure: the ones asked for (default the head's) that the base has.
func (r *run) plan(ctx context.Context) (stores, scenarios []string, err error) {
	type item struct {
		Name    string
		Default bool
	}
	var have [2][2][]string // side; stores, scenarios
	var defaults []string   // the head's default scenarios
	for i, bin := range r.bins {
		var out bytes.Buffer
		var l struct{ Stores, Scenarios []item }
		if code, stderr, err := Command(ctx, bin, &out, "list", "--format", "json"); err != nil || code != 0 {
			return nil, nil, commandError(Sides[i]+" binary: certbench list --format json", code, stderr, err)
		}
		if err := json.Unmarshal(out.Bytes(), &l); err != nil {
			return nil, nil, inputf("%s binary: certbench list --format json: %v", Sides[i], err)
		}
		for k, list := range [2][]item{l.Stores, l.Scenarios} {
			for _, x := range list {
				have[i][k] = append(have[i][k], x.Name)
				if i == 1 && k == 1 && x.Default {
					defaults = append(defaults, x.Name)
				}
			}
		}
	}
	want := [2][]string{r.o.Stores, r.o.Scenarios}
	for k, def := range [2][]string{have[1][0], defaults} {
		if want[k] == nil {
			want[k] = def
		}
	}
	var got [2][]string
	for k, what := range []string{"store", "scenario"} {
		for _, name := range want[k] {
			switch {
			case !slices.Contains(have[1][k], name):
				return nil, nil, inputf("%s %s is not in the head binary (have: %s)", what, name, strings.Join(have[1][k], ","))
			case !slices.Contains(have[0][k], name):
				r.notes = append(r.notes, fmt.Sprintf("%s %s does not exist at the base: not gated", what, name))
			default:
				got[k] = append(got[k], name)
			}
		}
	}
	return got[0], got[1], nil
}

// resolvePolicy resolves the policy, from the base's certbench.yaml: a
// change cannot loosen its own gate.
func (r *run) resolvePolicy(ctx context.Context) error {
	f := r.o.Policy
	source := "" // the policy's name in the reports, when not --config's
	if f.Config == "" && !f.NoConfig {
		name := filepath.ToSlash(filepath.Join(r.o.Module, gate.DefaultConfig))
		base, err := git(ctx, r.root, "show", r.commit+":"+name)
		f.Config = filepath.Join(r.root, name)
		if err == nil {
			f.Config = filepath.Join(r.out, "policy.yaml")
			why := " (the base's: a change cannot loosen its own gate)"
			if r.o.Record {
				why = ""
			}
			logf(r.o.Log, "ab: policy: %s at %.12s%s", name, r.commit, why)
			source = fmt.Sprintf("%s at %.12s%s", name, r.commit, why)
			err = os.WriteFile(f.Config, []byte(base+"\n"), 0o644)
		} else if _, err = os.Stat(f.Config); err != nil {
			f.Config, err = "", nil
		} else {
			source = name + " of the working tree"
		}
		if err != nil {
			return err
		}
		f.NoConfig = f.Config == ""
	}
	p, err := gate.ResolvePolicy(f)
	if err != nil {
		return &InputError{fmt.Errorf("gate policy: %w", err)}
	}
	if source != "" {
		p.Source = strings.Replace(p.Source, f.Config+" (--config)", source, 1)
	}
	r.policy, r.clock = p, p
	if r.o.Simulate {
		r.clock, err = LoosenClock(p, r.o.WallMax)
	}
	return err
}

// runArgs are certbench run's arguments for the policy's sample timeout.
func (r *run) runArgs() []string {
	if r.policy.SampleTimeout <= 0 {
		return nil
	}
	return []string{"--sample-timeout", r.policy.SampleTimeout.String()}
}

// measure runs the clock's pass, the base's results cached or not.
func (r *run) measure(ctx context.Context, stores, scenarios []string) (*Result, error) {
	o := Options{Stores: stores, Scenarios: scenarios, Count: r.o.Count, Ops: r.o.Ops, ByRound: r.o.ByRound,
		RunArgs: r.runArgs(), Policy: r.clock, Out: r.out, Log: r.o.Log}
	o.Sides[0].Bin, o.Sides[1].Bin = r.bins[0], r.bins[1]
	var cached string
	if r.binKey != "" {
		cached = filepath.Join(r.o.Cache, "results-"+key(r.binKey, results.Version(), strings.Join(stores, ","), strings.Join(scenarios, ","),
			strconv.Itoa(r.o.Count), strconv.Itoa(r.o.Ops), strconv.FormatBool(r.o.ByRound))+".txt")
		if _, err := os.Stat(cached); err == nil {
			o.Sides[0].Measured = cached
			// What was not measured beside the head is not paired with it.
			o.Policy = o.Policy.Clone()
			o.Policy.Test = gate.UnpairedTest
		}
	}
	r.rounds = fmt.Sprintf("base and head in %d interleaved rounds (ABBA)", r.o.Count)
	if o.Sides[0].Measured != "" {
		r.rounds = fmt.Sprintf("the head alone in %d rounds, the base's results from the cache", r.o.Count)
	}
	logf(r.o.Log, "ab: stores %s; scenarios %s; %s", strings.Join(stores, ","), strings.Join(scenarios, ","), r.rounds)
	if r.o.Simulate {
		r.rounds += fmt.Sprintf("; simulated CPU: %d samples per side, both sides at once", r.o.SimCount)
	}
	res, err := Measure(ctx, o)
	if err != nil {
		return nil, err
	}
	if o.Sides[0].Measured != "" {
		res.Verdict.Problems = append(res.Verdict.Problems, gate.Problem{Kind: gate.NotPaired, Message: cachedBaseNote(cached)})
	} else if cached != "" && len(res.Dropped) == 0 {
		saveCache(res.Base, cached)
	}
	return res, nil
}

// cachedBaseNote says what a base from the cache (file) serves.
func cachedBaseNote(file string) string {
	return "base results from the cache (" + file + "), measured by an earlier run: only the head ran now, so nothing is paired by round. " +
		"Counts (allocs/op, B/op, ...) compare as measured; the clock's metrics (sec/op, cpu-sec/op, retained-B, ...) by the U test across " +
		"the two runs, where the machine's drift between them can look like a change (--cache '' measures both sides in interleaved rounds)"
}

// DefaultWallMax is the clock's sec/op and cpu-sec/op threshold when the
// simulated CPU gates the CPU: the clock then catches only gross changes.
const DefaultWallMax = "+25%"

// LoosenClock returns policy with max ("policy": none; "":
// DefaultWallMax) as its sec/op and cpu-sec/op threshold, for the clock's
// pass beside the simulated CPU's.
func LoosenClock(policy gate.Policy, max string) (gate.Policy, error) {
	policy, max = policy.Clone(), cmp.Or(max, DefaultWallMax)
	if max == "policy" {
		return policy, nil
	}
	th, err := gate.ParseThreshold(max)
	for _, u := range []string{"sec/op", "cpu-sec/op"} {
		if err == nil {
			err = policy.SetMax(u, th)
		}
	}
	if err != nil {
		return policy, inputf("--wall-max %s: %v", max, err)
	}
	return policy, nil
}

// SimPolicy is policy for the simulated CPU's pass: the retained heap is
// left to the clock's (at a few samples a side its U test cannot decide).
func SimPolicy(policy gate.Policy) gate.Policy {
	policy = policy.Clone()
	policy.SetMax(results.UnitRetained, gate.MustThreshold("off"))
	return policy
}

// writeReports writes v as PREFIXgate.txt and .json in out, and its
// Markdown to summary.
func writeReports(v *gate.Verdict, out, prefix string, summary io.Writer) error {
	var text, js bytes.Buffer
	page := v.Page()
	if err := errors.Join(table.WriteText(&text, page), table.Write(&js, "json", page, v.JSON()), table.WriteMarkdown(summary, page)); err != nil {
		return err
	}
	return errors.Join(os.WriteFile(filepath.Join(out, prefix+"gate.txt"), text.Bytes(), 0o644),
		os.WriteFile(filepath.Join(out, prefix+"gate.json"), js.Bytes(), 0o644))
}

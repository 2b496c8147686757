// Package peercheck checks a pull request of a proxy certbench has a peer
// adapter for (Traefik, certmagic). It builds one certbench binary with a
// store per side (package peerbuild), runs conformance on both, the
// behaviour diff between them, certbench's scenarios in the A/B protocol
// (package ab: instructions/op on the simulated CPU where valgrind is
// installed, and the clock) and the proxy's own benchmarks (package
// gobench), and writes one Markdown comment: verdict, behaviour changes,
// costs. Each step writes its files into Options.Out.
package peercheck

import (
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
	"sync"
	"time"

	"github.com/certbench/certbench/internal/ci/ab"
	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/ci/gobench"
	"github.com/certbench/certbench/internal/peer/peerbuild"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
)

// DefaultScenarios are the scenarios gated when Options.Scenarios is empty:
// a refresh, a renewal in a large pool, lookups, and what generations held
// by long-lived connections keep (on the clock's pass only: see
// scenarios.Scenario.CheckSimulate).
var DefaultScenarios = []string{"rotate-10-of-100", "renew-1-of-1000", "lookup-1000", "held-20-renew-1-of-100"}

// DefaultSimOps are the ops per sample on the simulated CPU of the
// default scenarios, when Options.Ops is not set and they differ from the
// clock's: a proxy that rebuilds its whole configuration on every refresh
// (Traefik before PR #10302's kind of change generates an RSA-2048 default
// certificate per refresh, about a billion instructions) takes minutes a
// sample under callgrind at the scenarios' own counts. Each of these ops
// is a whole refresh, as each of the clock's is, and both sides run the
// same first ops. Lookups run 1,000 (a twentieth of the clock's 20,000,
// within 0.1% per op of them: the store's caches are warm, every hello
// looked up once before the timed lookups).
var DefaultSimOps = map[string]int{"rotate-10-of-100": 2, "renew-1-of-1000": 2, "lookup-1000": 1000}

// DefaultBenchPackages are the proxy's benchmarked packages, by proxy,
// when Options.BenchPackages is empty: the certificate code.
var DefaultBenchPackages = map[string][]string{
	"traefik":   {"./pkg/tls/..."},
	"certmagic": {"."},
}

// Options configure Run.
type Options struct {
	// Build says what to build: the certbench checkout and the sides
	// "base" and "head".
	Build peerbuild.Options
	// Out is the output directory.
	Out string
	// Scenarios are certbench's scenarios to gate (default
	// DefaultScenarios); Count the clock's rounds (samples per side); Ops,
	// when positive, each scenario's op count.
	Scenarios  []string
	Count, Ops int
	// Instrument is the CPU half's: InstrumentSimulate (instructions/op,
	// SimCount samples a side, beside the clock's pass for allocations and
	// the retained heap), InstrumentWall (the clock), or "": simulate
	// where valgrind is installed.
	Instrument string
	SimCount   int
	// Policy is the gate policy (every gate).
	Policy gate.PolicyFlags
	// BenchPackages are the proxy's benchmarked packages (default
	// DefaultBenchPackages); Bench selects benchmarks (-test.bench);
	// Benchtime is their fixed iteration count.
	BenchPackages    []string
	Bench, Benchtime string
	// NoConformance, NoDiff, NoGate (certbench's scenarios) and NoGoBench
	// (the proxy's benchmarks) skip those steps.
	NoConformance, NoDiff, NoGate, NoGoBench bool
	// Seed, when not zero, is the conformance passes' seed.
	Seed uint64
	// Labels name base and head in the comment (default a tree's
	// directory name, or KIND@VERSION); a comment has no local path.
	Labels [2]string
	// Log gets a line per step (and the commands' error output).
	Log io.Writer
}

// The instruments of Options.Instrument.
const (
	InstrumentWall     = results.InstrumentWall
	InstrumentSimulate = results.InstrumentSimulate
)

// DefaultSimCount is the simulated CPU's samples per side.
const DefaultSimCount = 5

// skippedBy begins Outcome.Skipped's reason of a step the options skipped.
const skippedBy = "skipped (--skip "

// An Outcome is what Run found.
type Outcome struct {
	Kind        peerbuild.Kind
	Base, Head  string // the stores
	Sides       [2]peerbuild.Side
	Labels      [2]string
	Notes       []string
	Conformance *Conformance
	Diff        *Diff
	// Gate is the clock's on certbench's scenarios; SimGate the simulated
	// CPU's (nil on the clock alone). GoBenchSim is the proxy's benchmarks'
	// on the simulated CPU, GoBench on the clock (those it could not count,
	// or all without it).
	Gate, SimGate       *gate.Verdict
	GoBench, GoBenchSim *gate.Verdict
	// Noisy are the benchmarks whose instructions/op vary between samples
	// beyond their threshold, with their ranges: SimGate gates them at
	// the clock's sec/op threshold.
	Noisy      []string
	GoBenchRun *gobench.Result
	// HeadOnly are the samples of the proxy's benchmarks only the head
	// has (shown, not gated).
	HeadOnly *results.Set
	// Instrument is the CPU half's (Options.Instrument, resolved);
	// NoValgrind is set when valgrind is not installed.
	Instrument string
	NoValgrind bool
	// Skipped says why a step did not run or gave nothing, by step
	// (conformance, diff, gate, gobench): "skipped (--skip STEP)" when the
	// options skipped it.
	Skipped map[string]string
	// Elapsed is Run's wall time; Phases its steps', in order.
	Elapsed time.Duration
	Phases  []Phase
	// Count is the clock's rounds; SimCount the simulated CPU's samples;
	// SimOps its ops per sample of scenarios that have their own there.
	Count, SimCount int
	SimOps          map[string]int

	build *peerbuild.Result
}

// A Phase is one step of Run and its wall time.
type Phase struct {
	Name    string
	Elapsed time.Duration
}

// Passed reports whether nothing failed: no rule newly failing, no
// behaviour change, no regression (a cost not decided is none; see
// Undecided).
func (r *Outcome) Passed() bool {
	return (r.Conformance == nil || len(r.Conformance.Regressed) == 0) && (r.Diff == nil || !r.Diff.Differs) && !r.costRegressed()
}

// costRegressed reports whether a gate failed for a reason other than
// too few samples: a regression, a metric missing at the head, a store
// that failed.
func (r *Outcome) costRegressed() bool {
	return slices.ContainsFunc([]*gate.Verdict{r.Gate, r.SimGate, r.GoBench, r.GoBenchSim}, regressed)
}

// regressed reports whether v fails for a reason other than too few samples.
func regressed(v *gate.Verdict) bool {
	return v != nil && (slices.ContainsFunc(v.Findings, func(f *gate.Finding) bool { return f.Fatal && f.Status != gate.TooFewSamples }) ||
		slices.ContainsFunc(v.Problems, func(p gate.Problem) bool { return p.Fatal }))
}

// needRE finds the samples a too-few-samples finding's note asks for.
var needRE = regexp.MustCompile(`need (\d+)`)

// Undecided says which gates had too few samples to decide some metric
// ("too few samples on the clock (n=2, need ≥ 4)"), "" if none. Such a
// check neither passes nor finds a regression: the command exits 2.
func (r *Outcome) Undecided() string {
	var parts []string
	for i, v := range []*gate.Verdict{r.Gate, r.SimGate, r.GoBench, r.GoBenchSim} {
		if v == nil {
			continue
		}
		n, need := -1, v.Policy.MinSamples
		for _, f := range v.Select(gate.TooFewSamples) {
			if n < 0 || min(f.BaseN, f.HeadN) < n {
				n = min(f.BaseN, f.HeadN)
			}
			if m := needRE.FindStringSubmatch(f.Note); m != nil {
				k, _ := strconv.Atoi(m[1])
				need = max(need, k)
			}
		}
		if n >= 0 {
			where := [...]string{"the clock", "the simulated CPU", "the proxy's benchmarks", "the proxy's benchmarks on the simulated CPU"}[i]
			parts = append(parts, fmt.Sprintf("%s (n=%d, need ≥ %d)", where, n, need))
		}
	}
	if parts == nil {
		return ""
	}
	return "too few samples on " + strings.Join(parts, " and on ")
}

// Run builds the binary and runs every step; see the package
// documentation. Bad input (a side that is not a tree of a known proxy,
// identical sides, a tree or adapter that does not build, a bad option)
// is an error wrapping *peerbuild.InputError, *peerbuild.AdapterError or
// *ab.InputError.
func Run(ctx context.Context, opts Options) (*Outcome, error) {
	start := time.Now()
	if opts.Count < 1 {
		return nil, &peerbuild.InputError{Err: fmt.Errorf("count %d: want at least 1", opts.Count)}
	}
	if len(opts.Build.Sides) != 2 || opts.Build.Sides[0].Name != "base" || opts.Build.Sides[1].Name != "head" {
		return nil, errors.New("peercheck: want two sides, base and head")
	}
	if len(opts.Scenarios) == 0 {
		opts.Scenarios = DefaultScenarios
	}
	if opts.SimCount < 1 {
		opts.SimCount = DefaultSimCount
	}
	_, noValgrind := exec.LookPath("valgrind")
	switch {
	case opts.Instrument == "" && noValgrind == nil:
		opts.Instrument = InstrumentSimulate
	case opts.Instrument == "":
		opts.Instrument = InstrumentWall
	case opts.Instrument == InstrumentSimulate && noValgrind != nil:
		return nil, &ab.InputError{Err: errors.New("instrument simulate needs valgrind: install it (Debian, Ubuntu: apt-get install valgrind; Fedora: dnf install valgrind)")}
	case opts.Instrument != InstrumentWall && opts.Instrument != InstrumentSimulate:
		return nil, &ab.InputError{Err: fmt.Errorf("instrument %q: want simulate or wall", opts.Instrument)}
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(out)
	created := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	bin := filepath.Join(out, "bin", "certbench-peer")
	built, err := build(ctx, opts.Build, bin, out, log)
	if err != nil {
		cleanFailedBuild(out, created)
		return nil, err
	}
	var phases []Phase
	phase := func(name string, d time.Duration) {
		phases = append(phases, Phase{Name: name, Elapsed: d})
		fmt.Fprintf(log, "peer: %s took %v\n", name, d.Round(time.Second))
	}
	phase("build", time.Since(start))
	rep := &Outcome{Kind: built.Kind, Base: built.Stores[0], Head: built.Stores[1], Notes: built.Notes,
		Skipped: map[string]string{}, Count: opts.Count, SimCount: opts.SimCount, Instrument: opts.Instrument, NoValgrind: noValgrind != nil, build: built}
	copy(rep.Sides[:], opts.Build.Sides)
	for i := range rep.Sides {
		rep.Labels[i] = opts.Labels[i]
		if rep.Labels[i] == "" {
			rep.Labels[i] = built.Labels[i]
		}
	}
	p := &peer{bin: bin, out: out, log: log}
	if err := p.steps(ctx, rep, opts, phase); err != nil {
		return nil, err
	}
	rep.Elapsed = time.Since(start)
	rep.Phases = phases
	return rep, nil
}

// steps runs the checks opts asks for into rep, phase timing each. The
// simulated CPU's pass, whose instruction counts do not depend on what
// else runs, runs beside conformance and the behaviour diff; the clock's
// pass and the proxy's benchmarks run after them, alone.
func (p *peer) steps(ctx context.Context, rep *Outcome, opts Options, phase func(string, time.Duration)) error {
	policy, err := gate.ResolvePolicy(opts.Policy)
	if err != nil {
		return &peerbuild.InputError{Err: fmt.Errorf("gate policy: %w", err)}
	}
	// With the simulated CPU, nothing of the scenarios is timed: the
	// simulated pass counts the CPU, the counts pass (natively, untimed)
	// the allocations, the retained heap and the held generations, both
	// beside conformance and the diff.
	sim := make(chan error, 2)
	var simTook, countsTook time.Duration
	passes := sync.OnceValue(func() error { return errors.Join(<-sim, <-sim) })
	simulate := !opts.NoGate && opts.Instrument == InstrumentSimulate
	if simulate {
		fmt.Fprintf(p.log, "peer: simulated CPU and counts (%s against %s), beside the next steps\n", rep.Base, rep.Head)
		go func(t time.Time) {
			err := p.simulate(ctx, rep, opts, policy)
			simTook = time.Since(t)
			sim <- err
		}(time.Now())
		go func(t time.Time) {
			err := p.clock(ctx, rep, opts, policy, true)
			countsTook = time.Since(t)
			sim <- err
		}(time.Now())
	} else {
		sim <- nil
		sim <- nil
	}
	for _, s := range []struct {
		name, step string // the phase; the --skip value
		skip       bool
		run        func() error
	}{
		{"conformance", "conformance", opts.NoConformance, func() (err error) {
			if rep.Conformance, err = p.conformance(ctx, rep.Base, rep.Head, opts.Seed); err != nil {
				rep.Skipped["conformance"] = err.Error()
			}
			return nil
		}},
		{"behaviour diff", "diff", opts.NoDiff, func() (err error) {
			if rep.Diff, err = p.diff(ctx, rep.Base, rep.Head, opts.Seed); err != nil {
				rep.Skipped["diff"] = err.Error()
			}
			return nil
		}},
		{"scenarios on the clock", "gate", opts.NoGate || rep.Instrument == InstrumentSimulate, func() error { return p.clock(ctx, rep, opts, policy, false) }},
		{"proxy's benchmarks", "gobench", opts.NoGoBench, func() error { return p.goBench(ctx, rep, opts, policy) }},
	} {
		if s.step == "gate" || s.step == "gobench" {
			if err := passes(); err != nil {
				return err
			}
			if simulate {
				simulate = false
				phase("simulated CPU (beside conformance and the diff)", simTook)
				phase("counts, untimed (beside conformance and the diff)", countsTook)
			}
		}
		if s.skip {
			if s.step != "gate" || opts.NoGate { // (with the simulated CPU, the counts pass stands for it)
				rep.Skipped[s.step] = skippedBy + s.step + ")"
			}
			continue
		}
		fmt.Fprintf(p.log, "peer: %s (%s against %s)\n", s.name, rep.Base, rep.Head)
		t := time.Now()
		if err := s.run(); err != nil {
			return err
		}
		phase(s.name, time.Since(t))
	}
	return nil
}

// build builds the binary with a store per side to bin, its log in
// out/build.log.
func build(ctx context.Context, opts peerbuild.Options, bin, out string, log io.Writer) (*peerbuild.Result, error) {
	buildLog, err := os.Create(filepath.Join(out, "build.log"))
	if err != nil {
		return nil, err
	}
	defer buildLog.Close()
	opts.Output, opts.Log = bin, buildLog
	fmt.Fprintf(log, "peer: building %s and %s into one binary\n", opts.Sides[0], opts.Sides[1])
	return peerbuild.Build(ctx, opts)
}

// goBench gates the proxy's own benchmarks at both trees into rep, or
// says in rep.Skipped why not, and reads those only at the head.
func (p *peer) goBench(ctx context.Context, rep *Outcome, opts Options, policy gate.Policy) error {
	built := rep.build
	pkgs := opts.BenchPackages
	if len(pkgs) == 0 {
		pkgs = DefaultBenchPackages[built.Kind.Name]
	}
	gopts := gobench.Options{Base: built.Trees[0], Head: built.Trees[1], Packages: pkgs, Bench: opts.Bench,
		Benchtime: opts.Benchtime, Rounds: opts.Count, Simulate: opts.Instrument == InstrumentSimulate, SimCount: opts.SimCount,
		Out: filepath.Join(p.out, "gobench"), Log: p.log}
	res, err := gobench.Run(ctx, gopts)
	var ie *ab.InputError
	switch {
	case errors.As(err, &ie):
		rep.Skipped["gobench"] = err.Error()
		return nil
	case err != nil:
		return fmt.Errorf("the proxy's benchmarks: %w", err)
	}
	rep.GoBenchRun = res
	for _, f := range []string{res.SimHeadOnly, res.HeadOnly} {
		if f == "" {
			continue
		}
		set, err := results.Load(f)
		if err != nil {
			return fmt.Errorf("the proxy's benchmarks only at the head: %w", err)
		}
		if rep.HeadOnly == nil {
			rep.HeadOnly = set
		} else {
			rep.HeadOnly.Series = append(rep.HeadOnly.Series, set.Series...)
		}
	}
	if res.Base == "" && res.SimBase == "" {
		rep.Skipped["gobench"] = "the base has none of the head's benchmarks in " + strings.Join(pkgs, " ")
		if len(res.Packages) == 0 {
			rep.Skipped["gobench"] = "the head has no benchmarks in " + strings.Join(pkgs, " ")
		}
		return nil
	}
	if rep.GoBenchSim, rep.GoBench, err = gobench.Gate(ctx, gopts, res, policy); err != nil {
		return fmt.Errorf("gating the proxy's benchmarks: %w", err)
	}
	for _, v := range []*gate.Verdict{rep.GoBenchSim, rep.GoBench} {
		if v != nil {
			v.Base, v.Head = "gobench/"+v.Base, "gobench/"+v.Head // in OUT: no local path in the comment
		}
	}
	return nil
}

// cleanFailedBuild removes an empty build log (bad input found before
// building) and the output directory if Run made it and it is empty.
func cleanFailedBuild(out string, created bool) {
	logFile := filepath.Join(out, "build.log")
	if fi, err := os.Stat(logFile); err == nil && fi.Size() == 0 {
		os.Remove(logFile)
	}
	os.Remove(filepath.Join(out, "bin")) // only if empty
	if created {
		os.Remove(out) // only if empty
	}
}

// peer runs the built binary.
type peer struct {
	bin, out string
	log      io.Writer
}

// scenarioOptions are the A/B protocol's options for certbench's
// scenarios on both stores, each renamed to the proxy's name.
func (p *peer) scenarioOptions(rep *Outcome, opts Options, policy gate.Policy) ab.Options {
	side := func(store string) ab.Side {
		return ab.Side{Bin: p.bin, Stores: []string{store}, As: rep.Kind.Name, Normalize: rep.build.Normalize}
	}
	return ab.Options{Sides: [2]ab.Side{side(rep.Base), side(rep.Head)}, Scenarios: opts.Scenarios, Count: opts.Count, Ops: opts.Ops,
		ByRound: true, Policy: policy, Out: filepath.Join(p.out, "scenarios"), Log: p.log}
}

// simulate runs ab.Simulate's pass of SimCount samples and gates
// instructions/op into rep.SimGate (rep.Noisy: the series gated as noisy).
func (p *peer) simulate(ctx context.Context, rep *Outcome, opts Options, policy gate.Policy) error {
	so := p.scenarioOptions(rep, opts, policy)
	so.Count, so.Policy = opts.SimCount, ab.SimPolicy(policy)
	if so.Scenarios = simulated(opts.Scenarios); len(so.Scenarios) == 0 {
		return nil
	}
	if opts.Ops == 0 {
		so.SimOps, rep.SimOps = DefaultSimOps, DefaultSimOps
	}
	res, err := ab.Simulate(ctx, so)
	if err != nil {
		return err
	}
	v := res.Verdict
	if noisy, loose := noisyPolicy(v, so.Policy, policy); noisy != nil {
		rep.Noisy = noisy
		if v, err = ab.GateFiles(res.Base, res.Head, loose); err != nil {
			return err
		}
		// The sites ab.Simulate named for what still regressed.
		for _, f := range v.Findings {
			for _, old := range res.Verdict.Findings {
				if old.Benchmark == f.Benchmark && old.Unit == f.Unit && f.Status == gate.Regressed {
					f.Sites, f.Flame = old.Sites, old.Flame
				}
			}
		}
	}
	v.Base, v.Head = "scenarios/sim-base.txt", "scenarios/sim-head.txt" // in OUT: no local path in the comment
	inScenarios(v)
	rep.SimGate = v
	return nil
}

// clock runs the scenarios' rounds natively and gates head against base
// into rep.Gate; untimed (beside the simulated CPU, which counts the CPU),
// its time is not gated: the allocations, the retained heap and the held
// generations, which the load does not change.
func (p *peer) clock(ctx context.Context, rep *Outcome, opts Options, policy gate.Policy, untimed bool) error {
	o := p.scenarioOptions(rep, opts, policy)
	if untimed {
		var err error
		if o.Policy, err = ab.LoosenClock(policy, "off"); err != nil {
			return err
		}
	}
	res, err := ab.Measure(ctx, o)
	if err != nil {
		return err
	}
	rep.Notes = append(rep.Notes, res.Notes...)
	rep.Gate = res.Verdict
	rep.Gate.Base, rep.Gate.Head = "scenarios/base.txt", "scenarios/head.txt"
	inScenarios(rep.Gate)
	return nil
}

// inScenarios names v's flame graphs as the comment's reader finds them,
// in OUT/scenarios.
func inScenarios(v *gate.Verdict) {
	for _, f := range v.Findings {
		if f.Flame != "" {
			f.Flame = "scenarios/" + f.Flame
		}
	}
}

// noisyPolicy finds the scenarios whose simulated CPU's counts vary
// between samples by more than their threshold allows (near-exact would
// decide them on noise: docs/gate.md) and returns them, each with its
// spread, and sim with those scenarios' simulated units gated at the
// clock's sec/op threshold of policy, as the clock's time would be.
func noisyPolicy(v *gate.Verdict, sim, policy gate.Policy) ([]string, gate.Policy) {
	var noisy []string
	loose := sim.Clone()
	for _, f := range v.Findings {
		spread := max(f.BaseMax-f.BaseMin, f.HeadMax-f.HeadMin)
		if f.Unit != results.UnitInstructions || f.Method != gate.NearExact || spread <= f.Threshold.Allowed(f.Base) {
			continue
		}
		th, _ := policy.Threshold(f.Scenario, f.Store, results.UnitSec)
		noisy = append(noisy, fmt.Sprintf("%s (%s %s to %s at the base, %s to %s at the head)", f.Label(), f.Unit,
			results.Format(f.BaseMin, f.Unit), results.Format(f.BaseMax, f.Unit), results.Format(f.HeadMin, f.Unit), results.Format(f.HeadMax, f.Unit)))
		loose.Overrides = append(loose.Overrides, gate.Override{Scenario: f.Scenario, Store: f.Store,
			Max: gate.Thresholds{results.UnitInstructions: th, results.UnitEstCycles: th}})
	}
	return noisy, loose
}

// conformanceDoc is what peer check reads of conformance --format json.
type conformanceDoc struct {
	Rules []struct {
		Rule    string `json:"rule"`
		Results map[string]*struct {
			Result string   `json:"result"`
			Output []string `json:"output"`
		} `json:"results"`
	} `json:"rules"`
}

// Conformance is the suite's outcome on both stores.
type Conformance struct {
	// Rules is the number of rules run.
	Rules int
	// HeadFails are the rules the head fails; Regressed those the base
	// passes in every run; Fixed those the base fails and the head passes.
	HeadFails, Regressed, Fixed []string
	// BaseVaries are rules the head fails that the base passed first but
	// failed in a confirmation run (answers that vary between processes):
	// not counted against the head.
	BaseVaries []string
	// BaseRuns is the suite's runs on the base.
	BaseRuns int
	// Messages are the head's failure messages of the regressed rules.
	Messages map[string][]string
}

// baseConfirmations is the suite's further runs on the base when the head
// breaks a rule the base kept.
const baseConfirmations = 3

// conformance runs the suite on both stores, and again on the base when
// the head breaks a rule, to tell a regression from a base that keeps the
// rule by chance.
func (p *peer) conformance(ctx context.Context, base, head string, seed uint64) (*Conformance, error) {
	doc, err := p.suite(ctx, base+","+head, "conformance.json", seed)
	if err != nil {
		return nil, err
	}
	c := &Conformance{Rules: len(doc.Rules), BaseRuns: 1, Messages: map[string][]string{}}
	for _, r := range doc.Rules {
		bres, hres := r.Results[base], r.Results[head]
		if bres == nil || hres == nil {
			continue
		}
		bf, hf := bres.Result == "FAIL", hres.Result == "FAIL"
		if hf {
			c.HeadFails = append(c.HeadFails, r.Rule)
		}
		switch {
		case hf && !bf && bres.Result == "pass":
			c.Regressed = append(c.Regressed, r.Rule)
			c.Messages[r.Rule] = hres.Output
		case bf && hres.Result == "pass":
			c.Fixed = append(c.Fixed, r.Rule)
		}
	}
	for i := 1; i <= baseConfirmations && len(c.Regressed) > 0; i++ {
		doc, err := p.suite(ctx, base, fmt.Sprintf("conformance-base-%d.json", i), seed)
		if err != nil {
			return nil, err
		}
		c.BaseRuns++
		for _, r := range doc.Rules {
			if res := r.Results[base]; res != nil && res.Result == "FAIL" && slices.Contains(c.Regressed, r.Rule) {
				c.Regressed = slices.DeleteFunc(c.Regressed, func(s string) bool { return s == r.Rule })
				c.BaseVaries = append(c.BaseVaries, r.Rule)
				delete(c.Messages, r.Rule)
			}
		}
	}
	return c, nil
}

// suite runs certbench conformance on stores, its JSON report in file
// (under the output directory).
func (p *peer) suite(ctx context.Context, stores, file string, seed uint64) (*conformanceDoc, error) {
	b, _, err := p.conformanceCmd(ctx, file, seed, "--stores", stores, "--format", "json")
	if err != nil {
		return nil, err
	}
	var doc conformanceDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return &doc, nil
}

// Diff is the behaviour diff's outcome.
type Diff struct {
	Differs bool   // the stores behave differently
	Output  string // the command's report, in Markdown
}

// diff runs certbench conformance --stores BASE --against HEAD, its
// report in Markdown (diff.md).
func (p *peer) diff(ctx context.Context, base, head string, seed uint64) (*Diff, error) {
	out, code, err := p.conformanceCmd(ctx, "diff.md", seed, "--stores", base, "--against", head, "--format", "markdown")
	if err != nil {
		return nil, err
	}
	return &Diff{Differs: code == 1, Output: string(out)}, nil
}

// conformanceCmd runs certbench conformance with args, its report in file
// under the output directory, and returns the report and the exit code
// (0, or 1: a failure or a difference).
func (p *peer) conformanceCmd(ctx context.Context, file string, seed uint64, args ...string) ([]byte, int, error) {
	file = filepath.Join(p.out, file)
	args = append([]string{"conformance", "-o", file}, args...)
	if seed != 0 {
		args = append(args, "--seed", strconv.FormatUint(seed, 10))
	}
	code, stderr, err := ab.Command(ctx, p.bin, io.Discard, args...)
	if err == nil && code > 1 {
		err = fmt.Errorf("certbench %s: exit %d: %s", strings.Join(args[:1], " "), code, strings.TrimSpace(stderr))
	}
	if err != nil {
		return nil, code, err
	}
	b, err := os.ReadFile(file)
	return b, code, err
}

// simulated returns the named scenarios the simulated CPU measures; the
// others (held and handshake scenarios) run on the clock's pass only. A
// name that is not in the catalogue stays, for the run to refuse it.
func simulated(names []string) []string {
	var out []string
	for _, name := range names {
		if sc, err := scenarios.ByName(name); err != nil || sc[0].CheckSimulate() == nil {
			out = append(out, name)
		}
	}
	return out
}

// Package peercheck checks a pull request of a proxy that certbench has a
// peer adapter for (Traefik, certmagic). From the base and head trees it
// builds one certbench binary with a store per side (package peerbuild),
// runs the conformance suite on both (rules whose outcome changed), the
// behaviour diff between them, certbench's scenarios gated base against
// head in interleaved rounds (with the allocation sites that grew), and
// the proxy's own benchmarks gated at both trees (package gobench), and
// writes one Markdown comment: the verdict, then the behaviour changes,
// then the costs. Each step writes its files into Options.Out.
package peercheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/certbench/certbench/internal/ab"
	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/internal/gobench"
	"github.com/certbench/certbench/internal/peerbuild"
)

// DefaultScenarios are the scenarios gated when Options.Scenarios is empty:
// a refresh, a renewal in a large pool and lookups.
var DefaultScenarios = []string{"rotate-10-of-100", "renew-1-of-1000", "lookup-1000"}

// DefaultBenchPackages are the packages whose own benchmarks are gated,
// by proxy, when Options.BenchPackages is empty: the certificate code.
var DefaultBenchPackages = map[string][]string{
	"traefik":   {"./pkg/tls/..."},
	"certmagic": {"."},
}

// Options configure Run.
type Options struct {
	// Build says what to build: the certbench checkout and the two sides,
	// named "base" and "head".
	Build peerbuild.Options
	// Out is the output directory.
	Out string
	// Scenarios are certbench's scenarios to gate (default
	// DefaultScenarios); Count the interleaved rounds (samples per side);
	// Ops overrides each scenario's op count when positive.
	Scenarios []string
	Count     int
	Ops       int
	// Instrument, when set, is passed to certbench run as --instrument
	// (e.g. "simulate" for instruction counts, once that instrument
	// exists).
	Instrument string
	// Policy is the gate policy (both gates).
	Policy gate.PolicyFlags
	// BenchPackages are the proxy's packages whose go test benchmarks are
	// gated (default DefaultBenchPackages of the proxy); Bench selects
	// benchmarks (-test.bench); Benchtime is their fixed iteration count;
	// NoGoBench skips them.
	BenchPackages []string
	Bench         string
	Benchtime     string
	NoGoBench     bool
	// NoConformance and NoDiff skip those steps; NoGate skips the gate on
	// certbench's scenarios.
	NoConformance, NoDiff, NoGate bool
	// Seed, when not zero, is the differential pass's and the behaviour
	// diff's seed.
	Seed uint64
	// Labels name the base and head in the comment (e.g. a branch and a
	// commit); by default a tree's directory name, or KIND@VERSION. A
	// comment carries no local path.
	Labels [2]string
	// Log gets a line per step (and the commands' error output).
	Log io.Writer
}

// Report is the outcome of Run.
type Report struct {
	Kind        peerbuild.Kind
	Base, Head  string // the stores
	Sides       [2]peerbuild.Side
	Labels      [2]string
	Notes       []string
	Conformance *Conformance
	Diff        *Diff
	Gate        *gate.Verdict
	GoBench     *gate.Verdict
	GoBenchRun  *gobench.Result
	// Skipped says why a step did not run or gave nothing, by step.
	Skipped map[string]string
	// Elapsed is the wall time of Run; Phases its steps' wall times, in
	// the order they ran.
	Elapsed time.Duration
	Phases  []Phase
	// Count is the rounds of the gates.
	Count int

	build *peerbuild.Result
}

// A Phase is one step of Run and its wall time.
type Phase struct {
	Name    string
	Elapsed time.Duration
}

// Passed reports whether nothing failed: no rule newly failing, no
// behaviour change, no regression.
func (r *Report) Passed() bool {
	if r.Conformance != nil && len(r.Conformance.Regressed) > 0 {
		return false
	}
	if r.Diff != nil && r.Diff.Differs {
		return false
	}
	if r.Gate != nil && !r.Gate.Passed() {
		return false
	}
	if r.GoBench != nil && !r.GoBench.Passed() {
		return false
	}
	return true
}

// Run builds the binary and runs every step; see the package
// documentation. Bad input (a side that is not a tree of a known proxy,
// identical sides, a tree or adapter that does not build, a bad option)
// is an error wrapping *peerbuild.InputError, *peerbuild.AdapterError or
// *ab.InputError.
func Run(ctx context.Context, opts Options) (*Report, error) {
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
	phases := []Phase{{Name: "build", Elapsed: time.Since(start)}}
	phase := func(name string, from time.Time) {
		d := time.Since(from)
		phases = append(phases, Phase{Name: name, Elapsed: d})
		fmt.Fprintf(log, "peer: %s took %v\n", name, d.Round(time.Second))
	}
	fmt.Fprintf(log, "peer: build took %v\n", phases[0].Elapsed.Round(time.Second))
	rep := &Report{Kind: built.Kind, Base: built.Stores[0], Head: built.Stores[1], Notes: built.Notes,
		Skipped: map[string]string{}, Count: opts.Count, build: built}
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

// steps runs the checks opts asks for into rep, phase timing each.
func (p *peer) steps(ctx context.Context, rep *Report, opts Options, phase func(string, time.Time)) error {
	if !opts.NoConformance {
		fmt.Fprintf(p.log, "peer: conformance on %s and %s\n", rep.Base, rep.Head)
		t := time.Now()
		c, err := p.conformance(ctx, rep.Base, rep.Head, opts.Seed)
		if err != nil {
			rep.Skipped["conformance"] = err.Error()
		}
		rep.Conformance = c
		phase("conformance", t)
	}
	if !opts.NoDiff {
		fmt.Fprintf(p.log, "peer: behaviour diff %s against %s\n", rep.Base, rep.Head)
		t := time.Now()
		d, err := p.diff(ctx, rep.Base, rep.Head, opts.Seed)
		if err != nil {
			rep.Skipped["diff"] = err.Error()
		}
		rep.Diff = d
		phase("behaviour diff", t)
	}
	policy, err := gate.ResolvePolicy(opts.Policy)
	if err != nil {
		return &peerbuild.InputError{Err: fmt.Errorf("gate policy: %w", err)}
	}
	if !opts.NoGate {
		t := time.Now()
		v, err := p.gate(ctx, rep, opts, policy)
		if err != nil {
			return err
		}
		rep.Gate = v
		phase("scenarios", t)
	}
	if !opts.NoGoBench {
		t := time.Now()
		if err := p.goBench(ctx, rep, opts, policy); err != nil {
			return err
		}
		phase("proxy's benchmarks", t)
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

// goBench gates the proxy's own benchmarks at both trees into rep
// (GoBenchRun, GoBench), or says in rep.Skipped why not.
func (p *peer) goBench(ctx context.Context, rep *Report, opts Options, policy gate.Policy) error {
	built := rep.build
	pkgs := opts.BenchPackages
	if len(pkgs) == 0 {
		pkgs = DefaultBenchPackages[built.Kind.Name]
	}
	gopts := gobench.Options{Base: built.Trees[0], Head: built.Trees[1], Packages: pkgs, Bench: opts.Bench,
		Benchtime: opts.Benchtime, Rounds: opts.Count, Out: filepath.Join(p.out, "gobench"), Log: p.log}
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
	if res.Base == "" {
		rep.Skipped["gobench"] = "no benchmarks at both base and head in " + strings.Join(pkgs, " ")
		return nil
	}
	v, err := ab.GateFiles(res.Base, res.Head, policy)
	if err != nil {
		return fmt.Errorf("gating the proxy's benchmarks: %w", err)
	}
	v.Base, v.Head = "gobench/base.txt", "gobench/head.txt" // in OUT: no local path in the comment
	v.AddSites(&gobench.Sites{Ctx: ctx, Options: gopts, Result: res}, 5)
	rep.GoBench = v
	return nil
}

// cleanFailedBuild removes what Run wrote before a failed build: the
// build log when the go command wrote nothing into it (bad input found
// before building), and the output directory when Run made it and it is
// empty then. A tree that does not compile keeps its build log.
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

// gate runs certbench's scenarios on both stores in the A/B protocol's
// rounds (one process per side and round), each store renamed to the
// proxy's name, and gates head against base, naming the allocation
// sites that grew.
func (p *peer) gate(ctx context.Context, rep *Report, opts Options, policy gate.Policy) (*gate.Verdict, error) {
	side := func(store string) ab.Side {
		return ab.Side{Bin: p.bin, Stores: []string{store}, As: rep.Kind.Name, Normalize: rep.build.Normalize}
	}
	var runArgs []string
	if opts.Instrument != "" {
		runArgs = []string{"--instrument", opts.Instrument}
	}
	res, err := ab.Measure(ctx, ab.Options{Sides: [2]ab.Side{side(rep.Base), side(rep.Head)}, Scenarios: opts.Scenarios,
		Count: opts.Count, Ops: opts.Ops, ByRound: true, RunArgs: runArgs, Policy: policy, Out: filepath.Join(p.out, "scenarios"), Log: p.log})
	if err != nil {
		return nil, err
	}
	rep.Notes = append(rep.Notes, res.Notes...)
	res.Verdict.Base, res.Verdict.Head = "scenarios/base.txt", "scenarios/head.txt" // in OUT: no local path in the comment
	return res.Verdict, nil
}

// conformanceDoc is certbench conformance --format json.
type conformanceDoc struct {
	Stores []string `json:"stores"`
	Rules  []struct {
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
	// HeadFails are the rules the head store fails; Regressed those of
	// them the base passes in every run; Fixed the rules the base fails
	// and the head passes.
	HeadFails, Regressed, Fixed []string
	// BaseVaries are rules the head fails that the base passed in the
	// first run but failed in a confirmation run: a base whose answers
	// vary between processes (random tie-breaks) keeps them by chance,
	// so they are not counted against the head.
	BaseVaries []string
	// BaseRuns is the number of runs of the suite on the base (1, or 1
	// plus the confirmation runs when the head broke a rule).
	BaseRuns int
	// Messages are the head's failure messages of the regressed rules.
	Messages map[string][]string
}

// baseConfirmations is how many more times the suite runs on the base
// when the head breaks a rule the base kept in the first run.
const baseConfirmations = 3

// conformance runs the suite on both stores, and again on the base when
// the head breaks a rule the base kept, to tell a regression from a base
// that keeps the rule by chance.
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
	file = filepath.Join(p.out, file)
	args := []string{"conformance", "--stores", stores, "--format", "json", "-o", file}
	if seed != 0 {
		args = append(args, "--seed", strconv.FormatUint(seed, 10))
	}
	code, stderr, err := ab.Command(ctx, p.bin, io.Discard, args...)
	if err != nil {
		return nil, err
	}
	if code != 0 && code != 1 {
		return nil, fmt.Errorf("certbench conformance: exit %d: %s", code, strings.TrimSpace(stderr))
	}
	b, err := os.ReadFile(file)
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
	// Differs reports that the stores behave differently (exit 1).
	Differs bool
	// Output is the command's report, in Markdown.
	Output string
}

// diff runs certbench conformance --stores BASE --against HEAD, its
// report in Markdown (diff.md): a line per change, each case collapsed.
func (p *peer) diff(ctx context.Context, base, head string, seed uint64) (*Diff, error) {
	file := filepath.Join(p.out, "diff.md")
	args := []string{"conformance", "--stores", base, "--against", head, "--format", "markdown", "-o", file}
	if seed != 0 {
		args = append(args, "--seed", strconv.FormatUint(seed, 10))
	}
	code, stderr, err := ab.Command(ctx, p.bin, io.Discard, args...)
	if err != nil {
		return nil, err
	}
	var out []byte
	if code == 0 || code == 1 {
		if out, err = os.ReadFile(file); err != nil {
			return nil, err
		}
	}
	switch code {
	case 0:
		return &Diff{Output: string(out)}, nil
	case 1:
		return &Diff{Differs: true, Output: string(out)}, nil
	}
	return nil, fmt.Errorf("certbench conformance --against: exit %d: %s", code, strings.TrimSpace(stderr))
}

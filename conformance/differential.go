package conformance

import (
	"cmp"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
)

// Test flags for a longer differential pass from any store's test.
var (
	flagDiffSeed       = flag.Uint64("conformance.diff.seed", 0, "seed of the conformance differential pass (0: the fixed default seed)")
	flagDiffIterations = flag.Int("conformance.diff.iterations", 0, "iterations of the conformance differential pass (0: the default, or unbounded with -conformance.diff.duration)")
	flagDiffDuration   = flag.Duration("conformance.diff.duration", 0, "run the conformance differential pass for this long instead of a fixed number of iterations")
)

// Defaults of the differential pass; DefaultDiffTimeCap stops the default
// pass early for a store whose updates are slow (the summary says so).
const (
	DefaultDiffSeed       = 0x5eed_ce27
	DefaultDiffIterations = 60
	DefaultDiffTimeCap    = 10 * time.Second
)

// DifferentialOptions configure a differential pass.
type DifferentialOptions struct {
	// Seed makes the cases (0: DefaultDiffSeed); iteration i of a seed is
	// the same whatever the other options.
	Seed uint64
	// Iterations and Duration bound the pass (neither: DefaultDiffIterations,
	// stopping at DefaultDiffTimeCap).
	Iterations int
	Duration   time.Duration
	Known      []Deviation                      // counted under their names, not failed
	Logf       func(format string, args ...any) // progress lines, when set
}

// Deviation is a documented departure of a store from the lookup rules.
type Deviation struct {
	Name string
	// Explains reports whether the deviation accounts for d (as found,
	// then shrunk); it must not modify d.
	Explains func(d *Divergence) bool
}

// Divergence is a lookup whose answer differs from certstore.Match's (or an
// Update that rejected a valid configuration, or a panic).
type Divergence struct {
	Case Case   `json:"case"` // reproduces it with CheckCase
	Via  string `json:"via"`  // "Store.Certificate", "Current().Certificate" or "Update"
	Want Answer `json:"want"` // what certstore.Match says
	Got  Answer `json:"got"`
	// Seed and Iteration are where the pass found it.
	Seed      uint64 `json:"seed"`
	Iteration int    `json:"iteration"`
	// Shrunk reports whether Case was shrunk from Original certificates;
	// Known names the deviation that explains it; Note says more of the shrink.
	Shrunk   bool   `json:"shrunk"`
	Original int    `json:"original"`
	Known    string `json:"known,omitempty"`
	Note     string `json:"note,omitempty"`
}

// Error describes the divergence in one paragraph.
func (d *Divergence) Error() string {
	c := &d.Case
	if d.Via == viaUpdate {
		return fmt.Sprintf("Update of configuration %d rejected a valid configuration: %s", d.Got.Config, errText(d.Got.Err))
	}
	return fmt.Sprintf("%s(%q, %q) on the generation of configuration %d of %d: got %s; certstore.Match wants %s",
		d.Via, c.Store, c.SNI, c.Held, len(c.Configs), d.Got.describe(c), d.Want.describe(c))
}

// DiffReport is the outcome of a differential pass.
type DiffReport struct {
	// Iterations, Configs and Lookups count what ran; Planned is the
	// iteration bound (0: none).
	Seed       uint64        `json:"seed"`
	Iterations int           `json:"iterations"`
	Configs    int           `json:"configs"`
	Lookups    int           `json:"lookups"`
	Planned    int           `json:"planned"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Known counts the divergences each known deviation explained;
	// Examples holds the first (shrunk) one of each.
	Known    map[string]int         `json:"known"`
	Examples map[string]*Divergence `json:"examples"`
	// Failure is the first unexplained divergence, shrunk, or nil.
	Failure *Divergence `json:"failure"`
}

// Summary is one line saying what ran and what was found.
func (r *DiffReport) Summary() string {
	its := fmt.Sprint(r.Iterations)
	if r.Planned > 0 && r.Iterations < r.Planned && r.Failure == nil {
		its += fmt.Sprintf(" (of %d: time limit)", r.Planned)
	}
	s := fmt.Sprintf("differential seed %#x: %s iterations, %d configurations, %d lookups in %v", r.Seed, its, r.Configs, r.Lookups, r.Elapsed.Round(time.Millisecond))
	for _, name := range slices.Sorted(maps.Keys(r.Known)) {
		s += fmt.Sprintf("; known deviation %q: %d", name, r.Known[name])
	}
	if r.Failure != nil {
		s += "; FAILED at iteration " + fmt.Sprint(r.Failure.Iteration)
	} else {
		s += "; no divergence"
	}
	return s
}

// withFlags fills the zero fields of o from the test flags.
func (o DifferentialOptions) withFlags() DifferentialOptions {
	o.Seed = cmp.Or(o.Seed, *flagDiffSeed)
	o.Iterations = cmp.Or(o.Iterations, *flagDiffIterations)
	o.Duration = cmp.Or(o.Duration, *flagDiffDuration)
	return o
}

func (o DifferentialOptions) withDefaults() DifferentialOptions {
	o.Seed = cmp.Or(o.Seed, DefaultDiffSeed)
	if o.Iterations == 0 && o.Duration == 0 {
		o.Iterations, o.Duration = DefaultDiffIterations, DefaultDiffTimeCap
	}
	return o
}

// testDifferential is the Differential rule of the suite.
func (su *suite) testDifferential(t rt) {
	opts := su.opts.Differential
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	r := Differential(su.factory, opts)
	su.diff = r
	t.Logf("%s", r.Summary())
	for _, name := range slices.Sorted(maps.Keys(r.Known)) {
		if ex := r.Examples[name]; ex != nil {
			t.Logf("known deviation %q (%d divergences), for example: %s", name, r.Known[name], ex.Error())
		}
	}
	if r.Failure != nil {
		t.Errorf("%s", r.Failure.Report())
	}
}

// Differential compares stores made by newStore with certstore.Match on
// random cases, stopping at the first unexplained divergence, shrunk.
func Differential(newStore certstore.Factory, opts DifferentialOptions) *DiffReport {
	opts = opts.withDefaults()
	r := &DiffReport{Seed: opts.Seed, Planned: opts.Iterations, Known: map[string]int{}, Examples: map[string]*Divergence{}}
	lc := diffLeaves()
	progress := func() string { return fmt.Sprintf("differential: %d iterations, %d lookups", r.Iterations, r.Lookups) }
	r.Elapsed = search(opts.Seed, opts.Iterations, opts.Duration, opts.Logf, progress, func(it int, rng *rand.Rand, _ func() bool) bool {
		sc := newScript(rng, generateSequence(rng))
		r.Iterations++
		bs, err := buildAll(lc, sc.seq)
		if err != nil {
			r.Failure = &Divergence{Seed: opts.Seed, Iteration: it, Via: viaUpdate, Got: Answer{Kind: AnswerError, Err: err}, Note: "the pass could not build the configuration"}
			return false
		}
		ds, nconf, nlook := sc.diverge(newStore, bs)
		r.Configs += nconf
		r.Lookups += nlook
		for _, d := range ds {
			d.Seed, d.Iteration = opts.Seed, it
			if name := explain(opts.Known, d); name != "" {
				r.count(name, d, newStore, lc, opts.Known)
				continue
			}
			sd := shrinkDivergence(newStore, lc, d, opts.Known)
			if name := explain(opts.Known, sd); name != "" {
				r.count(name, sd, nil, nil, nil)
				continue
			}
			r.Failure = sd
			return false
		}
		return true
	})
	return r
}

// search runs iterations 0, 1, ... of seed, each with its own random
// source, until a bound (0: none) or body returns false, logging
// progress() every 30 s, and returns the time it took.
func search(seed uint64, iterations int, duration time.Duration, logf func(string, ...any), progress func() string,
	body func(it int, rng *rand.Rand, over func() bool) bool) time.Duration {
	start, lastLog := time.Now(), time.Now()
	over := func() bool { return duration > 0 && time.Since(start) >= duration }
	for it := 0; (iterations == 0 || it < iterations) && !over(); it++ {
		if !body(it, rand.New(rand.NewPCG(seed, uint64(it))), over) {
			break
		}
		if logf != nil && time.Since(lastLog) > 30*time.Second {
			lastLog = time.Now()
			logf("%s, %v", progress(), time.Since(start).Round(time.Second))
		}
	}
	return time.Since(start)
}

// count records an explained divergence; the first of each is shrunk
// (when newStore is set) as the example.
func (r *DiffReport) count(name string, d *Divergence, newStore certstore.Factory, lc *leafCache, known []Deviation) {
	r.Known[name]++
	if r.Examples[name] != nil {
		return
	}
	d.Known = name
	if newStore != nil {
		var only []Deviation
		for _, k := range known {
			if k.Name == name {
				only = append(only, Deviation{Name: k.Name, Explains: func(x *Divergence) bool { return !k.Explains(x) }})
			}
		}
		if sd := shrinkDivergence(newStore, lc, d, only); sd.Shrunk {
			sd.Known = name
			d = sd
		}
	}
	r.Examples[name] = d
}

// explain returns the name of the first known deviation that explains d.
func explain(known []Deviation, d *Divergence) string {
	for _, k := range known {
		if k.Explains != nil && k.Explains(d) {
			return k.Name
		}
	}
	return ""
}

// CheckCase fails t when a new store's answer to c differs from
// certstore.Match's; the Go test printed for a divergence calls it.
func CheckCase(t testing.TB, newStore certstore.Factory, c Case) {
	t.Helper()
	d, err := c.Check(newStore)
	if err != nil {
		t.Fatalf("conformance: CheckCase: %v", err)
	}
	if d != nil {
		t.Error(d.Error())
	}
}

// Check replays c on a new store and returns the divergence from
// certstore.Match, or nil; the error reports a case that cannot be run.
func (c Case) Check(newStore certstore.Factory) (*Divergence, error) {
	return c.check(newStore, diffLeaves())
}

func (c Case) check(newStore certstore.Factory, lc *leafCache) (*Divergence, error) {
	bs, err := c.build(lc, true)
	if err != nil {
		return nil, err
	}
	want := bs[c.Held].want(&c.Configs[c.Held], c.Held, c.Store, c.SNI)
	var d *Divergence
	caseScript(&c).play(newStore, bs, func(e event) bool {
		if e.step == nil {
			if e.err != nil {
				d = &Divergence{Case: c, Via: viaUpdate, Got: Answer{Kind: AnswerError, Config: e.k, Err: e.err}}
			}
			return d == nil
		}
		if got := classify(bs, c.Held, c.Store, e.cert, e.err); !agrees(bs, want, got, e.cert) {
			d = &Divergence{Case: c, Via: e.step.via, Want: want, Got: got}
		}
		return d == nil
	})
	return d, nil
}

// diverge plays the script on a new store and returns its divergences
// (unshrunk, one per configuration, generation and via) and what it ran.
func (sc *script) diverge(newStore certstore.Factory, bs []*built) (ds []*Divergence, configs, lookups int) {
	seen := map[lookupStep]bool{}
	sc.play(newStore, bs, func(e event) bool {
		if e.step == nil {
			configs++
			if e.err != nil {
				ds = append(ds, &Divergence{Case: Case{Configs: sc.seq[:e.k+1], Held: e.k}, Via: viaUpdate, Got: Answer{Kind: AnswerError, Config: e.k, Err: e.err}})
				return false
			}
			return true
		}
		lookups++
		st := e.step
		group := lookupStep{held: st.held, via: st.via, store: fmt.Sprint(e.k)}
		if seen[group] {
			return true
		}
		c := Case{Configs: sc.seq[:e.k+1], Held: st.held, Store: st.store, SNI: st.sni}
		want := bs[st.held].want(&sc.seq[st.held], st.held, st.store, st.sni)
		if got := classify(bs[:e.k+1], st.held, st.store, e.cert, e.err); !agrees(bs, want, got, e.cert) {
			seen[group] = true
			ds = append(ds, &Divergence{Case: c, Via: st.via, Want: want, Got: got})
		}
		return true
	})
	return ds, configs, lookups
}

package conformance

import (
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
)

// Test flags for a longer differential pass from any store's test, e.g.
//
//	go test -run TestConformance/Differential ./stores/mystore -conformance.diff.duration=10m
var (
	flagDiffSeed       = flag.Uint64("conformance.diff.seed", 0, "seed of the conformance differential pass (0: the fixed default seed)")
	flagDiffIterations = flag.Int("conformance.diff.iterations", 0, "iterations of the conformance differential pass (0: the default, or unbounded with -conformance.diff.duration)")
	flagDiffDuration   = flag.Duration("conformance.diff.duration", 0, "run the conformance differential pass for this long instead of a fixed number of iterations")
)

// DefaultDiffSeed is the seed of the differential pass when none is given.
const DefaultDiffSeed = 0x5eed_ce27

// DefaultDiffIterations is the number of iterations of the differential
// pass that Run does by default: a few seconds under the race detector.
const DefaultDiffIterations = 60

// DefaultDiffTimeCap stops the default pass (no Iterations and no Duration
// given) early for a store whose updates are slow: the naive store, which
// generates an RSA-2048 key per store on every update, runs about 6 to 10
// iterations in it under the race detector. The iterations it runs are
// always the first ones of the seed, and the summary says how many.
const DefaultDiffTimeCap = 10 * time.Second

// DifferentialOptions configure a differential pass.
type DifferentialOptions struct {
	// Seed makes the configurations and lookups; 0 means DefaultDiffSeed.
	// Iteration i of a seed is the same whatever the other options.
	Seed uint64
	// Iterations bounds the number of iterations (each a sequence of one
	// to four configurations and a few hundred lookups).
	Iterations int
	// Duration, when set, also stops the pass once it has run this long
	// (checked between iterations). With neither Iterations nor Duration
	// the pass runs DefaultDiffIterations, stopping early at
	// DefaultDiffTimeCap; with only Duration it runs until then.
	Duration time.Duration
	// Known are documented deviations of the store: a divergence one of
	// them explains is counted and reported under its name, not as a
	// failure.
	Known []Deviation
	// Logf, when set, receives progress lines.
	Logf func(format string, args ...any)
}

// Deviation is a documented departure of a store from the lookup rules.
type Deviation struct {
	// Name says what the deviation is, for reports.
	Name string
	// Explains reports whether the deviation accounts for d. It is called
	// with the divergence as found and, when that does not match, with the
	// shrunk one; it must not modify d.
	Explains func(d *Divergence) bool
}

// Options configure RunWith.
type Options struct {
	// Differential configures the differential pass; fields left zero take
	// their values from the -conformance.diff.* test flags, then the
	// defaults.
	Differential DifferentialOptions
}

// Divergence is a lookup whose answer differs from certstore.Match's (or an
// Update that rejected a valid configuration, or a panic).
type Divergence struct {
	// Case reproduces the divergence with CheckCase.
	Case Case
	// Via is how the lookup was made: "Store.Certificate",
	// "Current().Certificate" or "Update".
	Via string
	// Want is what certstore.Match says; Got is what the store did.
	Want, Got Answer
	// Seed and Iteration are where the pass found it.
	Seed      uint64
	Iteration int
	// Shrunk reports whether Case was shrunk; Original is the number of
	// certificates (over all configurations) before shrinking.
	Shrunk   bool
	Original int
	// Known is the name of the known deviation that explains it, if any.
	Known string
	// Note says something about the shrinking, if anything is to be said.
	Note string
}

// Error describes the divergence in one paragraph.
func (d *Divergence) Error() string {
	c := &d.Case
	if d.Via == "Update" {
		return fmt.Sprintf("Update of configuration %d rejected a valid configuration: %s", d.Got.Config, errText(d.Got.Err))
	}
	return fmt.Sprintf("%s(%q, %q) on the generation of configuration %d of %d: got %s; certstore.Match wants %s",
		d.Via, c.Store, c.SNI, c.Held, len(c.Configs), d.Got.describe(c), d.Want.describe(c))
}

// DiffReport is the outcome of a differential pass.
type DiffReport struct {
	// Seed is the seed the pass ran with.
	Seed uint64
	// Iterations, Configs and Lookups count what was run.
	Iterations, Configs, Lookups int
	// Planned is the iteration bound (0: none); fewer Iterations than
	// Planned without a Failure means the time limit stopped the pass.
	Planned int
	// Elapsed is how long the pass took.
	Elapsed time.Duration
	// Known counts the divergences each known deviation explained, by
	// name; Examples holds the first (shrunk) one of each.
	Known    map[string]int
	Examples map[string]*Divergence
	// Failure is the first divergence no known deviation explains, shrunk;
	// nil when the store agreed with certstore.Match everywhere else.
	Failure *Divergence
}

// Summary is one line saying what ran and what was found.
func (r *DiffReport) Summary() string {
	its := fmt.Sprint(r.Iterations)
	if r.Planned > 0 && r.Iterations < r.Planned && r.Failure == nil {
		its += fmt.Sprintf(" (of %d: time limit)", r.Planned)
	}
	s := fmt.Sprintf("differential seed %#x: %s iterations, %d configurations, %d lookups in %v", r.Seed, its, r.Configs, r.Lookups, r.Elapsed.Round(time.Millisecond))
	for _, name := range sortedKeys(r.Known) {
		s += fmt.Sprintf("; known deviation %q: %d", name, r.Known[name])
	}
	if r.Failure != nil {
		s += "; FAILED at iteration " + fmt.Sprint(r.Failure.Iteration)
	} else {
		s += "; no divergence"
	}
	return s
}

// WriteText writes the summary, each known deviation's example and the
// failure with its ready-to-paste test case.
func (r *DiffReport) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.Summary() + "\n")
	for _, name := range sortedKeys(r.Known) {
		if ex := r.Examples[name]; ex != nil {
			fmt.Fprintf(&b, "\nknown deviation %q, for example: %s\n", name, ex.Error())
		}
	}
	if r.Failure != nil {
		b.WriteString("\n" + r.Failure.Report())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// withFlags fills the zero fields of o from the test flags.
func (o DifferentialOptions) withFlags() DifferentialOptions {
	if o.Seed == 0 {
		o.Seed = *flagDiffSeed
	}
	if o.Iterations == 0 {
		o.Iterations = *flagDiffIterations
	}
	if o.Duration == 0 {
		o.Duration = *flagDiffDuration
	}
	return o
}

// withDefaults fills the zero fields of o with the defaults.
func (o DifferentialOptions) withDefaults() DifferentialOptions {
	if o.Seed == 0 {
		o.Seed = DefaultDiffSeed
	}
	if o.Iterations == 0 && o.Duration == 0 {
		o.Iterations, o.Duration = DefaultDiffIterations, DefaultDiffTimeCap
	}
	return o
}

// testDifferential is the Differential rule of the suite.
func (su *suite) testDifferential(t *testing.T) {
	opts := su.opts.Differential.withFlags()
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	r := Differential(su.factory, opts)
	t.Log(r.Summary())
	for _, name := range sortedKeys(r.Known) {
		if ex := r.Examples[name]; ex != nil {
			t.Logf("known deviation %q (%d divergences), for example: %s", name, r.Known[name], ex.Error())
		}
	}
	if r.Failure != nil {
		t.Error(r.Failure.Report())
	}
}

// Differential compares stores made by newStore with certstore.Match on
// random configurations and lookups (see the package documentation) and
// returns what it found. It stops at the first divergence that no known
// deviation explains, after shrinking it.
func Differential(newStore certstore.Factory, opts DifferentialOptions) *DiffReport {
	opts = opts.withDefaults()
	r := &DiffReport{Seed: opts.Seed, Planned: opts.Iterations, Known: map[string]int{}, Examples: map[string]*Divergence{}}
	start := time.Now()
	lc := diffLeaves()
	lastLog := start
	for it := 0; opts.Iterations == 0 || it < opts.Iterations; it++ {
		if opts.Duration > 0 && time.Since(start) >= opts.Duration {
			break
		}
		rng := rand.New(rand.NewPCG(opts.Seed, uint64(it)))
		seq := generateSequence(rng)
		ds, nconf, nlook, err := runSequence(newStore, lc, seq, rng)
		r.Iterations++
		r.Configs += nconf
		r.Lookups += nlook
		if err != nil {
			r.Failure = &Divergence{Seed: opts.Seed, Iteration: it, Via: "Update", Got: Answer{Kind: AnswerError, Err: err}, Note: "the pass could not build the configuration"}
			break
		}
		for _, d := range ds {
			d.Seed, d.Iteration = opts.Seed, it
			if name := explain(opts.Known, d); name != "" {
				r.count(name, d, newStore, lc, opts.Known)
				continue
			}
			sd := shrink(newStore, lc, d, opts.Known)
			if name := explain(opts.Known, sd); name != "" {
				r.count(name, sd, nil, nil, nil)
				continue
			}
			r.Failure = sd
			break
		}
		if r.Failure != nil {
			break
		}
		if opts.Logf != nil && time.Since(lastLog) > 30*time.Second {
			lastLog = time.Now()
			opts.Logf("differential: %d iterations, %d lookups, %v", r.Iterations, r.Lookups, time.Since(start).Round(time.Second))
		}
	}
	r.Elapsed = time.Since(start)
	return r
}

// count records a divergence that a known deviation explains; the first of
// each is shrunk (when newStore is set) to serve as the example.
func (r *DiffReport) count(name string, d *Divergence, newStore certstore.Factory, lc *leafCache, known []Deviation) {
	r.Known[name]++
	if r.Examples[name] != nil {
		return
	}
	d.Known = name
	if newStore != nil {
		// Shrink while the same deviation explains it.
		var only []Deviation
		for _, k := range known {
			if k.Name == name {
				only = append(only, Deviation{Name: k.Name, Explains: func(x *Divergence) bool { return !k.Explains(x) }})
			}
		}
		if sd := shrink(newStore, lc, d, only); sd.Shrunk {
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

// CheckCase replays c against a new store made by newStore and fails t when
// the store's answer differs from certstore.Match's. It is what the Go test
// case printed for a divergence calls.
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

// Check replays c against a new store made by newStore. It returns the
// divergence, or nil when the store agrees with certstore.Match; the error
// reports a case that cannot be run (an invalid configuration, a Held out
// of range).
func (c Case) Check(newStore certstore.Factory) (*Divergence, error) {
	return c.check(newStore, diffLeaves())
}

func (c Case) check(newStore certstore.Factory, lc *leafCache) (*Divergence, error) {
	if len(c.Configs) == 0 || c.Held < 0 || c.Held >= len(c.Configs) {
		return nil, fmt.Errorf("case has %d configurations and Held %d", len(c.Configs), c.Held)
	}
	bs := make([]*built, len(c.Configs))
	for k := range c.Configs {
		if !c.Configs[k].valid() {
			return nil, fmt.Errorf("configuration %d is not valid (a certificate without names, or an undeclared store)", k)
		}
		b, err := c.Configs[k].build(lc)
		if err != nil {
			return nil, fmt.Errorf("configuration %d: %w", k, err)
		}
		bs[k] = b
	}
	s, closeStore, d := openStore(newStore)
	if d != nil {
		d.Case = c
		return d, nil
	}
	defer closeStore()
	var held certstore.Generation
	for k, b := range bs {
		if d := applyConfig(s, b.cfg, k); d != nil {
			d.Case = c
			return d, nil
		}
		if k == c.Held {
			if pe := protect("Current", func() { held = s.Current() }); pe != nil {
				return &Divergence{Case: c, Via: "Current", Got: Answer{Kind: AnswerError, Err: pe}}, nil
			}
		}
	}
	want := bs[c.Held].want(&c.Configs[c.Held], c.Held, c.Store, c.SNI)
	var ls []via
	if c.Held == len(c.Configs)-1 {
		ls = append(ls, via{"Store.Certificate", s})
	}
	ls = append(ls, via{"Current().Certificate", held})
	for _, v := range ls {
		if d := probe(&c, bs, v, want); d != nil {
			return d, nil
		}
	}
	return nil, nil
}

// openStore makes a store; close closes it if it is a Closer.
func openStore(newStore certstore.Factory) (s certstore.Store, closeStore func(), d *Divergence) {
	if pe := protect("the factory", func() { s = newStore() }); pe != nil || s == nil {
		var err error = pe
		if pe == nil {
			err = fmt.Errorf("the factory returned a nil store")
		}
		return nil, nil, &Divergence{Via: "Update", Got: Answer{Kind: AnswerError, Err: err}}
	}
	return s, func() {
		if c, ok := s.(certstore.Closer); ok {
			_ = protect("Close", func() { _ = c.Close() })
		}
	}, nil
}

// applyConfig updates s with cfg, configuration k of a sequence.
func applyConfig(s certstore.Store, cfg *certstore.Config, k int) *Divergence {
	var err error
	if pe := protect("Update", func() { err = s.Update(cfg) }); pe != nil {
		err = pe
	}
	if err != nil {
		return &Divergence{Via: "Update", Got: Answer{Kind: AnswerError, Config: k, Err: err}}
	}
	return nil
}

// probe looks c's lookup up via v and returns a divergence from want.
func probe(c *Case, bs []*built, v via, want Answer) *Divergence {
	var (
		got *tls.Certificate
		err error
	)
	if v.l == nil {
		err = fmt.Errorf("Current returned a nil Generation")
	} else if pe := protect(fmt.Sprintf("Certificate(%q, %q)", c.Store, c.SNI), func() {
		got, err = v.l.Certificate(c.Store, &tls.ClientHelloInfo{ServerName: c.SNI})
	}); pe != nil {
		err = pe
	}
	ga := classify(c, bs, c.Held, c.Store, got, err)
	if agrees(bs, want, ga, got) {
		return nil
	}
	return &Divergence{Case: *c, Via: v.name, Want: want, Got: ga}
}

// probesPerHeld is how many lookups are repeated on each held generation
// after later updates.
const probesPerHeld = 12

// runSequence applies seq to a new store, looking up every generated probe
// in each new generation and a sample of them again in every held one. It
// returns the divergences (unshrunk, at most one per configuration and
// way of looking up) and what it ran.
func runSequence(newStore certstore.Factory, lc *leafCache, seq []CaseConfig, rng *rand.Rand) (ds []*Divergence, configs, lookups int, err error) {
	bs := make([]*built, len(seq))
	for k := range seq {
		if bs[k], err = seq[k].build(lc); err != nil {
			return nil, 0, 0, err
		}
	}
	s, closeStore, d := openStore(newStore)
	if d != nil {
		d.Case = Case{Configs: seq[:1]}
		return []*Divergence{d}, 0, 0, nil
	}
	defer closeStore()
	held := make([]certstore.Generation, len(seq))
	probes := make([][]probeSpec, len(seq))
	for k := range seq {
		configs++
		if d := applyConfig(s, bs[k].cfg, k); d != nil {
			d.Case = Case{Configs: seq[:k+1], Held: k}
			return append(ds, d), configs, lookups, nil
		}
		if pe := protect("Current", func() { held[k] = s.Current() }); pe != nil {
			d := &Divergence{Case: Case{Configs: seq[:k+1], Held: k}, Via: "Current", Got: Answer{Kind: AnswerError, Err: pe}}
			return append(ds, d), configs, lookups, nil
		}
		probes[k] = generateProbes(rng, &seq[k])
		// Probe the new generation, then the held ones again.
		for j := k; j >= 0; j-- {
			ps := probes[j]
			if j < k && len(ps) > probesPerHeld {
				ps = sample(rng, ps, probesPerHeld)
			}
			ls := []via{{"Current().Certificate", held[j]}}
			if j == k {
				ls = append([]via{{"Store.Certificate", s}}, ls...)
			}
			for _, v := range ls {
				for _, p := range ps {
					c := Case{Configs: seq[:k+1], Held: j, Store: p.store, SNI: p.sni}
					lookups++
					if d := probe(&c, bs[:k+1], v, bs[j].want(&seq[j], j, p.store, p.sni)); d != nil {
						ds = append(ds, d)
						break
					}
				}
			}
		}
	}
	return ds, configs, lookups, nil
}

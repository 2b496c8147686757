package conformance

// Compare: the behaviour diff between two stores (two versions of one
// store, typically), on the differential pass's generated cases.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certstore"
)

// Defaults of Compare: the runs of each generated case on each store, and
// the bounds of the default search.
const (
	DefaultCompareRuns       = 2
	DefaultCompareIterations = 200
	DefaultCompareTimeCap    = 3 * time.Minute
)

// Replays that confirm a difference (see replay): verifyRuns on each
// side, then extendRuns when a side varies, tieRuns when a tie is broken
// differently, and fixedRuns for a side that gave only some of the
// answers the other varies among. While shrinking, a side known to vary is
// replayed until the sides differ, up to varyRuns times: map order is
// biased, and a step rejected by chance leaves a name or a certificate in
// the shrunk case.
const (
	verifyRuns = 8
	extendRuns = 32
	tieRuns    = 64
	fixedRuns  = 128
	varyRuns   = 64
	maxRefuted = 3 // candidates of a kind that did not reproduce before the search stops replaying that kind
)

// CompareOptions configure [Compare].
type CompareOptions struct {
	// Base and Head name the two stores in reports ("base", "head").
	Base, Head string
	// Seed makes the cases (0: DefaultDiffSeed). Iterations and Duration
	// bound the search as in [DifferentialOptions] (by default
	// DefaultCompareIterations, stopping at DefaultCompareTimeCap); a
	// shrink that started in time finishes past Duration.
	Seed       uint64
	Iterations int
	Duration   time.Duration
	// Runs is how many times each case is played on each store
	// (0: DefaultCompareRuns), so that a store whose answer varies between
	// runs (map order) is seen to vary rather than to differ.
	Runs int
	// Logf, when set, receives progress lines; Found is told of each new
	// change as it is found.
	Logf  func(format string, args ...any)
	Found func(*Change)
}

// Comparison is what [Compare] found.
type Comparison struct {
	Base string `json:"base"`
	Head string `json:"head"`
	Seed uint64 `json:"seed"`
	// Iterations, Configs and Lookups count what ran on the base store
	// over all runs (the head store ran the same); Planned is the
	// iteration bound (0: none), Runs the runs per case.
	Iterations int           `json:"iterations"`
	Configs    int           `json:"configs"`
	Lookups    int           `json:"lookups"`
	Planned    int           `json:"planned"`
	Runs       int           `json:"runs"`
	Elapsed    time.Duration `json:"elapsed_ns"`
	// Stopped says which bound ended the search, StopTime or
	// StopIterations; TimeLimit is the time bound (0: none).
	Stopped   string        `json:"stopped,omitempty"`
	TimeLimit time.Duration `json:"time_limit_ns,omitempty"`
	// Causes group the differences found, one change of each kind, by
	// cause (see the package doc), in the order they were found.
	Causes []*Cause `json:"causes"`
	// Unconfirmed counts differing answers that replayed alone showed no
	// difference, or whose kind had failed to reproduce before.
	Unconfirmed int `json:"unconfirmed"`
}

// The bounds that end a search, as Comparison.Stopped says them.
const (
	StopTime       = "time limit"
	StopIterations = "iteration limit"
)

// Differs reports whether the two stores behaved differently.
func (r *Comparison) Differs() bool { return len(r.Causes) > 0 }

// Changes lists every change, cause by cause.
func (r *Comparison) Changes() []*Change {
	var chs []*Change
	for _, c := range r.Causes {
		chs = append(chs, c.Changes...)
	}
	return chs
}

// Cause is one cause of differences and the changes of each kind it
// showed as.
type Cause struct {
	Cause   string    `json:"cause"`
	Changes []*Change `json:"changes"`
}

// Count is how many differing answers of the cause the search saw.
func (c *Cause) Count() int {
	n := 0
	for _, ch := range c.Changes {
		n += ch.Count
	}
	return n
}

// The causes of differences (see the package doc); causeLater names the
// side.
const (
	causeUpdate = "an Update is accepted or rejected differently"
	causeLater  = "held generations of the %s serve a later configuration"
	causeOther  = "a generation serves another configuration than the one it holds"
	causeTie    = "a tie between certificates is broken differently"
	causeMatch  = "a lookup is answered with another kind of match, default or error"
)

// causeOf is the cause of a new change (see the package doc): a lookup on
// a held generation is replayed on each side with the last configuration
// newest, then with the held one newest; a side whose held generation
// answered as the first does and not as the second, where the other's
// did not, serves a later configuration. Else the change's kind says.
func (cmp *comparer) causeOf(ch *Change) string {
	c := ch.Case
	if last := len(c.Configs) - 1; ch.Via == viaCurrent && c.Held < last {
		if bs, err := c.build(cmp.lc, false); err == nil {
			newest := func(f certstore.Factory, k int) []Answer {
				t := Case{Configs: c.Configs[:k+1], Held: k, Store: c.Store, SNI: c.SNI}
				sc := caseScript(&t)
				o := newObservations(len(positions(sc))) // the last: Current's lookup
				for range max(ch.Runs, verifyRuns) {
					sc.observe(f, bs[:k+1], o)
				}
				return o[len(o)-1]
			}
			live := func(f certstore.Factory, held []Answer) bool {
				return sameServed(bs, held, newest(f, last)) && !sameServed(bs, held, newest(f, c.Held))
			}
			switch b, h := live(cmp.base, ch.Base), live(cmp.head, ch.Head); {
			case h && !b:
				return fmt.Sprintf(causeLater, "head")
			case b && !h:
				return fmt.Sprintf(causeLater, "base")
			}
		}
	}
	switch k := ch.Kind; {
	case ch.Via == viaUpdate:
		return causeUpdate
	case strings.Contains(k, laterConfig) || strings.Contains(k, earlierConfig):
		return causeOther
	case strings.HasPrefix(k, tiePrefix):
		return causeTie
	}
	return causeMatch
}

// sameServed reports whether a and b are the same answers, a certificate
// or default taken as its leaf whatever configuration it came from.
func sameServed(bs []*built, a, b []Answer) bool {
	keys := func(as []Answer) []string {
		var ks []string
		for _, x := range as {
			k := answerKey(x)
			switch x.Kind {
			case AnswerCertificate:
				k = string(bs[x.Config].certs[x.Index].leaf)
			case AnswerDefault:
				k = string(bs[x.Config].defaults[x.Store].leaf)
			}
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return slices.Compact(ks)
	}
	return slices.Equal(keys(a), keys(b))
}

// Change is one kind of behaviour difference between the two stores,
// with the smallest case found that shows it.
type Change struct {
	// Kind says what changed in terms of the case's shape: what each side
	// served and how it relates to the SNI, such as "exact match ->
	// wildcard match" or "tie-break: varies between runs -> fixed".
	Kind string `json:"kind"`
	// Case is the shrunk case; Via says how the differing answer was
	// asked for ("Update" for the outcome of an Update).
	Case Case   `json:"case"`
	Via  string `json:"via"`
	// Base and Head are the distinct answers each store gave over Runs
	// runs of Case (more than one: it varies). For an Update, AnswerNone
	// is an accepted configuration, AnswerError a rejected one.
	Base []Answer `json:"base_answers"`
	Head []Answer `json:"head_answers"`
	Runs int      `json:"runs"`
	// Count is how many differing answers of this kind the search saw;
	// Seed and Iteration are where it was first seen.
	Count     int    `json:"count"`
	Seed      uint64 `json:"seed"`
	Iteration int    `json:"iteration"`
	// Shrunk reports whether Case was shrunk from Original certificates;
	// Note says anything else worth knowing.
	Shrunk   bool   `json:"shrunk"`
	Original int    `json:"original"`
	Note     string `json:"note,omitempty"`
}

// Compare plays the same generated cases (sequences of whole
// configurations, some invalid, lookups on the new generation and on
// generations held from earlier updates) on stores from base and head, and
// reports every kind of difference between their answers, shrunk. The
// stores are compared with each other, not with certstore.Match, so no
// deviation hides a change. A difference of a kind not seen yet is
// replayed alone before it counts, then shrunk; its kind is the shrunk
// case's shape (see Change.Kind), and one that shrinks to a known kind
// counts as one more of it.
func Compare(base, head certstore.Factory, opts CompareOptions) *Comparison {
	opts = opts.withDefaults()
	cmp := &comparer{opts: opts, base: base, head: head, lc: diffLeaves(), refuted: map[string]int{}, alias: map[string]string{}}
	r := &Comparison{Base: opts.Base, Head: opts.Head, Seed: opts.Seed, Planned: opts.Iterations, Runs: opts.Runs}
	cmp.r = r
	progress := func() string {
		return fmt.Sprintf("compare: %d iterations, %d changes", r.Iterations, len(r.Changes()))
	}
	r.Elapsed = search(opts.Seed, opts.Iterations, opts.Duration, opts.Logf, progress, func(it int, rng *rand.Rand, over func() bool) bool {
		seq := generateSequence(rng)
		vary := rand.New(rand.NewPCG(opts.Seed, uint64(it)|1<<63))
		breakConfig(vary, seq)
		if vary.IntN(4) != 0 {
			configureDefaults(seq)
		}
		sc := newScript(rng, seq)
		r.Iterations++
		bs, err := buildAll(cmp.lc, seq)
		if err != nil {
			return true // a name the issuer refuses; the next iteration has others
		}
		pos := positions(sc)
		ob, oh := newObservations(len(pos)), newObservations(len(pos))
		for range opts.Runs {
			cmp.count(sc.observe(base, bs, ob))
			sc.observe(head, bs, oh)
		}
		for p := range pos {
			if over() {
				break
			}
			if sameAnswers(ob[p], oh[p]) {
				continue
			}
			cmp.candidate(caseAt(sc, pos[p]), kindOf(bs, pos, p, ob, oh), it)
			if pos[p].step == nil {
				break // the stores now hold different configurations
			}
		}
		return true
	})
	r.TimeLimit = opts.Duration
	switch {
	case opts.Iterations > 0 && r.Iterations >= opts.Iterations:
		r.Stopped = StopIterations
	case opts.Duration > 0 && r.Elapsed >= opts.Duration:
		r.Stopped = StopTime
	}
	return r
}

func (o CompareOptions) withDefaults() CompareOptions {
	if o.Base == "" {
		o.Base = "base"
	}
	if o.Head == "" {
		o.Head = "head"
	}
	if o.Seed == 0 {
		o.Seed = DefaultDiffSeed
	}
	if o.Runs <= 0 {
		o.Runs = DefaultCompareRuns
	}
	if o.Iterations == 0 && o.Duration == 0 {
		o.Iterations, o.Duration = DefaultCompareIterations, DefaultCompareTimeCap
	}
	return o
}

// comparer is one Compare.
type comparer struct {
	opts       CompareOptions
	base, head certstore.Factory
	lc         *leafCache
	r          *Comparison
	refuted    map[string]int    // search kinds whose candidates did not reproduce
	alias      map[string]string // search kinds whose candidates were another kind when replayed
}

func (cmp *comparer) count(configs, lookups int) {
	cmp.r.Configs += configs
	cmp.r.Lookups += lookups
}

// candidate handles one differing answer of the search: counted under its
// kind when that kind is known; else confirmed by replays and shrunk, and
// reported when the shrunk case shows a kind not seen before.
func (cmp *comparer) candidate(c Case, kind string, it int) {
	if to, ok := cmp.alias[kind]; ok {
		kind = to
	}
	if ch := cmp.find(kind); ch != nil {
		ch.Count++
		return
	}
	if cmp.refuted[kind] >= maxRefuted {
		cmp.r.Unconfirmed++
		return
	}
	var v *view
	if undefaultedStores(&c) > 0 {
		// A store that generates a default (Traefik: an RSA key on every
		// Update) makes each of the many replays slow: the case with every
		// default configured first, if it shows a difference too.
		if fc := withFiller(c); invalidConfigs(&fc) == invalidConfigs(&c) {
			v = cmp.replay(fc, verifyRuns, verifyRuns, true)
		}
	}
	if v == nil {
		v = cmp.replay(c, verifyRuns, verifyRuns, true)
	}
	if v == nil {
		// Seen by chance (a store that varies between runs): after a few
		// of these, candidates of this kind are not replayed.
		cmp.refuted[kind]++
		cmp.r.Unconfirmed++
		return
	}
	ch := cmp.find(v.kind)
	if ch == nil {
		if ch = cmp.shrink(v); ch == nil {
			cmp.refuted[kind]++
			cmp.r.Unconfirmed++
			return
		}
		if known := cmp.find(ch.Kind); known != nil {
			ch = known
		} else {
			ch.Seed, ch.Iteration = cmp.opts.Seed, it
			cmp.add(ch)
			if cmp.opts.Found != nil {
				defer cmp.opts.Found(ch)
			}
		}
	}
	ch.Count++
	if ch.Kind != kind {
		// Later candidates of this search kind count as the change this
		// one turned out to be.
		cmp.alias[kind] = ch.Kind
	}
}

func (cmp *comparer) find(kind string) *Change {
	for _, ch := range cmp.r.Changes() {
		if ch.Kind == kind {
			return ch
		}
	}
	return nil
}

// add adds a change of a new kind under its cause.
func (cmp *comparer) add(ch *Change) {
	name := cmp.causeOf(ch)
	for _, c := range cmp.r.Causes {
		if c.Cause == name {
			c.Changes = append(c.Changes, ch)
			return
		}
	}
	cmp.r.Causes = append(cmp.r.Causes, &Cause{Cause: name, Changes: []*Change{ch}})
}

// shrink shrinks a confirmed difference, then confirms the shrunk case,
// whose shape gives the kind; nil when neither it nor the unshrunk case
// shows the difference again. No step may make a configuration invalid,
// nor leave a store without the default it had.
// When both stores answered the same way on every run, a step is kept if
// the stores still differ in the same kind of way, or in a kind already
// found (a difference that shrinks to a known kind is one more instance of
// it); a store that varied is replayed up to varyRuns times per step, and
// any difference keeps the step.
func (cmp *comparer) shrink(v *view) *Change {
	nb, nh := 1, 1
	if len(v.base) > 1 {
		nb = varyRuns
	}
	if len(v.head) > 1 {
		nh = varyRuns
	}
	invalid, undefaulted := invalidConfigs(&v.c), undefaultedStores(&v.c)
	// Defaults configureDefaults added stay out of the shrink: taken out of
	// the case shrunk, put back into every case replayed.
	filler := undefaulted == 0
	start := v.c
	if filler {
		start = withoutFiller(v.c)
	}
	test := func(c Case) bool {
		if filler {
			c = withFiller(c)
		}
		if invalidConfigs(&c) > invalid {
			return false // a step that breaks a configuration finds another difference
		}
		if undefaultedStores(&c) > undefaulted {
			return false // a store that generates its default (an RSA key, Traefik) makes every replay slow
		}
		got := cmp.replay(c, nb, nh, false)
		return got != nil && (nb+nh > 2 || got.kind == v.kind || cmp.find(got.kind) != nil)
	}
	best, note := shrinkCase(start, test)
	if filler {
		best = withFiller(best)
	}
	final := cmp.replay(best, verifyRuns, verifyRuns, true)
	if final == nil && nb+nh > 2 {
		// A side that varies may agree with the other for a while.
		final = cmp.replay(best, extendRuns, extendRuns, true)
	}
	if final == nil {
		// Maybe chance showed a difference the shrunk case has not: the
		// unshrunk one must show it again to count.
		if final, note = cmp.replay(v.c, verifyRuns, verifyRuns, true), "a smaller case did not reproduce when replayed; not shrunk"; final == nil {
			return nil
		}
	}
	return &Change{
		Kind: final.kind, Case: final.c, Via: final.via, Base: final.base, Head: final.head, Runs: final.runs,
		Shrunk: note == "" || !strings.HasPrefix(note, "a smaller"), Original: countCerts(&v.c), Note: note,
	}
}

// undefaultedStores counts the stores of c's configurations (the default
// store and every declared one) without a configured default: a store
// such as Traefik's generates one, an RSA key, on every Update.
func undefaultedStores(c *Case) int {
	n := 0
	for k := range c.Configs {
		cfg := &c.Configs[k]
		if cfg.Stores[certstore.DefaultStore] == nil {
			n++
		}
		for st, d := range cfg.Stores {
			if d == nil && st != certstore.DefaultStore {
				n++
			}
		}
	}
	return n
}

// invalidConfigs counts the configurations of c a store must reject.
func invalidConfigs(c *Case) int {
	n := 0
	for k := range c.Configs {
		if !c.Configs[k].valid() {
			n++
		}
	}
	return n
}

// view is a difference seen when replaying a case: the first position
// whose answers differ.
type view struct {
	c          Case
	via        string
	base, head []Answer
	runs       int
	kind       string
}

// replay plays c on base and head and returns the first difference, or
// nil. Without extend, the side with fewer runs (nb or nh) plays first,
// and the other stops as soon as a difference shows. With extend, both
// play all their runs; then, when a side varies at the first difference,
// both play until extendRuns runs, and when it is a tie broken differently
// by two sides that look fixed (biased map order can look fixed for a
// while), until tieRuns runs, and are compared again.
func (cmp *comparer) replay(c Case, nb, nh int, extend bool) *view {
	bs, err := c.build(cmp.lc, false)
	if err != nil {
		return nil
	}
	sc := caseScript(&c)
	pos := positions(sc)
	ob, oh := newObservations(len(pos)), newObservations(len(pos))
	play := func(f certstore.Factory, o observations, n int, stop func() bool) int {
		for i := range n {
			sc.observe(f, bs, o)
			if stop != nil && stop() {
				return i + 1
			}
		}
		return n
	}
	var runs int
	if extend {
		runs = min(play(cmp.base, ob, nb, nil), play(cmp.head, oh, nh, nil))
	} else {
		differs := func() bool { return firstDiff(ob, oh) >= 0 }
		if nb <= nh {
			runs = min(play(cmp.base, ob, nb, nil), play(cmp.head, oh, nh, differs))
		} else {
			runs = min(play(cmp.head, oh, nh, nil), play(cmp.base, ob, nb, differs))
		}
	}
	p := firstDiff(ob, oh)
	if p >= 0 && extend {
		more := 0
		switch {
		case len(ob[p]) > 1 || len(oh[p]) > 1:
			more = extendRuns
		case strings.HasPrefix(kindOf(bs, pos, p, ob, oh), tiePrefix):
			more = tieRuns
		}
		if more > 0 {
			play(cmp.base, ob, more-nb, nil)
			play(cmp.head, oh, more-nh, nil)
			runs = more
			p = firstDiff(ob, oh)
		}
		// A side whose answers are some of those the other varies among
		// (one of them, or two of three) may give the rest too, rarely:
		// play it until it does, or until fixedRuns runs make that
		// unlikely. After that the first difference may be at another
		// position, which gets the same chance.
		nbAll, nhAll := max(nb, runs), max(nh, runs)
		for tried := map[int]bool{}; p >= 0 && !tried[p]; p = firstDiff(ob, oh) {
			at := p
			tried[at] = true
			switch {
			case len(ob[at]) < len(oh[at]) && subset(ob[at], oh[at]) && nbAll < fixedRuns:
				nbAll += play(cmp.base, ob, fixedRuns-nbAll, func() bool { return len(ob[at]) == len(oh[at]) })
			case len(oh[at]) < len(ob[at]) && subset(oh[at], ob[at]) && nhAll < fixedRuns:
				nhAll += play(cmp.head, oh, fixedRuns-nhAll, func() bool { return len(oh[at]) == len(ob[at]) })
			}
		}
	}
	if p < 0 {
		return nil
	}
	return &view{c: c, via: pos[p].via(), base: ob[p], head: oh[p], runs: runs, kind: kindOf(bs, pos, p, ob, oh)}
}

// breakConfig makes one configuration of some sequences invalid (a
// certificate without names, or one in an undeclared store), so that the
// stores' handling of rejected updates is compared too.
func breakConfig(rng *rand.Rand, seq []CaseConfig) {
	if rng.IntN(4) != 0 {
		return
	}
	cfg := &seq[rng.IntN(len(seq))]
	bad := CaseCert{Variant: 1 << 20}
	if rng.IntN(2) == 0 {
		bad = cfg.Certs[rng.IntN(len(cfg.Certs))].clone()
		bad.Stores = []string{"undeclared"}
	}
	at := rng.IntN(len(cfg.Certs) + 1)
	cfg.Certs = slices.Insert(cfg.Certs, at, bad)
}

// fillerDefault is the name of the defaults configureDefaults adds: they
// are kept while shrinking, and not counted among a case's certificates.
const fillerDefault = "default.compare.invalid"

// withoutFiller returns c without the defaults configureDefaults adds (a
// declared store keeps its entry, without default).
func withoutFiller(c Case) Case {
	c = c.clone()
	for k := range c.Configs {
		cfg := &c.Configs[k]
		for st, d := range cfg.Stores {
			switch {
			case d == nil || !slices.Equal(d.DNSNames, []string{fillerDefault}):
			case st == certstore.DefaultStore:
				delete(cfg.Stores, st)
			default:
				cfg.Stores[st] = nil
			}
		}
		if len(cfg.Stores) == 0 {
			cfg.Stores = nil
		}
	}
	return c
}

// withFiller returns c with configureDefaults' defaults.
func withFiller(c Case) Case {
	c = c.clone()
	configureDefaults(c.Configs)
	return c
}

// configureDefaults gives every store of seq a configured default: stores
// that generate a default (an RSA key, for Traefik) update much faster
// with one, so most iterations have them and some do not.
func configureDefaults(seq []CaseConfig) {
	for k := range seq {
		cfg := &seq[k]
		if cfg.Stores == nil {
			cfg.Stores = map[string]*CaseCert{}
		}
		for _, st := range append([]string{certstore.DefaultStore}, cfg.storeNames()...) {
			if cfg.Stores[st] == nil {
				cfg.Stores[st] = &CaseCert{DNSNames: []string{fillerDefault}}
			}
		}
	}
}

// position is one answer of a played script: the Update of configuration
// k (step nil) or a lookup after it.
type position struct {
	k    int
	step *lookupStep
}

func (p position) via() string {
	if p.step == nil {
		return viaUpdate
	}
	return p.step.via
}

// positions lists a script's answers in the order play gives them.
func positions(sc *script) []position {
	var ps []position
	for k := range sc.seq {
		ps = append(ps, position{k: k})
		for i := range sc.steps[k] {
			ps = append(ps, position{k: k, step: &sc.steps[k][i]})
		}
	}
	return ps
}

// caseAt is the case of one position of a script.
func caseAt(sc *script, p position) Case {
	c := Case{Configs: sc.seq[:p.k+1], Held: p.k}
	if p.step != nil {
		c.Held, c.Store, c.SNI = p.step.held, p.step.store, p.step.sni
	}
	return c.clone()
}

// observations are the distinct answers seen at each position of a
// script, over one or more plays.
type observations [][]Answer

func newObservations(n int) observations { return make(observations, n) }

func (o observations) add(p int, a Answer) {
	if !slices.ContainsFunc(o[p], func(b Answer) bool { return answerKey(b) == answerKey(a) }) {
		o[p] = append(o[p], a)
	}
}

// observe plays the script once on a store from f, adding its answers to
// o, and returns the configurations and lookups it ran. Positions a store
// that could not be made never reached get an error.
func (sc *script) observe(f certstore.Factory, bs []*built, o observations) (configs, lookups int) {
	p := 0
	var openErr error
	last := -1                      // the last configuration the store accepted
	eff := make([]int, len(sc.seq)) // by configuration: what its generation holds
	sc.play(f, bs, func(e event) bool {
		if e.step == nil {
			configs++
			a := Answer{Kind: AnswerNone, Config: e.k}
			if e.err != nil {
				a = Answer{Kind: AnswerError, Config: e.k, Err: e.err}
				if p == 0 && e.k == 0 {
					openErr = e.err
				}
			} else {
				last = e.k
			}
			eff[e.k] = max(last, 0)
			o.add(p, a)
		} else {
			lookups++
			o.add(p, classify(bs[:e.k+1], eff[e.step.held], e.step.store, e.cert, e.err))
		}
		p++
		return true
	})
	for ; p < len(o); p++ {
		o.add(p, Answer{Kind: AnswerError, Err: fmt.Errorf("not run: %w", openErr)})
	}
	return configs, lookups
}

// effective is the configuration a store's generation held after
// configuration held holds: the last one before it that the store
// accepted (on the first run that answered).
func effective(o observations, pos []position, held int) int {
	for j := held; j >= 0; j-- {
		for p, ps := range pos {
			if ps.step == nil && ps.k == j && len(o[p]) > 0 && o[p][0].Kind != AnswerError {
				return j
			}
		}
	}
	return held
}

// answerKey identifies an answer for comparing two stores: the same
// certificate, the same kind of error.
func answerKey(a Answer) string {
	switch a.Kind {
	case AnswerCertificate:
		return fmt.Sprintf("certificate %d/%d", a.Config, a.Index)
	case AnswerDefault:
		return fmt.Sprintf("default %d/%s", a.Config, a.Store)
	case AnswerGenerated:
		return "generated"
	case AnswerError:
		return "error " + errClass(a.Err)
	}
	return "none"
}

// errClass is the kind of an error, as two stores are compared by it.
func errClass(err error) string {
	var pe *panicError
	var de *decodedError
	switch {
	case errors.As(err, &de) && de.class != "":
		return de.class
	case errors.Is(err, certstore.ErrUnknownStore):
		return "unknown store"
	case errors.Is(err, certstore.ErrNoCertificate):
		return "no certificate"
	case errors.As(err, &pe):
		return "panic"
	}
	var ce *certstore.CertificateError
	if errors.As(err, &ce) {
		return "certificate error"
	}
	return "other"
}

// subset reports whether every answer of a is one of b.
func subset(a, b []Answer) bool {
	for _, x := range a {
		if !slices.ContainsFunc(b, func(y Answer) bool { return answerKey(x) == answerKey(y) }) {
			return false
		}
	}
	return true
}

func sameAnswers(a, b []Answer) bool { return len(a) == len(b) && subset(a, b) }

func firstDiff(a, b observations) int {
	for p := range a {
		if !sameAnswers(a[p], b[p]) {
			return p
		}
	}
	return -1
}

// shape is what an answer is in relation to its lookup: for a
// certificate, how it matches the SNI and whether it is the first
// configured one that matches so.
type shape struct {
	what string
	rank string // for a certificate of the store: "first" or "later" among those that match as it does
}

// kindOf names the difference at position p by its shape (see
// Change.Kind), each side's answers taken in relation to the configuration
// its generation holds (the last it accepted).
func kindOf(bs []*built, pos []position, p int, ob, oh observations) string {
	base, head := ob[p], oh[p]
	if pos[p].step == nil {
		return "Update: " + updateShape(base) + " -> " + updateShape(head)
	}
	st := pos[p].step
	store, sni := st.store, st.sni
	eb, eh := effective(ob, pos, st.held), effective(oh, pos, st.held)
	var sb, sh []shape
	for _, a := range base {
		sb = append(sb, shapeOf(bs, eb, store, sni, a))
	}
	for _, a := range head {
		sh = append(sh, shapeOf(bs, eh, store, sni, a))
	}
	if k := tieKind(sb, sh); k != "" {
		return k
	}
	return sideShape(sb) + " -> " + sideShape(sh)
}

func updateShape(as []Answer) string {
	var ws []string
	for _, a := range as {
		w := "accepted"
		if a.Kind == AnswerError {
			w = "rejected (" + errClass(a.Err) + ")"
		}
		ws = append(ws, w)
	}
	return joinShapes(ws)
}

// What shapeOf says of an answer from a configuration other than the one
// the generation holds.
const (
	earlierConfig = "earlier configuration's "
	laterConfig   = "later configuration's "
)

func shapeOf(bs []*built, held int, store, sni string, a Answer) shape {
	stale := ""
	if a.Kind == AnswerCertificate || a.Kind == AnswerDefault {
		switch {
		case a.Config < held:
			stale = earlierConfig
		case a.Config > held:
			stale = laterConfig
		}
	}
	b := bs[a.Config]
	switch a.Kind {
	case AnswerCertificate:
		if !slices.Contains(certstore.StoresOf(&b.cfg.Certificates[a.Index]), store) {
			return shape{what: stale + "certificate of another store"}
		}
		rel := relation(b.certs[a.Index].names, sni)
		what := rel + " match"
		if rel == "" {
			what = "certificate that does not match"
		}
		rank := "first"
		for i := range a.Index {
			if slices.Contains(certstore.StoresOf(&b.cfg.Certificates[i]), store) && relation(b.certs[i].names, sni) == rel {
				rank = "later"
				break
			}
		}
		return shape{what: stale + what, rank: rank}
	case AnswerDefault:
		if a.Store != store {
			return shape{what: stale + "default of another store"}
		}
		return shape{what: stale + "configured default"}
	case AnswerGenerated:
		return shape{what: "generated default"}
	case AnswerError:
		return shape{what: "error (" + errClass(a.Err) + ")"}
	}
	return shape{what: "no certificate"}
}

// relation says how a certificate's names cover sni: "exact",
// "wildcard" (certstore.Match's one-label wildcard) or "".
func relation(names []string, sni string) string {
	n := certstore.NormalizeServerName(sni)
	if n == "" {
		return ""
	}
	if slices.Contains(names, n) {
		return "exact"
	}
	if _, err := netip.ParseAddr(n); err == nil {
		return ""
	}
	if parent, ok := certstore.WildcardParent(n); ok && slices.Contains(names, "*."+parent) {
		return "wildcard"
	}
	return ""
}

const tiePrefix = "tie-break: "

// tieKind names a difference between certificates of the store that match
// the SNI the same way (or equally not) on both sides: a tie broken
// differently. It returns "" for any other difference.
func tieKind(base, head []shape) string {
	all := append(slices.Clone(base), head...)
	for _, s := range all {
		if s.rank == "" || s.what != all[0].what {
			return ""
		}
	}
	vb, vh := len(base) > 1, len(head) > 1
	rank := func(s []shape, other bool) string {
		switch {
		case len(s) > 1:
			return "varies between runs"
		case other:
			return "fixed"
		case s[0].rank == "first":
			return "the first configured"
		}
		return "a later one"
	}
	if vb && vh {
		return tiePrefix + "varies between runs -> varies among other certificates"
	}
	return tiePrefix + rank(base, vh) + " -> " + rank(head, vb)
}

func sideShape(ss []shape) string {
	var ws []string
	for _, s := range ss {
		ws = append(ws, s.what)
	}
	return joinShapes(ws)
}

// joinShapes joins distinct descriptions, sorted, marking a side that
// varies.
func joinShapes(ws []string) string {
	varies := len(ws) > 1
	slices.Sort(ws)
	ws = slices.Compact(ws)
	s := strings.Join(ws, " or ")
	if varies {
		s += " (varies between runs)"
	}
	return s
}

// Compare replays c on new stores from base and head, runs times each
// (0: DefaultCompareRuns; more when a store varies), and returns the first
// difference between their answers (an Update's outcome, then the lookup),
// or nil when they agree. The error reports a case that cannot be run.
func (c Case) Compare(base, head certstore.Factory, runs int) (*Change, error) {
	if runs <= 0 {
		runs = DefaultCompareRuns
	}
	lc := diffLeaves()
	if _, err := c.build(lc, false); err != nil {
		return nil, err
	}
	cmp := &comparer{base: base, head: head, lc: lc}
	v := cmp.replay(c, runs, runs, true)
	if v == nil {
		return nil, nil
	}
	return &Change{Kind: v.kind, Case: v.c, Via: v.via, Base: v.base, Head: v.head, Runs: v.runs}, nil
}

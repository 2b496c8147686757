package conformance

// Compare: the behaviour diff between two stores, on generated cases.

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certstore"
)

// Defaults of Compare: runs of each case on each store, the search's bounds.
const (
	DefaultCompareRuns       = 2
	DefaultCompareIterations = 200
	DefaultCompareTimeCap    = 3 * time.Minute
)

// Replays that confirm a difference (see replay). While shrinking, a side
// known to vary is replayed up to varyRuns times until the sides differ:
// map order is biased, and a step rejected by chance leaves a name or a
// certificate in the shrunk case.
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
	Base, Head string // the stores' names in reports ("base", "head")
	// Seed, Iterations and Duration are as in [DifferentialOptions], with
	// DefaultCompareIterations and DefaultCompareTimeCap.
	Seed       uint64
	Iterations int
	Duration   time.Duration
	// Runs is how many times each case is played on each store
	// (0: DefaultCompareRuns), so that a store whose answer varies between
	// runs (map order) is seen to vary rather than to differ.
	Runs  int
	Logf  func(format string, args ...any) // progress lines, when set
	Found func(*Change)                    // told of each new change
}

// Comparison is what [Compare] found.
type Comparison struct {
	Base string `json:"base"`
	Head string `json:"head"`
	Seed uint64 `json:"seed"`
	// Iterations, Configs and Lookups count what ran on the base store;
	// Planned is the iteration bound (0: none), Runs the runs per case.
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
	// Unconfirmed counts differing answers that did not reproduce alone.
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
	return slices.Concat(mapSlice(r.Causes, func(c *Cause) []*Change { return c.Changes })...)
}

// Cause is one cause of differences and the changes of each kind it showed as.
type Cause struct {
	Cause   string    `json:"cause"`
	Changes []*Change `json:"changes"`
}

// Count is how many differing answers of the cause the search saw.
func (c *Cause) Count() (n int) {
	for _, ch := range c.Changes {
		n += ch.Count
	}
	return n
}

// The causes of differences (see causeOf); causeLater names the side.
const (
	causeUpdate = "an Update is accepted or rejected differently"
	causeLater  = "held generations of the %s serve a later configuration"
	causeOther  = "a generation serves another configuration than the one it holds"
	causeTie    = "a tie between certificates is broken differently"
	causeMatch  = "a lookup is answered with another kind of match, default or error"
)

// causeOf is the cause of a new change: a held generation that one side
// answers as with the last configuration, not as with its own, while the
// other side does not, serves a later configuration; else the kind says.
func (cp *comparer) causeOf(ch *Change) string {
	c := ch.Case
	if last := len(c.Configs) - 1; ch.Via == viaCurrent && c.Held < last {
		if bs, err := c.build(cp.lc, false); err == nil {
			newest := func(f certstore.Factory, k int) []Answer {
				sc := caseScript(&Case{Configs: c.Configs[:k+1], Held: k, Store: c.Store, SNI: c.SNI})
				o := make(observations, len(positions(sc))) // the last: Current's lookup
				for range max(ch.Runs, verifyRuns) {
					sc.observe(f, bs[:k+1], o)
				}
				return o[len(o)-1]
			}
			live := func(f certstore.Factory, held []Answer) bool {
				return sameServed(bs, held, newest(f, last)) && !sameServed(bs, held, newest(f, c.Held))
			}
			if b, h := live(cp.base, ch.Base), live(cp.head, ch.Head); b != h {
				return fmt.Sprintf(causeLater, map[bool]string{false: "base", true: "head"}[h])
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

// sameServed reports whether a and b are the same answers, a certificate or default as its leaf.
func sameServed(bs []*built, a, b []Answer) bool {
	keys := func(as []Answer) []string {
		ks := mapSlice(as, func(x Answer) string {
			switch x.Kind {
			case AnswerCertificate:
				return string(bs[x.Config].certs[x.Index].leaf)
			case AnswerDefault:
				return string(bs[x.Config].defaults[x.Store].leaf)
			}
			return answerKey(x)
		})
		slices.Sort(ks)
		return slices.Compact(ks)
	}
	return slices.Equal(keys(a), keys(b))
}

// Change is one kind of behaviour difference between the two stores,
// with the smallest case found that shows it.
type Change struct {
	// Kind says what each side served in relation to the SNI, such as
	// "exact match -> wildcard match" or "tie-break: varies between runs -> fixed".
	Kind string `json:"kind"`
	Case Case   `json:"case"` // shrunk
	Via  string `json:"via"`  // as in Divergence
	// Base and Head are the distinct answers each store gave over Runs
	// runs of Case. For an Update, AnswerNone is accepted, AnswerError rejected.
	Base []Answer `json:"base_answers"`
	Head []Answer `json:"head_answers"`
	Runs int      `json:"runs"`
	// Count is how many differing answers of this kind the search saw;
	// Seed and Iteration where the first was; the rest as in Divergence.
	Count     int    `json:"count"`
	Seed      uint64 `json:"seed"`
	Iteration int    `json:"iteration"`
	Shrunk    bool   `json:"shrunk"`
	Original  int    `json:"original"`
	Note      string `json:"note,omitempty"`
}

// Compare plays the same generated cases (some configurations invalid) on
// stores from base and head and reports each kind of difference, shrunk.
// The stores are compared with each other, not certstore.Match, so no
// deviation hides a change. A new kind is replayed alone before it counts;
// one that shrinks to a known kind counts as one more of it.
func Compare(base, head certstore.Factory, opts CompareOptions) *Comparison {
	opts = opts.withDefaults()
	r := &Comparison{Base: opts.Base, Head: opts.Head, Seed: opts.Seed, Planned: opts.Iterations, Runs: opts.Runs, TimeLimit: opts.Duration}
	cp := &comparer{opts: opts, base: base, head: head, lc: diffLeaves(), r: r, refuted: map[string]int{}, alias: map[string]string{}}
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
		bs, err := buildAll(cp.lc, seq)
		if err != nil {
			return true // a name the issuer refuses; the next iteration has others
		}
		pos := positions(sc)
		ob, oh := make(observations, len(pos)), make(observations, len(pos))
		for range opts.Runs {
			configs, lookups := sc.observe(base, bs, ob)
			r.Configs, r.Lookups = r.Configs+configs, r.Lookups+lookups
			sc.observe(head, bs, oh)
		}
		for p := 0; p < len(pos) && !over(); p++ {
			if !sameAnswers(ob[p], oh[p]) {
				cp.candidate(caseAt(sc, pos[p]), kindOf(bs, pos, p, ob, oh), it)
				if pos[p].step == nil {
					break // the stores now hold different configurations
				}
			}
		}
		return true
	})
	switch {
	case opts.Iterations > 0 && r.Iterations >= opts.Iterations:
		r.Stopped = StopIterations
	case opts.Duration > 0 && r.Elapsed >= opts.Duration:
		r.Stopped = StopTime
	}
	return r
}

func (o CompareOptions) withDefaults() CompareOptions {
	o.Base, o.Head = cmp.Or(o.Base, "base"), cmp.Or(o.Head, "head")
	o.Seed = cmp.Or(o.Seed, DefaultDiffSeed)
	if o.Runs <= 0 {
		o.Runs = DefaultCompareRuns
	}
	if o.Iterations == 0 && o.Duration == 0 {
		o.Iterations, o.Duration = DefaultCompareIterations, DefaultCompareTimeCap
	}
	return o
}

type comparer struct {
	opts       CompareOptions
	base, head certstore.Factory
	lc         *leafCache
	r          *Comparison
	refuted    map[string]int    // search kinds whose candidates did not reproduce
	alias      map[string]string // search kinds whose candidates were another kind when replayed
}

// candidate counts one differing answer under its known kind, or confirms
// and shrinks it, reporting a kind not seen before.
func (cp *comparer) candidate(c Case, kind string, it int) {
	kind = cmp.Or(cp.alias[kind], kind)
	if ch := cp.find(kind); ch != nil {
		ch.Count++
		return
	}
	if cp.refuted[kind] >= maxRefuted {
		cp.r.Unconfirmed++
		return
	}
	var v, ch *Change
	// A store that generates a default (an RSA key per Update) makes
	// replays slow: try the case with every default configured first.
	if fc := withFiller(c); undefaultedStores(&c) > 0 && invalidConfigs(&fc) == invalidConfigs(&c) {
		v = cp.replay(fc, verifyRuns, verifyRuns, true)
	}
	if v == nil {
		v = cp.replay(c, verifyRuns, verifyRuns, true)
	}
	if v != nil {
		if ch = cp.find(v.Kind); ch == nil {
			if ch = cp.shrink(v); ch != nil {
				if known := cp.find(ch.Kind); known != nil {
					ch = known
				} else {
					ch.Seed, ch.Iteration = cp.opts.Seed, it
					cp.add(ch)
					if cp.opts.Found != nil {
						defer cp.opts.Found(ch)
					}
				}
			}
		}
	}
	if ch == nil {
		cp.refuted[kind]++
		cp.r.Unconfirmed++
		return
	}
	ch.Count++
	if ch.Kind != kind {
		cp.alias[kind] = ch.Kind
	}
}

func (cp *comparer) find(kind string) *Change {
	chs := cp.r.Changes()
	if i := slices.IndexFunc(chs, func(ch *Change) bool { return ch.Kind == kind }); i >= 0 {
		return chs[i]
	}
	return nil
}

func (cp *comparer) add(ch *Change) {
	name := cp.causeOf(ch)
	if i := slices.IndexFunc(cp.r.Causes, func(c *Cause) bool { return c.Cause == name }); i >= 0 {
		cp.r.Causes[i].Changes = append(cp.r.Causes[i].Changes, ch)
	} else {
		cp.r.Causes = append(cp.r.Causes, &Cause{Cause: name, Changes: []*Change{ch}})
	}
}

// shrink shrinks a confirmed difference and confirms the result (nil when
// neither it nor the unshrunk case reproduces). With fixed sides a step is
// kept if the kind stays or is a known one; with a varying side, any is.
func (cp *comparer) shrink(v *Change) *Change {
	runs := func(as []Answer) int { return max(1, varyRuns*min(len(as)-1, 1)) } // varyRuns for a varying side
	nb, nh := runs(v.Base), runs(v.Head)
	invalid, undefaulted := invalidConfigs(&v.Case), undefaultedStores(&v.Case)
	// configureDefaults' defaults stay out of the shrink, in every replay.
	filler := undefaulted == 0
	start := v.Case
	if filler {
		start = withoutFiller(v.Case)
	}
	test := func(c Case) bool {
		if filler {
			c = withFiller(c)
		}
		// A step that breaks a configuration finds another difference; a
		// generated default makes every replay slow.
		if invalidConfigs(&c) > invalid || undefaultedStores(&c) > undefaulted {
			return false
		}
		got := cp.replay(c, nb, nh, false)
		return got != nil && (nb+nh > 2 || got.Kind == v.Kind || cp.find(got.Kind) != nil)
	}
	best, note := shrinkCase(start, test)
	if filler {
		best = withFiller(best)
	}
	final := cp.replay(best, verifyRuns, verifyRuns, true)
	if final == nil && nb+nh > 2 {
		final = cp.replay(best, extendRuns, extendRuns, true)
	}
	if final == nil {
		if final, note = cp.replay(v.Case, verifyRuns, verifyRuns, true), "a smaller case did not reproduce when replayed; not shrunk"; final == nil {
			return nil
		}
	}
	final.Shrunk, final.Original, final.Note = !strings.HasPrefix(note, "a smaller"), countCerts(&v.Case), note
	return final
}

func undefaultedStores(c *Case) (n int) {
	for k := range c.Configs {
		for _, d := range c.Configs[k].Stores {
			if d == nil {
				n++
			}
		}
		if _, ok := c.Configs[k].Stores[certstore.DefaultStore]; !ok {
			n++
		}
	}
	return n
}

func invalidConfigs(c *Case) (n int) {
	for k := range c.Configs {
		if !c.Configs[k].valid() {
			n++
		}
	}
	return n
}

// replay plays c on base and head and returns the first difference, or
// nil. Without extend, the side with fewer runs plays first and the other
// stops at a difference. With extend, all runs play, then up to extendRuns
// if a side varies, tieRuns for a tie (biased map order can look fixed a
// while), fixedRuns for a side with only some of the other's answers.
func (cp *comparer) replay(c Case, nb, nh int, extend bool) *Change {
	bs, err := c.build(cp.lc, false)
	if err != nil {
		return nil
	}
	sc := caseScript(&c)
	pos := positions(sc)
	ob, oh := make(observations, len(pos)), make(observations, len(pos))
	play := func(f certstore.Factory, o observations, n int, stop func() bool) int {
		for i := range n {
			sc.observe(f, bs, o)
			if stop != nil && stop() {
				return i + 1
			}
		}
		return n
	}
	var differs func() bool
	if !extend {
		differs = func() bool { return firstDiff(ob, oh) >= 0 }
	}
	var runs int
	if extend || nb <= nh {
		runs = min(play(cp.base, ob, nb, nil), play(cp.head, oh, nh, differs))
	} else {
		runs = min(play(cp.head, oh, nh, nil), play(cp.base, ob, nb, differs))
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
			play(cp.base, ob, more-nb, nil)
			play(cp.head, oh, more-nh, nil)
			runs = more
			p = firstDiff(ob, oh)
		}
		// The first difference may now be elsewhere; it gets the same chance.
		nbAll, nhAll := max(nb, runs), max(nh, runs)
		for tried := map[int]bool{}; p >= 0 && !tried[p]; p = firstDiff(ob, oh) {
			tried[p] = true
			switch {
			case len(ob[p]) < len(oh[p]) && subset(ob[p], oh[p]) && nbAll < fixedRuns:
				nbAll += play(cp.base, ob, fixedRuns-nbAll, func() bool { return len(ob[p]) == len(oh[p]) })
			case len(oh[p]) < len(ob[p]) && subset(oh[p], ob[p]) && nhAll < fixedRuns:
				nhAll += play(cp.head, oh, fixedRuns-nhAll, func() bool { return len(oh[p]) == len(ob[p]) })
			}
		}
	}
	if p < 0 {
		return nil
	}
	via := viaUpdate
	if pos[p].step != nil {
		via = pos[p].step.via
	}
	return &Change{Kind: kindOf(bs, pos, p, ob, oh), Case: c, Via: via, Base: ob[p], Head: oh[p], Runs: runs}
}

// breakConfig makes one configuration of some sequences invalid, so that
// rejected updates are compared too.
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
	cfg.Certs = slices.Insert(cfg.Certs, rng.IntN(len(cfg.Certs)+1), bad)
}

const fillerDefault = "default.compare.invalid"

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

func withFiller(c Case) Case {
	c = c.clone()
	configureDefaults(c.Configs)
	return c
}

// configureDefaults gives every store of seq a configured default: stores
// that generate one update much faster, so most iterations have them.
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

// position is one answer of a played script: configuration k's Update (step nil) or a lookup after it.
type position struct {
	k    int
	step *lookupStep
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

func caseAt(sc *script, p position) Case {
	c := Case{Configs: sc.seq[:p.k+1], Held: p.k}
	if p.step != nil {
		c.Held, c.Store, c.SNI = p.step.held, p.step.store, p.step.sni
	}
	return c.clone()
}

// observations are the distinct answers seen at each position of a script.
type observations [][]Answer

func (o observations) add(p int, a Answer) {
	if !has(o[p], a) {
		o[p] = append(o[p], a)
	}
}

// observe plays the script once on a store from f, adding its answers to
// o, and returns what it ran. Positions never reached get an error.
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
				a.Kind, a.Err = AnswerError, e.err
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

// effective is what the generation held after configuration held holds:
// the last configuration up to it the store accepted (on the first run).
func effective(o observations, pos []position, held int) int {
	for j := held; j >= 0; j-- {
		p := slices.IndexFunc(pos, func(ps position) bool { return ps.step == nil && ps.k == j })
		if p >= 0 && len(o[p]) > 0 && o[p][0].Kind != AnswerError {
			return j
		}
	}
	return held
}

// answerKey identifies an answer for comparing two stores.
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

// errClass is the kind of an error two stores are compared by.
func errClass(err error) string {
	var de *decodedError
	switch {
	case errors.As(err, &de) && de.class != "":
		return de.class
	case errors.Is(err, certstore.ErrUnknownStore):
		return "unknown store"
	case errors.Is(err, certstore.ErrNoCertificate):
		return "no certificate"
	case errors.As(err, new(*panicError)):
		return "panic"
	case errors.As(err, new(*certstore.CertificateError)):
		return "certificate error"
	}
	return "other"
}

func subset(a, b []Answer) bool {
	return !slices.ContainsFunc(a, func(x Answer) bool { return !has(b, x) })
}

func has(as []Answer, a Answer) bool {
	return slices.ContainsFunc(as, func(b Answer) bool { return answerKey(a) == answerKey(b) })
}

// mapSlice returns f of each of xs; nil for none.
func mapSlice[T, U any](xs []T, f func(T) U) []U {
	var us []U
	for _, x := range xs {
		us = append(us, f(x))
	}
	return us
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

// shape is what an answer is in relation to its lookup.
type shape struct {
	what string
	rank string // for a certificate of the store: "first" or "later" among those that match as it does
}

// kindOf names the difference at p (Change.Kind), each side against its generation's configuration.
func kindOf(bs []*built, pos []position, p int, ob, oh observations) string {
	if pos[p].step == nil {
		return "Update: " + updateShape(ob[p]) + " -> " + updateShape(oh[p])
	}
	st := pos[p].step
	shapes := func(o observations) []shape {
		held := effective(o, pos, st.held)
		return mapSlice(o[p], func(a Answer) shape { return shapeOf(bs, held, st.store, st.sni, a) })
	}
	sb, sh := shapes(ob), shapes(oh)
	if k := tieKind(sb, sh); k != "" {
		return k
	}
	what := func(s shape) string { return s.what }
	return joinShapes(mapSlice(sb, what)) + " -> " + joinShapes(mapSlice(sh, what))
}

func updateShape(as []Answer) string {
	return joinShapes(mapSlice(as, func(a Answer) string {
		if a.Kind == AnswerError {
			return "rejected (" + errClass(a.Err) + ")"
		}
		return "accepted"
	}))
}

// What shapeOf says of an answer from another configuration than the held one.
const (
	earlierConfig = "earlier configuration's "
	laterConfig   = "later configuration's "
)

func shapeOf(bs []*built, held int, store, sni string, a Answer) shape {
	stale := ""
	if a.Kind == AnswerCertificate || a.Kind == AnswerDefault {
		stale = map[int]string{-1: earlierConfig, 1: laterConfig}[cmp.Compare(a.Config, held)]
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

// relation says how names cover sni by certstore.Match: "exact", "wildcard" or "".
func relation(names []string, sni string) string {
	switch {
	case certstore.Match([][]string{names}, sni) < 0:
		return ""
	case slices.Contains(names, certstore.NormalizeServerName(sni)):
		return "exact"
	}
	return "wildcard"
}

const tiePrefix = "tie-break: "

// tieKind names a tie (the store's certificates matching alike on both sides) broken differently, or "".
func tieKind(base, head []shape) string {
	all := append(slices.Clone(base), head...)
	if slices.ContainsFunc(all, func(s shape) bool { return s.rank == "" || s.what != all[0].what }) {
		return ""
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

// joinShapes joins distinct descriptions, sorted, marking a side that varies.
func joinShapes(ws []string) string {
	s := strings.Join(slices.Compact(slices.Sorted(slices.Values(ws))), " or ")
	if len(ws) > 1 {
		s += " (varies between runs)"
	}
	return s
}

// Compare replays c on stores from base and head, runs times each (0:
// DefaultCompareRuns; more when one varies), and returns the first
// difference, or nil. The error reports a case that cannot be run.
func (c Case) Compare(base, head certstore.Factory, runs int) (*Change, error) {
	if runs <= 0 {
		runs = DefaultCompareRuns
	}
	lc := diffLeaves()
	if _, err := c.build(lc, false); err != nil {
		return nil, err
	}
	return (&comparer{base: base, head: head, lc: lc}).replay(c, runs, runs, true), nil
}

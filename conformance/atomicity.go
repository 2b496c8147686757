package conformance

import (
	"bytes"
	"cmp"
	"crypto/tls"
	"fmt"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
	"go.uber.org/goleak"
)

// Sizes of the atomicity check. Every configuration holds every name of the
// pool in its own variant, so a store that publishes entry by entry serves
// a mix of variants while it updates.
const (
	atomCerts    = 16  // certificates per configuration
	atomVariants = 4   // configuration k uses variant k % atomVariants
	atomUpdates  = 160 // configurations the writer applies
	atomGenReads = 1   // readers checking whole generations (Current)
	atomDirect   = 1   // readers calling Store.Certificate
	atomMaxError = 10  // failures reported before the rest are only counted
)

var atomStores = []string{storeDefault, "edge"}

// leafID says which certificate of the atomicity pool a leaf is.
type leafID struct {
	variant int
	index   int    // certificate index, or -1 for a store's default
	store   string // the store whose default it is, when index is -1
}

func (id leafID) String() string {
	if id.index < 0 {
		return fmt.Sprintf("variant %d default of store %q", id.variant, id.store)
	}
	return fmt.Sprintf("variant %d of certificate %d", id.variant, id.index)
}

// atomProbe is one lookup of the atomicity check and the certificate index
// certstore.Match says it serves (-1: the store's default).
type atomProbe struct {
	store, sni string
	want       int
}

type atomFixtures struct {
	cfgs   []*certstore.Config // by variant
	probes []atomProbe
	leaves map[string]leafID // leaf DER -> which
}

var loadAtom = sync.OnceValues(makeAtomFixtures)

func makeAtomFixtures() (*atomFixtures, error) {
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: seed + 1, Count: atomCerts, MaxSANs: 3, WildcardEvery: 4, Domain: "atom.example"})
	if err != nil {
		return nil, err
	}
	a := &atomFixtures{leaves: map[string]leafID{}}
	storesOf := func(i int) []string {
		switch i % 3 {
		case 0:
			return []string{storeDefault, "edge"}
		case 1:
			return nil
		}
		return []string{"edge"}
	}
	var names [][]string // by certificate index, from variant 0
	for v := range atomVariants {
		cfg := &certstore.Config{Stores: map[string]certstore.StoreConfig{}}
		for i := range atomCerts {
			f := pool.Certs[i]
			if v > 0 {
				if f, err = pool.Renewed(i, v); err != nil {
					return nil, err
				}
			}
			c, err := newCert(fmt.Sprint(i), f.Pair)
			if err != nil {
				return nil, err
			}
			if v == 0 {
				names = append(names, c.names)
			}
			a.leaves[string(c.leaf)] = leafID{variant: v, index: i}
			cfg.Certificates = append(cfg.Certificates, certstore.Certificate{KeyPair: f.Pair, Stores: storesOf(i)})
		}
		for si, st := range atomStores {
			pair, err := pool.Issuer().Issue(certgen.Leaf{
				Serial:   1<<40 + uint64(v)<<8 + uint64(si),
				DNSNames: []string{fmt.Sprintf("default-v%d-%s.certbench.invalid", v, st)},
			})
			if err != nil {
				return nil, err
			}
			c, err := newCert("default", pair)
			if err != nil {
				return nil, err
			}
			a.leaves[string(c.leaf)] = leafID{variant: v, index: -1, store: st}
			cfg.Stores[st] = certstore.StoreConfig{DefaultCertificate: &pair}
		}
		a.cfgs = append(a.cfgs, cfg)
	}
	if len(a.leaves) != atomVariants*(atomCerts+len(atomStores)) {
		return nil, fmt.Errorf("conformance: atomicity pool has %d distinct leaves, want %d", len(a.leaves), atomVariants*(atomCerts+len(atomStores)))
	}

	a.addProbes(names)
	return a, nil
}

// addProbes adds every name (one under each wildcard) and two misses, in
// every store, with what certstore.Match serves.
func (a *atomFixtures) addProbes(names [][]string) {
	snis := []string{miss, ""}
	for _, ns := range names {
		for _, n := range ns {
			if strings.HasPrefix(n, "*.") {
				n = "w" + n[1:]
			}
			snis = append(snis, n)
		}
	}
	for _, st := range atomStores {
		for _, sni := range snis {
			want := matchIndex(a.cfgs[0].Certificates, st, sni, func(i int) []string { return names[i] })
			a.probes = append(a.probes, atomProbe{store: st, sni: sni, want: want})
		}
	}
}

// classify says which variant a lookup result is, or what is wrong with it.
func (a *atomFixtures) classify(c *tls.Certificate, err error, p atomProbe) (int, string) {
	if err != nil {
		return -1, fmt.Sprintf("error %v", err)
	}
	leaf := leafOf(c)
	if leaf == nil {
		return -1, "no certificate and no error"
	}
	id, ok := a.leaves[string(leaf)]
	switch {
	case !ok:
		return -1, "a certificate of no configuration the writer applied"
	case id.index != p.want:
		want := fmt.Sprintf("certificate %d", p.want)
		if p.want < 0 {
			want = fmt.Sprintf("the default of store %q", p.store)
		}
		return id.variant, fmt.Sprintf("%s; every configuration serves %s", id, want)
	case id.index < 0 && id.store != p.store:
		return id.variant, fmt.Sprintf("%s; want the default of store %q", id, p.store)
	}
	return id.variant, ""
}

// reporter collects failures from goroutines, reporting the first few.
type reporter struct {
	t      rt
	n      atomic.Int64
	failed atomic.Bool
}

func (r *reporter) errorf(format string, args ...any) {
	r.failed.Store(true)
	if r.n.Add(1) <= atomMaxError {
		r.t.Errorf(format, args...)
	}
}

func (r *reporter) finish() {
	if n := r.n.Load(); n > atomMaxError {
		r.t.Errorf("... and %d more failures of the same kind", n-atomMaxError)
	}
}

func (su *suite) testAtomicity(t rt) {
	a, err := loadAtom()
	if err != nil {
		t.Fatalf("conformance: making the atomicity pool: %v", err)
	}
	ar := &atomRun{a: a, s: su.newStore(t), rep: &reporter{t: t}, stop: make(chan struct{})}
	su.mustUpdate(t, ar.s, ar.cfgFor(0))

	var ready, done sync.WaitGroup
	for r := range atomGenReads {
		ready.Add(1)
		done.Go(func() { ar.readGenerations(r, &ready) })
	}
	for r := range atomDirect {
		ready.Add(1)
		done.Go(func() { ar.readDirect(r, &ready) })
	}
	ready.Wait()
	updates := ar.write()
	done.Wait()
	ar.rep.finish()
	t.Logf("%d updates of %d certificates in %d stores; %d generation passes of %d lookups, %d direct lookups",
		updates, atomCerts, len(atomStores), ar.genPasses.Load(), len(a.probes), ar.direct.Load())
}

// atomRun is a writer applying whole configurations while readers look up.
type atomRun struct {
	a         *atomFixtures
	s         certstore.Store
	rep       *reporter
	stop      chan struct{} // closed when the writer is done
	genPasses atomic.Int64  // passes of the generation readers
	direct    atomic.Int64  // lookups of the direct readers
}

// cfgFor returns configuration k: its own Config over shared bytes.
func (ar *atomRun) cfgFor(k int) *certstore.Config {
	c := *ar.a.cfgs[k%atomVariants]
	c.Certificates = append([]certstore.Certificate(nil), c.Certificates...)
	return &c
}

// going reports whether the writer is not done and nothing failed.
func (ar *atomRun) going() bool {
	select {
	case <-ar.stop:
		return false
	default:
		return !ar.rep.failed.Load()
	}
}

// hellos returns a hello a probe, made before the lookups start.
func (ar *atomRun) hellos() []*tls.ClientHelloInfo {
	hs := make([]*tls.ClientHelloInfo, len(ar.a.probes))
	for i, p := range ar.a.probes {
		hs[i] = &tls.ClientHelloInfo{ServerName: p.sni}
	}
	return hs
}

// guard, deferred, reports a store's panic in what.
func (ar *atomRun) guard(what string) {
	if v := recover(); v != nil {
		ar.rep.errorf("store panicked in %s: %v", what, v)
	}
}

// readGenerations checks that all lookups in one held generation come from
// one configuration.
func (ar *atomRun) readGenerations(r int, ready *sync.WaitGroup) {
	defer ar.guard("a lookup on a held generation")
	a := ar.a
	hs := ar.hellos()
	ready.Done()
	for pass := 0; ar.going(); pass++ {
		g := ar.s.Current()
		first, firstAt := -1, -1
		// Start each pass elsewhere, so that every probe meets every other.
		off := (pass*7 + r*13) % len(a.probes)
		for j := range a.probes {
			i := (off + j) % len(a.probes)
			p := a.probes[i]
			c, err := g.Certificate(p.store, hs[i])
			v, problem := a.classify(c, err, p)
			if problem != "" {
				ar.rep.errorf("Current().Certificate(%q, %q) on a held generation: %s", p.store, p.sni, problem)
			}
			if v < 0 {
				continue
			}
			if first < 0 {
				first, firstAt = v, i
			} else if v != first {
				q := a.probes[firstAt]
				ar.rep.errorf("one generation mixes two configurations: Certificate(%q, %q) served variant %d, "+
					"but Certificate(%q, %q) on the same held generation served variant %d", p.store, p.sni, v, q.store, q.sni, first)
				break
			}
		}
		ar.genPasses.Add(1)
	}
}

// readDirect checks that every lookup comes from some whole configuration.
func (ar *atomRun) readDirect(r int, ready *sync.WaitGroup) {
	defer ar.guard("Store.Certificate")
	hs := ar.hellos()
	ready.Done()
	for i := r; ar.going(); i++ {
		k := i % len(ar.a.probes)
		p := ar.a.probes[k]
		c, err := ar.s.Certificate(p.store, hs[k])
		if _, problem := ar.a.classify(c, err, p); problem != "" {
			ar.rep.errorf("Store.Certificate(%q, %q) during updates: %s", p.store, p.sni, problem)
		}
		ar.direct.Add(1)
	}
}

// write applies configurations, each visible once Update returns, then
// stops the readers; it returns the updates applied.
func (ar *atomRun) write() (updates int) {
	defer close(ar.stop)
	defer ar.guard("Update or a lookup after it")
	hs := ar.hellos()
	for k := 1; k <= atomUpdates && !ar.rep.failed.Load(); k++ {
		if err := ar.s.Update(ar.cfgFor(k)); err != nil {
			ar.rep.errorf("Update %d rejected a valid configuration: %v", k, err)
			return updates
		}
		updates++
		want := k % atomVariants
		g := ar.s.Current()
		for i, p := range ar.a.probes {
			for _, v := range []via{{"Current().Certificate", g}, {"Store.Certificate", ar.s}} {
				if v.name == "Store.Certificate" && i%4 != 0 {
					continue
				}
				c, err := v.l.Certificate(p.store, hs[i])
				got, problem := ar.a.classify(c, err, p)
				if problem == "" && got != want {
					problem = fmt.Sprintf("variant %d; the Update that just returned applied variant %d", got, want)
				}
				if problem != "" {
					ar.rep.errorf("right after Update %d returned, %s(%q, %q): %s", k, v.name, p.store, p.sni, problem)
				}
			}
		}
		runtime.Gosched()
	}
	return updates
}

// Goroutine check.
const (
	goroutineRefreshes = 1000
	goroutineSlack     = 5
	goroutineSettle    = 2 * time.Second
)

// refreshConfigs are two valid configurations of two stores, each with a
// configured default, for rules that refresh many times.
func (su *suite) refreshConfigs() []*certstore.Config {
	c := su.fx.certs
	config := func(cert, def string) *certstore.Config {
		return &certstore.Config{
			Certificates: []certstore.Certificate{c[cert].entry(storeDefault, storeShop)},
			Stores: map[string]certstore.StoreConfig{
				storeDefault: {DefaultCertificate: c[def].pairPtr()},
				storeShop:    {DefaultCertificate: c[lDefaultShop].pairPtr()},
			},
		}
	}
	return []*certstore.Config{config(lGood2, lDefault), config(lGood3, lDefaultAlt)}
}

// testGoroutines checks that goroutines do not grow over refreshes and
// that none the store started is left after Close. Growth is counted, not
// found with goleak: a store may replace its goroutines on every Update,
// so "one started since is still running" holds of a store that does not
// grow. After Close, goleak.Find names what is left.
func (su *suite) testGoroutines(t rt) {
	cfgs := su.refreshConfigs()
	running := goleak.IgnoreCurrent() // the goroutines from before the store
	s := su.openStore(t)
	closer, _ := s.(certstore.Closer)
	closed := false
	if closer != nil {
		t.Cleanup(func() {
			if !closed {
				closeStore(t, closer)
			}
		})
	}
	su.mustUpdate(t, s, cfgs[0])
	su.lookup(t, s, storeShop, "good2.example.com")
	before := settle(nil, settleBrief)
	for i := 1; i <= goroutineRefreshes; i++ {
		if err := su.update(t, s, cfgs[i%2]); err != nil {
			t.Fatalf("refresh %d: Update rejected a valid configuration: %v", i, err)
		}
		su.lookup(t, su.current(t, s), storeDefault, "good2.example.com")
		su.lookup(t, s, storeShop, miss)
	}
	after := settle(func(st settled) bool { return st.goroutines <= before.goroutines+goroutineSlack }, goroutineSettle)
	if after.goroutines > before.goroutines+goroutineSlack {
		t.Errorf("goroutines grew from %d to %d over %d refreshes (allowed: %d more); running more than before: %s",
			before.goroutines, after.goroutines, goroutineRefreshes, goroutineSlack, after.running.grown(before.running))
	}
	if closer == nil {
		return
	}
	closed = true
	if !closeStore(t, closer) {
		return
	}
	if err := goleak.Find(running); err != nil {
		t.Errorf("goroutines the store started are still running after Close: %s", clip(err.Error(), 6000, "\n..."))
	}
}

// clip cuts s to n bytes for a failure message, marking the cut with more.
func clip(s string, n int, more string) string {
	if len(s) > n {
		return s[:n] + more
	}
	return s
}

// settleBrief is how long a baseline settles: long enough for goroutines
// that are ending to end.
const settleBrief = 50 * time.Millisecond

// settled is the process after collections: its goroutines, by function,
// and its live heap.
type settled struct {
	goroutines int
	heap       int64 // /gc/heap/live:bytes after the collections
	running    census
}

// settle collects garbage, so that cleanups and finalizers run and what
// they free is collected in turn, until done holds or wait has passed (done
// nil: until wait has passed), and returns the process then.
func settle(done func(settled) bool, wait time.Duration) settled {
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	deadline := time.Now().Add(wait)
	for {
		runtime.GC()
		runtime.GC()
		metrics.Read(live)
		st := settled{goroutines: runtime.NumGoroutine(), heap: int64(live[0].Value.Uint64())}
		if (done != nil && done(st)) || time.Now().After(deadline) {
			st.running = takeCensus() // then counted in the heap, as it stays
			runtime.GC()
			metrics.Read(live)
			st.heap = int64(live[0].Value.Uint64())
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// census counts the running goroutines by their function (the bottom frame
// of the stack) and the function that started them.
type census map[string]int

// takeCensus reads every goroutine's stack.
func takeCensus() census {
	var buf bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&buf, 2)
	c := census{}
	for _, g := range strings.Split(buf.String(), "\n\n") {
		fn, by := "", ""
		for _, line := range strings.Split(g, "\n")[1:] {
			switch {
			case strings.HasPrefix(line, "\t"), strings.HasPrefix(line, "runtime.goexit("):
			case strings.HasPrefix(line, "created by "):
				by, _, _ = strings.Cut(strings.TrimPrefix(line, "created by "), " in goroutine ")
			default:
				if i := strings.LastIndex(line, "("); i > 0 {
					fn = line[:i]
				}
			}
		}
		if fn == "" {
			continue
		}
		if by != "" {
			fn += " (started by " + by + ")"
		}
		c[fn]++
	}
	return c
}

// grown lists the functions that more goroutines run than in before, most
// first: "64 × pkg.janitor (started by pkg.(*Store).Update)".
func (c census) grown(before census) string {
	var keys []string
	for k, n := range c {
		if n > before[k] {
			keys = append(keys, k)
		}
	}
	more := func(k string) int { return c[k] - before[k] }
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(more(b)-more(a), strings.Compare(a, b)) })
	if len(keys) == 0 {
		return "no function (other goroutines ended as these started)"
	}
	var out []string
	for i, k := range keys {
		if i == 10 {
			out = append(out, fmt.Sprintf("and %d more functions", len(keys)-i))
			break
		}
		out = append(out, fmt.Sprintf("%d × %s", more(k), k))
	}
	return strings.Join(out, "; ")
}

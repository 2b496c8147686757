package bench_test

import (
	"bytes"
	"crypto/tls"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
)

// matchStore is a small correct store for any configuration: it parses
// everything on every update and answers by certstore.Match, serving each
// store's configured default on a miss.
type matchStore struct{ cur atomic.Pointer[matchGen] }

type matchGen struct {
	certs []*tls.Certificate
	names map[string][][]string // store -> names of its certificates, in order
	index map[string][]int      // store -> indexes into certs
	def   map[string]*tls.Certificate
}

func newMatch() certstore.Store { return &matchStore{} }

func (s *matchStore) Update(cfg *certstore.Config) error {
	g := &matchGen{names: map[string][][]string{}, index: map[string][]int{}, def: map[string]*tls.Certificate{}}
	for i := range cfg.Certificates {
		c, err := tls.X509KeyPair(cfg.Certificates[i].CertPEM, cfg.Certificates[i].KeyPEM)
		if err != nil {
			return err
		}
		g.certs = append(g.certs, &c)
		for _, st := range certstore.StoresOf(&cfg.Certificates[i]) {
			g.names[st] = append(g.names[st], certstore.Names(c.Leaf))
			g.index[st] = append(g.index[st], i)
		}
	}
	for name, sc := range cfg.Stores {
		if sc.DefaultCertificate != nil {
			c, err := tls.X509KeyPair(sc.DefaultCertificate.CertPEM, sc.DefaultCertificate.KeyPEM)
			if err != nil {
				return err
			}
			g.def[name] = &c
		}
	}
	s.cur.Store(g)
	return nil
}

func (g *matchGen) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if i := certstore.Match(g.names[store], hello.ServerName); i >= 0 {
		return g.certs[g.index[store][i]], nil
	}
	if d := g.def[store]; d != nil {
		return d, nil
	}
	return nil, certstore.ErrNoCertificate
}

func (s *matchStore) Current() certstore.Generation { return s.cur.Load() }

func (s *matchStore) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.cur.Load().Certificate(store, hello)
}

// wrongName serves, for every name, the certificate of another name: the
// lookups a store with a broken index would make.
type wrongName struct{ matchStore }

func (s *wrongName) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	h := *hello
	h.ServerName = "x" + hello.ServerName // a miss: the default, whatever was asked
	return s.matchStore.Certificate(store, &h)
}

// blocking is a store whose lookups wait for its updates, as a store that
// rebuilds in place under a lock would. Once the first configuration and
// bench.HandshakeWarmup refreshes are applied (the churn phase), a lookup
// returns only after an Update that started after the lookup has finished;
// every Update takes at least delay, so every such lookup waits at least
// delay, however the machine schedules the goroutines. The churn phase's
// refresher runs back to back, so the wait is bounded.
type blocking struct {
	inner matchStore
	delay time.Duration

	mu                sync.Mutex
	changed           *sync.Cond // on mu: finished grew
	started, finished int        // Updates started and finished
}

func newBlocking(delay time.Duration) *blocking {
	s := &blocking{delay: delay}
	s.changed = sync.NewCond(&s.mu)
	return s
}

func (s *blocking) Update(cfg *certstore.Config) error {
	s.mu.Lock()
	s.started++
	mine := s.started
	s.mu.Unlock()
	time.Sleep(s.delay)
	err := s.inner.Update(cfg)
	s.mu.Lock()
	s.finished = mine
	s.changed.Broadcast()
	s.mu.Unlock()
	return err
}

func (s *blocking) Current() certstore.Generation { return s.inner.Current() }

func (s *blocking) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	s.mu.Lock()
	if s.finished >= 1+bench.HandshakeWarmup {
		for next := s.started + 1; s.finished < next; {
			s.changed.Wait()
		}
	}
	s.mu.Unlock()
	return s.inner.Certificate(store, hello)
}

// smallHandshake returns the named handshake scenario made small enough
// for -race: 60 certificates, short phases.
func smallHandshake(t *testing.T, name string, ops int, d time.Duration) *scenarios.Workload {
	t.Helper()
	sc := scenario(t, name)
	sc.Pool.Count = 60
	sc.Ops = ops
	sc.Duration = d
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func extra(s bench.Sample) map[string]float64 {
	m := map[string]float64{}
	for _, v := range s.Extra {
		m[v.Unit] = v.Value
	}
	return m
}

func TestHandshakeCorrectStore(t *testing.T) {
	// The phases end by count: the duration only bounds them, and must
	// not end them first however loaded the machine (300 handshakes
	// under -race took 6 s at a load of 27 on 2 cores).
	w := smallHandshake(t, "handshake-1000", 300, 10*time.Minute)
	s, err := bench.Measure(newMatch, "match", w)
	if err != nil {
		t.Fatal(err)
	}
	got := extra(s)
	if got[results.UnitErrors] != 0 {
		t.Errorf("errors = %v for a correct store", got[results.UnitErrors])
	}
	if s.Ops != 300 {
		t.Errorf("%d handshakes, want the 300 of the bound", s.Ops)
	}
	if !(got[results.UnitHandshakes] > 0) || !(s.NsPerOp > 0) {
		t.Errorf("handshakes/s %v, ns/op %v", got[results.UnitHandshakes], s.NsPerOp)
	}
	ps := []string{results.UnitHandshakeP50, results.UnitHandshakeP90, results.UnitHandshakeP99, results.UnitHandshakeP999, results.UnitHandshakeMax}
	for i, u := range ps {
		if !(got[u] > 0) || i > 0 && got[u] < got[ps[i-1]] {
			t.Errorf("%s = %v (percentiles %v)", u, got[u], got)
		}
	}
	if f := got[results.UnitGCFraction]; f < 0 || f > 1 {
		t.Errorf("gc-cpu-fraction %v", f)
	}
	if got[results.UnitGCPauseMax] < got[results.UnitGCPauseP99] {
		t.Errorf("GC pause max %v < p99 %v", got[results.UnitGCPauseMax], got[results.UnitGCPauseP99])
	}
	if _, ok := got[results.UnitP99ChurnRatio]; ok {
		t.Error("a scenario without churn reports a churn ratio")
	}

	var buf bytes.Buffer
	wr := results.NewWriter(&buf)
	if err := wr.Write(s); err != nil {
		t.Fatal(err)
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Unit handshakes/s better=higher", "Unit handshake-p99-ns better=lower", "Unit errors better=lower", "Unit gc-cpu-ns/op better=lower"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("written file lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestHandshakeWrongCertificate: a store that serves the wrong
// certificate fails the clients' verification, and the failures are
// counted, not taken for handshakes.
func TestHandshakeWrongCertificate(t *testing.T) {
	w := smallHandshake(t, "handshake-1000", 200, 10*time.Minute) // ended by the count
	s, err := bench.Measure(func() certstore.Store { return &wrongName{} }, "wrong", w)
	if err != nil {
		t.Fatal(err) // the misses still succeed: it is a sample, with errors
	}
	got := extra(s)
	// Six hellos in ten are exact hits, served the default instead (the
	// wildcard hits still match their wildcard); handshakes that resume
	// follow only successful full ones. So about half fail.
	if s.Ops != 200 {
		t.Errorf("%d handshakes, want the 200 of the bound", s.Ops)
	}
	if e := got[results.UnitErrors]; e < 0.4*float64(s.Ops) {
		t.Errorf("errors = %v of %d handshakes for a store serving the wrong certificates, want most", e, s.Ops)
	}
}

// TestHandshakeBlockingStore: a store whose lookups wait for its updates
// shows it in the churn phase's latencies. It asserts what the
// construction guarantees whatever the machine's load: every churn-phase
// lookup waits for a whole Update (see blocking), and fewer than half the
// handshakes resume a TLS 1.3 session (the only ones that make no lookup),
// so the churn phase's p50 and p99 are at least delay. The churn-free
// phase's p99 is not bounded (it depends on the load), so the ratio of the
// two is checked as computed from them, not against a threshold.
func TestHandshakeBlockingStore(t *testing.T) {
	const delay = 100 * time.Millisecond
	sc := scenario(t, "handshake-under-renew-1-of-10000")
	sc.Pool.Count = 60
	sc.Ops = 10                    // the phases end by count
	sc.Duration = 10 * time.Minute // only a bound, never reached
	sc.Handshake.RefreshEvery = 0  // back to back
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := bench.Measure(func() certstore.Store { return newBlocking(delay) }, "blocking", w)
	if err != nil {
		t.Fatal(err)
	}
	got := extra(s)
	if got[results.UnitErrors] != 0 || s.Ops != sc.Ops {
		t.Fatalf("errors = %v, %d handshakes, want 0 errors in the %d of the bound", got[results.UnitErrors], s.Ops, sc.Ops)
	}
	for _, u := range []string{results.UnitHandshakeP50, results.UnitHandshakeP99} {
		if v := got[u]; !(v >= float64(delay)) {
			t.Errorf("%s = %v under churn, want at least %v: lookups wait for a whole update (%v)", u, time.Duration(v), delay, got)
		}
	}
	calm := got[results.UnitCalmP99]
	if !(calm > 0) {
		t.Fatalf("calm-handshake-p99-ns = %v, want > 0", calm)
	}
	if r, want := got[results.UnitP99ChurnRatio], got[results.UnitHandshakeP99]/calm; math.Abs(r-want) > 1e-9*want {
		t.Errorf("p99-churn-ratio = %v, want handshake-p99-ns / calm-handshake-p99-ns = %v", r, want)
	}
	// Each update sleeps for delay, so a phase of length d completes at
	// most d/delay of them, plus one the refresher may start just before
	// the phase's clock: at most 1/delay + 1/d per second. d is the
	// phase's handshakes over its handshakes/s.
	d := float64(s.Ops) / got[results.UnitHandshakes]
	most := 1/delay.Seconds() + 1/d
	if r := got[results.UnitRefreshRate]; !(r > 0) || r > most {
		t.Errorf("refreshes/s = %v, want > 0 and at most %v (a %.3gs phase)", r, most, d)
	}
}

package bench

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchfmt"
)

// HandshakeGrace is how long a handshake may run past a phase's Duration
// before its connection is closed, so a phase ends even if a lookup hangs.
const HandshakeGrace = 10 * time.Second

// HandshakeWarmup is the refreshes a Handshake churn phase applies alone
// first, to measure what one allocates.
const HandshakeWarmup = 1

// WarmupHandshakes is the untimed handshakes per client before the first
// phase: a process's first ones pay one-time initialisation, which would
// set the phase's p99.9.
const WarmupHandshakes = 4

// hsRun says what runHandshakes does.
type hsRun struct {
	handshakes int           // split evenly over the clients
	duration   time.Duration // bounds the phase; 0: only the count does
	// churn runs renew-1 refreshes alongside, every refreshEvery (0: back
	// to back), from step (scenarios.ChurnStep).
	churn        bool
	refreshEvery time.Duration
	step         int
	ctl          *sampleCtl // when not nil, stops the phase (errStopped) and catches panics
}

// hsResult is what one phase measured.
type hsResult struct {
	attempts  int           // handshakes started
	succeeded int           // handshakes that completed and verified
	errors    int           // handshakes that failed, on either end
	resumed   int           // succeeded handshakes that resumed a session
	misses    int           // succeeded handshakes served the default
	firstErr  error         // the first handshake error, for messages
	latSum    time.Duration // summed latency of the succeeded handshakes
	elapsed   time.Duration // wall time of the phase
	refreshes int           // refreshes completed within the phase
	applied   int           // refreshes applied in all
	latencies []int64       // latencies of succeeded handshakes in ns, sorted (thinned past maxLatencies)
}

// rate returns succeeded handshakes per second.
func (r *hsResult) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.succeeded) / r.elapsed.Seconds()
}

// shareAt reports whether the i-th of a sequence belongs to a share
// (0..1) spread evenly over it: floor((i+1)s) > floor(is).
func shareAt(i int, share float64) bool {
	if share <= 0 {
		return false
	}
	return math.Floor(float64(i+1)*share) > math.Floor(float64(i)*share)
}

// recordingCache is a session cache for full handshakes: it hands out no
// session (so the handshake is full) and records the sessions the server
// issues in the client's real cache, for its resumed handshakes.
type recordingCache struct{ into tls.ClientSessionCache }

func (c recordingCache) Get(string) (*tls.ClientSessionState, bool) { return nil, false }
func (c recordingCache) Put(key string, cs *tls.ClientSessionState) {
	if cs != nil {
		c.into.Put(key, cs)
	}
}

// hsClient is one client of a phase: its session cache and the names it
// holds sessions for.
type hsClient struct {
	ctl     *sampleCtl
	w       *scenarios.Workload
	roots   *x509.CertPool
	server  *tls.Config
	cache   tls.ClientSessionCache
	record  recordingCache
	recent  [8]recentName
	nrecent int
}

// recentName is a name a client made a full handshake to, and at what version.
type recentName struct {
	name    string
	version uint16
}

// errWrongDefault is a miss that was not served the configured default.
var errWrongDefault = errors.New("a hello that matches no certificate was not served the store's configured default")

// verifyDefault is the VerifyConnection of a miss's handshake: the chain
// must verify against the issuer (for no particular name) and its leaf
// must be the configured default, byte for byte.
func (c *hsClient) verifyDefault(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return errWrongDefault
	}
	leaf := cs.PeerCertificates[0]
	inter := x509.NewCertPool()
	for _, ic := range cs.PeerCertificates[1:] {
		inter.AddCert(ic)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: c.roots, Intermediates: inter}); err != nil {
		return fmt.Errorf("default certificate: %w", err)
	}
	if !bytes.Equal(leaf.Raw, c.w.DefaultLeaf) {
		return fmt.Errorf("%w (got %q)", errWrongDefault, leaf.Subject.CommonName)
	}
	return nil
}

// hsOne is the outcome of one handshake.
type hsOne struct {
	lat     time.Duration // the client's handshake, from its start to its end
	tried   bool          // it offered a session (and used no hello of the mix)
	resumed bool          // the server resumed the session
	miss    bool          // the hello matched no certificate
}

// one makes handshake i of the client, to hello j (unless it offers a
// session, for the name of a recent full handshake).
func (c *hsClient) one(ctx context.Context, i, j int) (o hsOne, err error) {
	sp := c.w.Scenario.Handshake
	version := uint16(tls.VersionTLS13)
	if shareAt(i, sp.TLS12Share) {
		version = tls.VersionTLS12
	}
	cfg := &tls.Config{RootCAs: c.roots, MinVersion: version, MaxVersion: version}
	if o.tried = shareAt(i+1, sp.ResumeShare) && c.nrecent > 0; o.tried {
		r := c.recent[(c.nrecent-1)%len(c.recent)]
		cfg.ServerName, cfg.MinVersion, cfg.MaxVersion = r.name, r.version, r.version
		cfg.ClientSessionCache = c.cache
	} else {
		h := c.w.Hellos[j]
		cfg.ServerName = h.ServerName
		cfg.ClientSessionCache = c.record
		if o.miss = c.w.Misses[j]; o.miss {
			cfg.InsecureSkipVerify = true // verified by verifyDefault instead
			cfg.VerifyConnection = c.verifyDefault
		}
	}

	cc, sc := memPipe()
	served := make(chan error, 1)
	go func() {
		err := errors.New("the server goroutine panicked")
		defer func() { served <- err }()
		defer sc.Close() // after a panic, for the client to see the end
		defer c.ctl.catch(callGetCert)
		srv := tls.Server(sc, c.server)
		err = srv.HandshakeContext(ctx)
		if err == nil {
			_, err = srv.Write([]byte{1})
		}
		srv.Close()
	}()
	client := tls.Client(cc, cfg)
	t0 := time.Now()
	err = client.HandshakeContext(ctx)
	o.lat = time.Since(t0)
	if err == nil {
		// The byte the server writes after its handshake; reading it
		// takes in the TLS 1.3 session tickets sent before it.
		// The byte may come with the server's close_notify: n == 1 with
		// io.EOF is a success.
		var b [1]byte
		if n, rerr := client.Read(b[:]); n != 1 {
			err = fmt.Errorf("reading the server's first byte: %w", rerr)
		}
	}
	o.resumed = err == nil && client.ConnectionState().DidResume
	client.Close()
	if serr := <-served; serr != nil {
		if err == nil {
			err = fmt.Errorf("server: %w", serr)
		} else {
			err = fmt.Errorf("%w (server: %v)", err, serr)
		}
	}
	if err != nil {
		return o, fmt.Errorf("handshake %q (TLS %x): %w", cfg.ServerName, version, err)
	}
	if !o.miss && !o.tried {
		c.recent[c.nrecent%len(c.recent)] = recentName{cfg.ServerName, version}
		c.nrecent++
	}
	return o, nil
}

// serverConfig returns the TLS configuration of a Handshake workload's
// server: its certificates come from the store, nothing else.
func serverConfig(store certstore.Store, w *scenarios.Workload) *tls.Config {
	return &tls.Config{
		GetCertificate: certstore.GetCertificateFunc(store, w.Store),
		MinVersion:     tls.VersionTLS12,
	}
}

// runHandshakes runs one phase of a Handshake workload: the clients share
// r.handshakes, each over a new in-memory connection and server goroutine,
// until done or r.duration is over (at least one each), with r.churn a
// refresher alongside. Failed handshakes are counted; the error is for the
// phase (a failed refresh, a stop).
func runHandshakes(store certstore.Store, w *scenarios.Workload, server *tls.Config, r hsRun) (hsResult, error) {
	var res hsResult
	if len(w.Hellos) == 0 || len(w.Hellos) != len(w.Misses) || w.Issuer == nil {
		return res, errors.New("handshake workload has no hellos or no issuer")
	}
	g := workers(w.Scenario.Handshake.Clients, r.handshakes)
	roots := x509.NewCertPool()
	roots.AddCert(w.Issuer)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var phaseStop atomic.Bool
	if r.duration > 0 {
		t := time.AfterFunc(r.duration, func() { phaseStop.Store(true) })
		defer t.Stop()
		t2 := time.AfterFunc(r.duration+HandshakeGrace, cancel)
		defer t2.Stop()
	}

	var ref *refresher
	if r.churn {
		ref = startRefresher(store, w, r.step, r.refreshEvery, r.ctl, &phaseStop)
	}
	clients := make([]hsClientResult, g)
	start := time.Now()
	spread(g, r.handshakes, func(ci, quota int) {
		cache := tls.NewLRUClientSessionCache(64)
		c := &hsClient{ctl: r.ctl, w: w, roots: roots, server: server, cache: cache, record: recordingCache{cache}}
		clients[ci].lat = newLatencies(quota, 1, g)
		c.run(ctx, &clients[ci], quota, ci*len(w.Hellos)/g, &phaseStop)
	})
	res.elapsed = time.Since(start)
	var err error
	if ref != nil {
		res.refreshes, res.applied, err = ref.end()
	}
	for _, pc := range clients {
		res.add(&pc.hsResult)
		res.latencies = append(res.latencies, pc.lat.lat...)
	}
	slices.Sort(res.latencies)
	if err == nil && r.ctl.stopped() {
		return res, errStopped
	}
	return res, err
}

// hsClientResult is what one client of a phase measured.
type hsClientResult struct {
	hsResult
	lat latencies
}

// run makes up to quota handshakes, starting at hello j, until phaseStop
// or a stop of the sample.
func (c *hsClient) run(ctx context.Context, pc *hsClientResult, quota, j int, phaseStop *atomic.Bool) {
	// The duration is checked from the second handshake on (as runChurn
	// does): a phase has handshakes however late the scheduler starts its
	// clients.
	for i := 0; i < quota && !(i > 0 && phaseStop.Load() || c.ctl.stopped()); i++ {
		o, err := c.one(ctx, i, j)
		pc.attempts++
		if !o.tried {
			if j++; j == len(c.w.Hellos) {
				j = 0
			}
		}
		if err != nil {
			pc.errors++
			pc.firstErr = cmp.Or(pc.firstErr, err)
			continue
		}
		pc.succeeded++
		pc.latSum += o.lat
		if o.resumed {
			pc.resumed++
		}
		if o.miss {
			pc.misses++
		}
		if pc.lat.due() {
			pc.lat.lat = append(pc.lat.lat, int64(o.lat))
		}
	}
}

// add adds a client's counts to r.
func (r *hsResult) add(o *hsResult) {
	r.attempts += o.attempts
	r.succeeded += o.succeeded
	r.errors += o.errors
	r.resumed += o.resumed
	r.misses += o.misses
	r.latSum += o.latSum
	r.firstErr = cmp.Or(r.firstErr, o.firstErr)
}

// hsPhase is one measured phase: its handshakes, what the window
// allocated (process-wide) and what GC cost in it.
type hsPhase struct {
	hsResult
	bytes, allocs uint64
	gc            gcCost
}

// handshakePhase runs one phase between a forced GC and the allocation
// and GC readings (see gcMeter), none of which falls in the phase.
func handshakePhase(store certstore.Store, w *scenarios.Workload, server *tls.Config, r hsRun) (p hsPhase, err error) {
	meter := startGCMeter()
	p.bytes, p.allocs = allocated(func() { p.hsResult, err = runHandshakes(store, w, server, r) })
	p.gc = meter.stop()
	return p, err
}

// measureHandshake measures one sample of a Handshake workload: the store
// serves GetCertificate; phase one makes Ops handshakes, a hit verified as
// a browser does, a miss required to get the configured default. With
// HandshakeSpec.Churn phase two repeats it under renew-1 refreshes and the
// figures are phase two's, with phase one's and their ratios. Allocation
// is per handshake attempted, under churn less the refreshes' share. No
// handshake succeeding is an error naming the first failure.
func measureHandshake(newStore certstore.Factory, storeName string, w *scenarios.Workload, ctl *sampleCtl) (Sample, error) {
	var ph hsPhases
	return measureWindow(newStore, storeName, w, ctl, func(store certstore.Store) error {
		return ph.run(store, w, ctl)
	}, func(s *Sample) error { return ph.fill(s, w.Scenario.Handshake.Churn) })
}

// hsPhases is what the phases of one Handshake sample measured.
type hsPhases struct {
	calm, churned               hsPhase
	refreshBytes, refreshAllocs float64 // what one warmup refresh allocated
	warmErrors                  int     // failed warmup handshakes
	warmFirst                   error   // the first of them
}

// run makes the warmup handshakes and the phases on store, which holds
// w.Configs[0].
func (p *hsPhases) run(store certstore.Store, w *scenarios.Workload, ctl *sampleCtl) error {
	sp := w.Scenario.Handshake
	ctl.mark(callHandshakes, 0, 0)
	server := serverConfig(store, w)
	clients := workers(sp.Clients, math.MaxInt)
	warm, err := runHandshakes(store, w, server, hsRun{handshakes: WarmupHandshakes * clients, duration: w.Scenario.Duration, ctl: ctl})
	p.warmErrors, p.warmFirst = warm.errors, warm.firstErr
	if err != nil {
		return err
	}
	run := hsRun{handshakes: w.Scenario.Ops, duration: w.Scenario.Duration, ctl: ctl}
	if p.calm, err = handshakePhase(store, w, server, run); err != nil || !sp.Churn {
		return err
	}
	if p.refreshBytes, p.refreshAllocs, err = warmupRefreshes(store, w, HandshakeWarmup, ctl); err != nil {
		return err
	}
	ctl.mark(callHandshakes, 0, 0)
	run.churn, run.refreshEvery, run.step = true, sp.RefreshEvery, HandshakeWarmup+1
	p.churned, err = handshakePhase(store, w, server, run)
	return err
}

// fill sets the sample's figures from the phase reported (the churn phase
// when churn). It is an error when no handshake of it succeeded.
func (p *hsPhases) fill(s *Sample, churn bool) error {
	calm, churned := &p.calm, &p.churned
	rep := calm
	if churn {
		rep = churned
	}
	errs := p.warmErrors + calm.errors + churned.errors
	if rep.succeeded == 0 || calm.succeeded == 0 {
		return fmt.Errorf("no handshake succeeded (%d failed; first: %v)", errs, cmp.Or(p.warmFirst, calm.firstErr, churned.firstErr))
	}
	n := float64(rep.attempts)
	s.Ops = rep.attempts
	s.NsPerOp = float64(rep.latSum.Nanoseconds()) / float64(rep.succeeded)
	bytes, allocs := float64(rep.bytes), float64(rep.allocs)
	if churn {
		bytes -= float64(rep.applied) * p.refreshBytes
		allocs -= float64(rep.applied) * p.refreshAllocs
	}
	s.BytesPerOp = max(0, bytes) / n
	s.AllocsPerOp = max(0, allocs) / n
	lat := rep.latencies
	s.Extra = []benchfmt.Value{
		{Value: rep.rate(), Unit: results.UnitHandshakes},
		{Value: percentile(lat, 0.50), Unit: results.UnitHandshakeP50},
		{Value: percentile(lat, 0.90), Unit: results.UnitHandshakeP90},
		{Value: percentile(lat, 0.99), Unit: results.UnitHandshakeP99},
		{Value: percentile(lat, 0.999), Unit: results.UnitHandshakeP999},
		{Value: percentile(lat, 1), Unit: results.UnitHandshakeMax},
		{Value: float64(errs), Unit: results.UnitErrors},
	}
	if churn {
		ratio := func(q float64) float64 {
			c := percentile(calm.latencies, q)
			if c <= 0 {
				return 0
			}
			return percentile(lat, q) / c
		}
		s.Extra = append(s.Extra,
			benchfmt.Value{Value: calm.rate(), Unit: results.UnitCalmHandshakes},
			benchfmt.Value{Value: percentile(calm.latencies, 0.99), Unit: results.UnitCalmP99},
			benchfmt.Value{Value: ratio(0.50), Unit: results.UnitP50ChurnRatio},
			benchfmt.Value{Value: ratio(0.99), Unit: results.UnitP99ChurnRatio},
			benchfmt.Value{Value: ratio(0.999), Unit: results.UnitP999ChurnRatio},
			benchfmt.Value{Value: rep.rate() / calm.rate(), Unit: results.UnitThroughputChurnRatio},
			benchfmt.Value{Value: float64(rep.refreshes) / rep.elapsed.Seconds(), Unit: results.UnitRefreshRate},
		)
	}
	s.Extra = append(s.Extra, rep.gc.values(rep.attempts, true)...)
	calm.latencies, churned.latencies = nil, nil
	return nil
}

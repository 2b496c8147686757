package bench

import (
	"cmp"
	"crypto/tls"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchfmt"
)

// LatencySampleEvery is how often a HandshakeUnderChurn lookup is timed on
// its own (the clock is not cheap next to a lookup); coprime with the
// ChurnHellos hellos, so every kind of hello is timed in proportion.
const LatencySampleEvery = 7

// MaxLatencies bounds the latencies a HandshakeUnderChurn sample keeps: a
// goroutine whose buffer fills keeps every other one and times half as
// often, so that any sample length has latencies over its whole window.
const MaxLatencies = 1 << 20

// workers returns the goroutines to split n jobs over: want, or
// GOMAXPROCS when want <= 0, but no more than n and at least 1.
func workers(want, n int) int {
	if want <= 0 {
		want = runtime.GOMAXPROCS(0)
	}
	return max(1, min(want, n))
}

// spread runs job(i, quota) on g goroutines sharing n jobs evenly, each
// from its own offset, and waits for them. The goroutines are spread's
// closures, which the goroutines metric tells from the store's (see
// harnessFrames); hence not wg.Go.
func spread(g, n int, job func(i, quota int)) {
	var wg sync.WaitGroup
	for i := range g {
		quota := n / g
		if i < n%g {
			quota++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			job(i, quota)
		}()
	}
	wg.Wait()
}

// latencies keeps every every-th of a goroutine's latencies, in a buffer
// of bounded size: when it fills, it keeps every other one and keeps half
// as often, so that any window's length has latencies over all of it and
// no allocation falls in the window.
type latencies struct {
	lat              []int64
	every, countdown int
}

// newLatencies returns a buffer for one of g goroutines making quota
// operations, keeping every every-th latency (none when every is 0).
func newLatencies(quota, every, g int) latencies {
	if every <= 0 {
		return latencies{}
	}
	return latencies{lat: make([]int64, 0, min(quota/every+1, max(1024, MaxLatencies/g))), every: every}
}

// due reports whether the next latency is to be kept.
func (l *latencies) due() bool {
	if l.every == 0 {
		return false
	}
	if l.countdown--; l.countdown > 0 {
		return false
	}
	if len(l.lat) == cap(l.lat) {
		n := len(l.lat) / 2
		for i := range n {
			l.lat[i] = l.lat[2*i+1]
		}
		l.lat = l.lat[:n]
		l.every *= 2
	}
	l.countdown = l.every
	return true
}

// refresher applies a churn workload's configurations alongside a window.
type refresher struct {
	refreshed atomic.Int64  // refreshes completed so far
	stop      chan struct{} // closed at the window's end
	done      chan int      // receives the refreshes applied, once stopped
	err       error         // the refresh that failed; read after done
}

// startRefresher starts applying configurations to store from step on
// (scenarios.ChurnStep), every every (0: back to back), until end; a failed
// refresh sets failed.
func startRefresher(store certstore.Store, w *scenarios.Workload, step int, every time.Duration, ctl *sampleCtl, failed *atomic.Bool) *refresher {
	f := &refresher{stop: make(chan struct{}), done: make(chan int, 1)}
	go f.run(store, w, step, every, ctl, failed)
	return f
}

func (f *refresher) run(store certstore.Store, w *scenarios.Workload, step int, every time.Duration, ctl *sampleCtl, failed *atomic.Bool) {
	last := len(w.Configs) - 1
	n := 0
	defer func() { f.done <- n }()
	defer func() { <-f.stop }() // the window's end, in every case
	defer ctl.catch(callRefresh)
	next := time.Now()
	for k := max(step, 1); ; k++ {
		select {
		case <-f.stop:
			return
		default:
		}
		ctl.setRefresh(k)
		err := store.Update(w.Configs[scenarios.ChurnStep(k, last)])
		ctl.setRefresh(0)
		if err != nil {
			f.err = fmt.Errorf("refresh %d: %w", k, err)
			failed.Store(true)
			return
		}
		n++
		f.refreshed.Add(1)
		if every > 0 {
			next = next.Add(every)
			if d := time.Until(next); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-f.stop:
					t.Stop()
				}
			} else {
				next = time.Now() // late: the next one starts now, not in a burst
			}
		}
	}
}

// end stops the refresher and returns the refreshes completed before it
// was called, those applied in all, and the failed refresh's error.
func (f *refresher) end() (refreshes, applied int, err error) {
	refreshes = int(f.refreshed.Load())
	close(f.stop)
	applied = <-f.done
	return refreshes, applied, f.err
}

// ChurnWarmup is the refreshes a HandshakeUnderChurn sample applies alone
// first, to measure what one allocates.
const ChurnWarmup = 2

// churnRun says what runChurn does.
type churnRun struct {
	lookups     int           // split evenly over the goroutines
	duration    time.Duration // bounds the window; 0: no bound
	sampleEvery int           // times every n-th lookup on its own; 0: none
	goroutines  int           // lookup goroutines; 0 means GOMAXPROCS
	step        int           // the first refresh step (scenarios.ChurnStep); 0 means 1
	ctl         *sampleCtl    // when not nil, stops the window (errStopped) and catches panics
}

// churnResult is what one window measured.
type churnResult struct {
	lookups    int64         // lookups done
	lookupTime time.Duration // summed over the lookup goroutines
	elapsed    time.Duration // wall time of the window
	refreshes  int           // refreshes completed within the window
	applied    int           // refreshes applied in all (one may end after the window)
	latencies  []int64       // sampled lookup latencies in ns, sorted
}

// runChurn runs a HandshakeUnderChurn workload's lookups from several
// goroutines while one more applies its configurations back to back
// (scenarios.ChurnStep), until the lookups are done or the duration is
// over (at least one lookup each). store must hold one of w.Configs.
func runChurn(store certstore.Store, w *scenarios.Workload, r churnRun) (churnResult, error) {
	var res churnResult
	if len(w.Hellos) == 0 || len(w.Configs) == 0 {
		return res, fmt.Errorf("handshake-under-churn workload has no hellos or no configurations")
	}
	g := workers(r.goroutines, r.lookups)
	cw := &churnWindow{store: store, w: w, r: r, per: make([]churnLookups, g)}
	start := time.Now()
	if r.duration > 0 {
		t := time.AfterFunc(r.duration, func() { cw.stop.Store(true) })
		defer t.Stop()
	}
	ref := startRefresher(store, w, r.step, 0, r.ctl, &cw.stop)
	spread(g, r.lookups, cw.lookup)
	res.elapsed = time.Since(start)
	var refErr error
	res.refreshes, res.applied, refErr = ref.end()
	for _, pg := range cw.per {
		res.lookups += int64(pg.n)
		res.lookupTime += pg.dur
		res.latencies = append(res.latencies, pg.lat.lat...)
	}
	slices.Sort(res.latencies)
	cw.errMu.Lock()
	defer cw.errMu.Unlock()
	if cw.firstErr == nil && refErr == nil && r.ctl.stopped() {
		return res, errStopped
	}
	return res, cmp.Or(cw.firstErr, refErr)
}

// churnWindow is the state runChurn's lookup goroutines share.
type churnWindow struct {
	store certstore.Store
	w     *scenarios.Workload
	r     churnRun
	per   []churnLookups // one a lookup goroutine

	stop     atomic.Bool // ends the lookups
	errMu    sync.Mutex
	firstErr error
}

// churnLookups is what one lookup goroutine did.
type churnLookups struct {
	n   int           // lookups done
	dur time.Duration // time spent doing them
	lat latencies     // sampled latencies
}

// fail records the window's first lookup error and ends the lookups.
func (cw *churnWindow) fail(err error) {
	cw.errMu.Lock()
	if cw.firstErr == nil {
		cw.firstErr = err
	}
	cw.errMu.Unlock()
	cw.stop.Store(true)
}

// lookup does lookup goroutine gi's quota, cycling over the hellos from
// its own offset and timing every r.sampleEvery-th lookup.
func (cw *churnWindow) lookup(gi, quota int) {
	r, store := cw.r, cw.store
	defer r.ctl.catch(callLookup)
	pg := &cw.per[gi]
	pg.lat = newLatencies(quota, r.sampleEvery, len(cw.per))
	hellos := cw.w.Hellos
	j := gi * len(hellos) / len(cw.per)
	t0 := time.Now()
	i := 0
	for ; i < quota; i++ {
		// The duration is checked from the second lookup on: each
		// goroutine makes at least one, however late the scheduler
		// starts it, so that a short window on a loaded machine still
		// has lookups to report.
		if i&63 == 0 && (i > 0 && cw.stop.Load() || r.ctl.stopped()) {
			break
		}
		h := hellos[j]
		if j++; j == len(hellos) {
			j = 0
		}
		var c *tls.Certificate
		var err error
		if pg.lat.due() {
			ts := time.Now()
			c, err = store.Certificate(cw.w.Store, h)
			pg.lat.lat = append(pg.lat.lat, int64(time.Since(ts)))
		} else {
			c, err = store.Certificate(cw.w.Store, h)
		}
		if err != nil || c == nil {
			cw.fail(fmt.Errorf("lookup %q: certificate %v, error %v", h.ServerName, c != nil, err))
			break
		}
	}
	pg.dur = time.Since(t0)
	pg.n = i
}

// measureChurn measures one sample of a HandshakeUnderChurn workload: after
// w.Configs[0] and ChurnWarmup refreshes alone (what one refresh
// allocates), GOMAXPROCS goroutines share w.Scenario.Ops lookups while one
// more refreshes back to back, until done or Duration is over. sec/op is
// the lookups' summed time over their count (waits for a CPU included:
// part of what churn costs); B/op and allocs/op are the window's less the
// refreshes' (an estimate, at least 0); p50/p99/p999-ns are nearest-rank
// percentiles of every LatencySampleEvery-th lookup; refreshes/s counts
// those done in the window. Ops is the lookups done, which varies.
func measureChurn(newStore certstore.Factory, storeName string, w *scenarios.Workload, ctl *sampleCtl) (Sample, error) {
	var (
		res                         churnResult
		bytes, allocs               uint64
		refreshBytes, refreshAllocs float64
	)
	return measureWindow(newStore, storeName, w, ctl, func(store certstore.Store) (err error) {
		if refreshBytes, refreshAllocs, err = warmupRefreshes(store, w, ChurnWarmup, ctl); err != nil {
			return err
		}
		bytes, allocs = allocated(func() {
			ctl.mark(callChurn, 0, 0)
			res, err = runChurn(store, w, churnRun{
				lookups:     w.Scenario.Ops,
				duration:    w.Scenario.Duration,
				sampleEvery: LatencySampleEvery,
				step:        ChurnWarmup + 1,
				ctl:         ctl,
			})
		})
		return err
	}, func(s *Sample) error {
		if res.lookups == 0 {
			return errors.New("no lookup done")
		}
		n := float64(res.lookups)
		s.Ops = int(res.lookups)
		s.NsPerOp = float64(res.lookupTime.Nanoseconds()) / n
		s.BytesPerOp = max(0, float64(bytes)-float64(res.applied)*refreshBytes) / n
		s.AllocsPerOp = max(0, float64(allocs)-float64(res.applied)*refreshAllocs) / n
		s.Extra = []benchfmt.Value{
			{Value: percentile(res.latencies, 0.50), Unit: results.UnitP50},
			{Value: percentile(res.latencies, 0.99), Unit: results.UnitP99},
			{Value: percentile(res.latencies, 0.999), Unit: results.UnitP999},
			{Value: float64(res.refreshes) / res.elapsed.Seconds(), Unit: results.UnitRefreshRate},
		}
		res.latencies = nil
		return nil
	})
}

// measureWindow measures one sample of a churn or handshake workload: run
// measures on a new store holding w.Configs[0], under the sample's probe;
// fill sets the sample's figures, then the retained heap and goroutines.
func measureWindow(newStore certstore.Factory, storeName string, w *scenarios.Workload, ctl *sampleCtl, run func(certstore.Store) error, fill func(*Sample) error) (Sample, error) {
	s := Sample{Scenario: w.Scenario.Name, Store: storeName}
	wrap := func(err error) (Sample, error) {
		return s, fmt.Errorf("store %s, scenario %s: %w", storeName, w.Scenario.Name, err)
	}
	if w.Scenario.Ops <= 0 {
		return wrap(errors.New("no ops to time"))
	}
	probe := startProbe()
	ctl.setLabel(probe.label)
	var store certstore.Store
	var err error
	probe.run(func() {
		defer ctl.catch(callHarness)
		if store, err = firstStore(newStore, w, ctl); err == nil {
			err = run(store)
		}
	})
	ctl.mark(callHarness, 0, 0)
	if err == nil && ctl.firstFault() != nil {
		err = errStopped // the supervisor returns the fault
	}
	defer closeStore(store, ctl) // not after a panic: see closeStore
	if err == nil {
		err = fill(&s)
	}
	if err == nil {
		s.RetainedBytes, s.RetainedPerCert, s.Goroutines, err = probe.finish(w.Certs)
		runtime.KeepAlive(store)
	}
	if err != nil {
		return wrap(err)
	}
	return s, nil
}

// percentile returns the p-quantile (0 < p <= 1) of sorted values by the
// nearest-rank method: the smallest value that at least a fraction p of
// the values are less than or equal to. It returns 0 for no values.
func percentile(sorted []int64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	// The epsilon keeps 0.99*100 from rounding up to rank 100.
	k := int(math.Ceil(p*float64(len(sorted))-1e-9)) - 1
	k = min(max(k, 0), len(sorted)-1)
	return float64(sorted[k])
}

// warmupRefreshes applies the first n refreshes of a churn workload to
// store (which holds w.Configs[0]) and returns what one of them allocated
// on average: the refresher's share, subtracted from what a churn sample
// allocates per lookup or handshake.
func warmupRefreshes(store certstore.Store, w *scenarios.Workload, n int, ctl *sampleCtl) (bytes, allocs float64, err error) {
	b, a := allocated(func() {
		for k := 1; k <= n && err == nil; k++ {
			ctl.mark(callWarmup, k, n)
			if err = store.Update(w.Configs[scenarios.ChurnStep(k, len(w.Configs)-1)]); err != nil {
				err = fmt.Errorf("refresh %d: %w", k, err)
			}
		}
	})
	return float64(b) / float64(n), float64(a) / float64(n), err
}

// firstStore makes a store and gives it w.Configs[0], marking the calls
// for the supervisor; a lookup workload's store then looks each hello up
// once, so that its caches are as warm as over the timed lookups. The
// store is returned even when that fails, for closeStore.
func firstStore(newStore certstore.Factory, w *scenarios.Workload, ctl *sampleCtl) (certstore.Store, error) {
	ctl.mark(callFactory, 0, 0)
	store := newStore()
	ctl.mark(callFirst, 0, 0)
	if err := store.Update(w.Configs[0]); err != nil {
		return store, fmt.Errorf("initial configuration: %w", err)
	}
	if w.Scenario.Kind == scenarios.Lookup {
		ctl.mark(callLookups, 0, 0)
		return store, lookupOps(store, w, len(w.Hellos), ctl)
	}
	return store, nil
}

package bench

import (
	"crypto/tls"
	"errors"
	"fmt"
	"runtime/metrics"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchfmt"
)

// MaxHeldHeap bounds the live heap of a held sample: past it the sample
// fails rather than hold more generations.
const MaxHeldHeap = 4 << 30

// settleTimeout bounds the wait, once a held sample's connections let go,
// for the store's cleanups: finalizers and cleanups run on their own
// goroutine after a collection, and what they stop exits when scheduled.
const settleTimeout = 2 * time.Second

// settleSlack is how little the heap may still fall between two readings
// of a released sample for it to count as settled.
const settleSlack = 4 << 10

// holders are a Held sample's simulated long-lived connections, a ring:
// before each refresh the next opens on the store's current generation,
// replacing (closing) the oldest once all are open. Each holds its
// generation through Current() and a tls.Config whose GetCertificate
// looks up in it, as a router's does; they are made before the steady
// reading, so that only the generations they hold count.
type holders struct {
	conns []heldConn
	next  int // connections opened so far
	hello *tls.ClientHelloInfo
	live  []metrics.Sample // the MaxHeldHeap guard's reading
}

// heldConn is one connection: the generation it was accepted under.
type heldConn struct {
	gen   certstore.Generation
	store string
	cfg   *tls.Config
}

func (c *heldConn) certificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return c.gen.Certificate(c.store, hello)
}

// newHolders makes the connections of a Held workload, none open.
func newHolders(w *scenarios.Workload) *holders {
	h := &holders{conns: make([]heldConn, max(1, w.Scenario.Held)), live: []metrics.Sample{{Name: metricLive}}}
	if len(w.Hellos) > 0 {
		h.hello = w.Hellos[0]
	}
	for i := range h.conns {
		c := &h.conns[i]
		c.store, c.cfg = w.Store, &tls.Config{GetCertificate: c.certificate}
	}
	return h
}

// open opens the next connection on store's current generation (closing
// the oldest), looks its hello up through the connection's tls.Config,
// and checks MaxHeldHeap.
func (h *holders) open(store certstore.Store) error {
	c := &h.conns[h.next%len(h.conns)]
	h.next++
	c.gen = store.Current()
	cert, err := c.cfg.GetCertificate(h.hello)
	if err == nil && cert == nil {
		err = errors.New("no certificate")
	}
	if err != nil {
		return fmt.Errorf("connection %d: lookup %q in its held generation: %w", h.next, h.hello.ServerName, err)
	}
	metrics.Read(h.live)
	if live := h.live[0].Value.Uint64(); live > MaxHeldHeap {
		return fmt.Errorf("%d held generations: the live heap, %s, is over the bound of %s", h.held(), results.Format(float64(live), results.UnitRetained), results.Format(MaxHeldHeap, results.UnitRetained))
	}
	return nil
}

// held returns the connections open.
func (h *holders) held() int { return min(h.next, len(h.conns)) }

// release closes every connection.
func (h *holders) release() {
	for i := range h.conns {
		h.conns[i].gen = nil
	}
}

// holders returns the sample's connections, or for Apply new ones; nil
// unless w is a Held workload.
func (c *sampleCtl) holders(w *scenarios.Workload) *holders {
	switch {
	case c != nil && c.held != nil:
		return c.held
	case w.Scenario.Kind == scenarios.Held:
		return newHolders(w)
	}
	return nil
}

// heldValues closes h's connections, waits for the store to settle, and
// returns the held units: steady is the store with only its current
// generation, held the same with h's connections open.
func heldValues(p heapProbe, h *holders, steady, held heapReading) ([]benchfmt.Value, error) {
	n := float64(max(1, h.held()))
	h.release()
	released, err := p.settle(steady)
	if err != nil {
		return nil, err
	}
	above := func(a, b uint64) float64 { return max(0, float64(a)-float64(b)) }
	return []benchfmt.Value{
		{Value: above(held.heap, steady.heap) / n, Unit: results.UnitHeldPerGen},
		{Value: float64(max(0, held.goroutines-steady.goroutines)) / n, Unit: results.UnitHeldGoroutinesPerGen},
		{Value: above(released.heap, steady.heap), Unit: results.UnitReleasedHeld},
		{Value: float64(max(0, released.goroutines-steady.goroutines)), Unit: results.UnitReleasedHeldGoroutines},
	}, nil
}

// settle reads the heap until the store's goroutines are back to steady's
// in two readings running (so that the second collection ran after they
// exited) and the heap fell by less than settleSlack between them, or
// settleTimeout has passed, sleeping between readings (doubling, from
// 1ms) so that cleanups and the goroutines they stop run.
func (p heapProbe) settle(steady heapReading) (heapReading, error) {
	deadline := time.Now().Add(settleTimeout)
	var prev heapReading
	prevBack := false
	for round := 0; ; round++ {
		r, err := p.read()
		if err != nil {
			return r, err
		}
		back := r.goroutines <= steady.goroutines
		if back && prevBack && r.heap+settleSlack >= prev.heap || time.Now().After(deadline) {
			return r, nil
		}
		prev, prevBack = r, back
		time.Sleep(time.Millisecond << min(round, 7))
	}
}

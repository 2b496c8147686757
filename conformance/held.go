package conformance

import (
	"crypto/tls"
	"fmt"
	"runtime"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
)

// Held-generation check: what a store keeps running for the generations
// its callers hold, as a proxy's long-lived connections hold the
// configuration they were accepted under, and what is left once they let
// go. The rule and why its bounds are what they are:
// docs/conformance.md#held-generations.
const (
	heldGens = 64               // generations held at once
	heldLeak = heldGens << 10   // heap allowed above the steady state once released: 1 KiB a generation
	heldWait = 10 * time.Second // the longest wait for cleanups and finalizers after release
	// heldDescriptor is allowed once released per goroutine that ran while
	// held and has exited: the runtime keeps an exited goroutine's
	// descriptor for reuse and never frees it.
	heldDescriptor = 1 << 10
	heldSNI        = "good2.example.com"
)

// holders hold generations, half through Current() and half through
// tls.Configs whose GetCertificate looks up in the generation, one per
// store (what a router keeps, and each connection accepted under it).
type holders struct {
	gens    []certstore.Generation
	configs []*tls.Config
}

// hold keeps g, the i-th generation; a tls.Config serves one handshake, as
// the connection that keeps it did.
func (h *holders) hold(t rt, i int, g certstore.Generation) {
	t.Helper()
	if i%2 == 0 {
		h.gens = append(h.gens, g)
		return
	}
	for _, st := range []string{storeDefault, storeShop} {
		c := &tls.Config{GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) { return g.Certificate(st, hello) }}
		var cert *tls.Certificate
		var err error
		if pe := protect("GetCertificate", func() { cert, err = c.GetCertificate(&tls.ClientHelloInfo{ServerName: heldSNI}) }); pe != nil {
			t.Fatalf("%v", pe)
		}
		if err != nil || leafOf(cert) == nil {
			t.Fatalf("a tls.Config's GetCertificate over held generation %d, store %q, SNI %q: no certificate, error %s", i, st, heldSNI, errText(err))
		}
		h.configs = append(h.configs, c)
	}
}

// testHeldGenerations holds heldGens generations, then releases them, and
// checks the goroutines while they are held (WhileHeld) and the goroutines
// and heap once they are released and collected (Released) against the
// store's steady state: the store between two such cycles.
func (su *suite) testHeldGenerations(t rt) {
	cfgs := su.refreshConfigs()
	s := su.newStore(t)
	refresh := func(i int) certstore.Generation {
		if err := su.update(t, s, cfgs[i%2]); err != nil {
			t.Fatalf("refresh %d: Update rejected a valid configuration: %v", i, err)
		}
		g := su.current(t, s)
		for _, st := range []string{storeDefault, storeShop} {
			su.lookup(t, g, st, heldSNI)
		}
		return g
	}
	cycle := func(h *holders) {
		for i := range heldGens {
			h.hold(t, i, refresh(i))
		}
		refresh(1) // the store's own current generation, as in the steady state
	}
	refresh(0)
	refresh(1) // both configurations
	start := settle(nil, settleBrief)
	// A first cycle, its generations dropped at once, grows what the store
	// and the runtime keep for the next (the runtime never frees a
	// goroutine's descriptor, it reuses it), so that the steady state is the
	// store between cycles; a leak grows again with the second.
	cycle(&holders{})
	settle(func(st settled) bool { return st.goroutines <= start.goroutines+goroutineSlack }, heldWait)
	steady := settle(nil, settleBrief)
	h := &holders{}
	cycle(h)
	held := settle(func(st settled) bool { return st.goroutines <= steady.goroutines+goroutineSlack }, goroutineSettle)
	runtime.KeepAlive(h)
	h.gens, h.configs = nil, nil
	leak := heldLeak + int64(max(0, held.goroutines-steady.goroutines))*heldDescriptor
	released := settle(func(st settled) bool {
		return st.goroutines <= steady.goroutines+goroutineSlack && st.heap <= steady.heap+leak
	}, heldWait)
	runtime.KeepAlive(s) // the store lives on; a collected store would take its leaks with it

	perGen := func(n int64, unit string) string { return results.FormatSigned(float64(n)/heldGens, unit) }
	t.Run("WhileHeld", func(t rt) {
		more := held.goroutines - steady.goroutines
		msg := fmt.Sprintf("%d generations held (%d through Current(), %d through tls.Configs whose GetCertificate looks up in them, one a store): "+
			"%+d goroutines (%s a held generation), retained heap %s (%s a held generation) against the steady state",
			heldGens, (heldGens+1)/2, heldGens/2, more, perGen(int64(more), ""), results.FormatSigned(float64(held.heap-steady.heap), "B"), perGen(held.heap-steady.heap, "B"))
		if more <= goroutineSlack {
			t.Logf("%s", msg)
			return
		}
		t.Errorf("%s; allowed: %d goroutines in all, none a generation. Running more than in the steady state: %s",
			msg, goroutineSlack, held.running.grown(steady.running))
	})
	t.Run("Released", func(t rt) {
		more, heap := released.goroutines-steady.goroutines, released.heap-steady.heap
		msg := fmt.Sprintf("after all %d held generations were released and collected: %+d goroutines, retained heap %s (%s a released generation) against the steady state",
			heldGens, more, results.FormatSigned(float64(heap), "B"), perGen(heap, "B"))
		if more <= goroutineSlack && heap <= leak {
			t.Logf("%s", msg)
			return
		}
		t.Errorf("%s, %v after they were released; allowed: %d goroutines, %s of heap. Running more than in the steady state: %s",
			msg, heldWait, goroutineSlack, results.Format(float64(leak), "B"), released.running.grown(steady.running))
	})
}

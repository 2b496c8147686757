package conformance

// Scripts: what one iteration does to a store, played on as many as needed.

import (
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/certbench/certbench/certstore"
)

// The ways a store is asked, as Divergence.Via and Change.Via say them.
const (
	viaStore   = "Store.Certificate"
	viaCurrent = "Current().Certificate"
	viaUpdate  = "Update"
)

// lookupStep is one lookup of a script.
type lookupStep struct {
	held       int    // the generation held right after configuration held
	via        string // viaStore (the live store) or viaCurrent (the held generation)
	store, sni string
}

// script applies each configuration of seq in turn, making the lookups of
// steps[k] after configuration k.
type script struct {
	seq   []CaseConfig
	steps [][]lookupStep
}

// probesPerHeld is how many lookups are repeated on each held generation.
const probesPerHeld = 12

// newScript makes the lookups for seq: every probe of a configuration on
// its new generation (both vias), and a sample again on every held one.
func newScript(rng *rand.Rand, seq []CaseConfig) *script {
	sc := &script{seq: seq, steps: make([][]lookupStep, len(seq))}
	probes := make([][]probeSpec, len(seq))
	for k := range seq {
		probes[k] = generateProbes(rng, &seq[k])
		for j := k; j >= 0; j-- {
			ps := probes[j]
			if j < k && len(ps) > probesPerHeld {
				ps = sample(rng, ps, probesPerHeld)
			}
			vias := []string{viaCurrent}
			if j == k {
				vias = []string{viaStore, viaCurrent}
			}
			for _, v := range vias {
				for _, p := range ps {
					sc.steps[k] = append(sc.steps[k], lookupStep{held: j, via: v, store: p.store, sni: p.sni})
				}
			}
		}
	}
	return sc
}

// caseScript replays c: every configuration, then c's lookup.
func caseScript(c *Case) *script {
	last := len(c.Configs) - 1
	sc := &script{seq: c.Configs, steps: make([][]lookupStep, len(c.Configs))}
	if c.Held == last {
		sc.steps[last] = append(sc.steps[last], lookupStep{held: c.Held, via: viaStore, store: c.Store, sni: c.SNI})
	}
	sc.steps[last] = append(sc.steps[last], lookupStep{held: c.Held, via: viaCurrent, store: c.Store, sni: c.SNI})
	return sc
}

// event is the outcome of the Update of configuration k (step nil), or of
// a lookup after it.
type event struct {
	k    int
	step *lookupStep
	cert *tls.Certificate
	err  error
}

// play applies the script to a new store, telling observe every outcome
// until it returns false; a panic is an error, a rejected Update goes on.
func (sc *script) play(newStore certstore.Factory, bs []*built, observe func(event) bool) {
	s, closeStore, err := open(newStore)
	if err != nil {
		observe(event{err: err})
		return
	}
	defer closeStore()
	held := make([]certstore.Generation, len(bs))
	for k, b := range bs {
		var err error
		if pe := protect("Update", func() { err = s.Update(b.cfg) }); pe != nil {
			err = pe
		}
		if pe := protect("Current", func() { held[k] = s.Current() }); pe != nil && err == nil {
			err = pe
		}
		if !observe(event{k: k, err: err}) {
			return
		}
		for i := range sc.steps[k] {
			st := &sc.steps[k][i]
			var l certstore.Lookup = s
			if st.via != viaStore {
				l = held[st.held]
			}
			c, err := lookup(l, st.store, st.sni)
			if !observe(event{k: k, step: st, cert: c, err: err}) {
				return
			}
		}
	}
}

// open makes a store; closeStore closes it if it is a Closer.
func open(newStore certstore.Factory) (s certstore.Store, closeStore func(), err error) {
	if pe := protect("the factory", func() { s = newStore() }); pe != nil {
		return nil, nil, pe
	}
	if s == nil {
		return nil, nil, errors.New("the factory returned a nil store")
	}
	return s, func() {
		if c, ok := s.(certstore.Closer); ok {
			_ = protect("Close", func() { _ = c.Close() })
		}
	}, nil
}

// lookup asks l for sni in store, guarded; a nil l is a nil generation.
func lookup(l certstore.Lookup, store, sni string) (c *tls.Certificate, err error) {
	if l == nil {
		return nil, errors.New("Current returned a nil Generation")
	}
	op := fmt.Sprintf("Certificate(%q, %q)", store, sni)
	if pe := protect(op, func() { c, err = l.Certificate(store, &tls.ClientHelloInfo{ServerName: sni}) }); pe != nil {
		return nil, pe
	}
	return c, err
}

// buildAll issues the certificates of every configuration of seq.
func buildAll(lc *leafCache, seq []CaseConfig) ([]*built, error) {
	bs := make([]*built, len(seq))
	for k := range seq {
		b, err := seq[k].build(lc)
		if err != nil {
			return nil, fmt.Errorf("configuration %d: %w", k, err)
		}
		bs[k] = b
	}
	return bs, nil
}

// build checks that c can run (validOnly: every configuration valid) and
// issues its certificates.
func (c *Case) build(lc *leafCache, validOnly bool) ([]*built, error) {
	if len(c.Configs) == 0 || c.Held < 0 || c.Held >= len(c.Configs) {
		return nil, fmt.Errorf("case has %d configurations and Held %d", len(c.Configs), c.Held)
	}
	for k := range c.Configs {
		if validOnly && !c.Configs[k].valid() {
			return nil, fmt.Errorf("configuration %d is not valid (a certificate without names, or an undeclared store)", k)
		}
	}
	return buildAll(lc, c.Configs)
}

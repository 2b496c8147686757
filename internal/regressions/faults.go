package regressions

import (
	"crypto/tls"
	"fmt"
	"sync"

	"github.com/certbench/certbench/certstore"
)

// Faults, unlike the variants above, break the store instead of slowing
// it: what a pull request that makes a store panic or deadlock does to
// certbench run (which must report it, measure the other stores and end).

// Panic returns a factory of stores from newStore whose n-th Update (of
// each store, counting from 1: the initial configuration is the first)
// panics.
func Panic(n int, newStore certstore.Factory) certstore.Factory {
	return func() certstore.Store { return &faulty{wrapped: wrapped{newStore()}, at: n, panics: true} }
}

// Hang returns a factory of stores from newStore whose n-th Update (as
// for Panic) blocks until release is closed (a nil release: for ever)
// while holding the lock its lookups take, so that they block too, as in
// a store that deadlocks.
func Hang(n int, release <-chan struct{}, newStore certstore.Factory) certstore.Factory {
	return func() certstore.Store { return &faulty{wrapped: wrapped{newStore()}, at: n, release: release} }
}

type faulty struct {
	wrapped
	at      int
	panics  bool
	release <-chan struct{}

	mu      sync.RWMutex
	updates int
}

// Update applies cfg to the wrapped store, but panics or blocks at the
// n-th call.
func (s *faulty) Update(cfg *certstore.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updates++
	if s.updates == s.at {
		if s.panics {
			panic(fmt.Sprintf("regressions: update %d: deliberate panic", s.updates))
		}
		if s.release == nil {
			select {} // for ever
		}
		<-s.release
	}
	return s.Store.Update(cfg)
}

// Certificate looks up in the wrapped store; it waits while an Update
// blocks.
func (s *faulty) Certificate(name string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.Store.Certificate(name, hello)
}

package regressions

import (
	"crypto/tls"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/certstore"
)

// JanitorBytes is the buffer a Janitor store keeps alive per generation.
const JanitorBytes = 64 << 10

// janitorTick is how often a janitor goroutine wakes; it only needs to be
// a goroutine that lives, not one that works.
const janitorTick = time.Minute

// janitorStore is the Janitor variant: the shape of a cache with a
// cleanup goroutine per published generation (Traefik v3's go-cache
// janitor). The goroutine and its buffer live until the generation that
// started them is collected, when a finalizer stops them, so they cost
// nothing while each generation is dropped at once and one goroutine and
// JanitorBytes per generation that a connection still holds.
type janitorStore struct {
	wrapped
	cur atomic.Pointer[janitorGen]
}

// janitorGen is one published generation with its janitor.
type janitorGen struct {
	certstore.Generation
}

// Update applies cfg to the wrapped store and, on success, starts the new
// generation's janitor.
func (s *janitorStore) Update(cfg *certstore.Config) error {
	if err := s.Store.Update(cfg); err != nil {
		return err
	}
	g := &janitorGen{Generation: s.Store.Current()}
	stop := make(chan struct{})
	go janitor(stop, make([]byte, JanitorBytes))
	runtime.AddCleanup(g, func(stop chan struct{}) { close(stop) }, stop)
	s.cur.Store(g)
	return nil
}

// janitor is the goroutine a Janitor store starts per generation: it holds
// buf until stop is closed.
func janitor(stop <-chan struct{}, buf []byte) {
	t := time.NewTicker(janitorTick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			buf[0]++
		}
	}
}

// Current returns the published generation with its janitor, or the
// wrapped store's empty generation before the first Update.
func (s *janitorStore) Current() certstore.Generation {
	if g := s.cur.Load(); g != nil {
		return g
	}
	return s.Store.Current()
}

// Certificate looks up in the current generation.
func (s *janitorStore) Certificate(name string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.Current().Certificate(name, hello)
}

// Package regressions wraps a certificate store with known regressions, to
// measure how reliably certbench gate catches them (TestSensitivity). It
// is test support: no shipped binary imports it. A variant changes only
// what it is named for, as far as a wrapper can:
//
//   - [Allocs]: one more 16-byte allocation per certificate per Update.
//   - [Bytes]: after every Update, a block of 5% of what it allocated.
//   - [Slow]: busy-waits DefaultSlowPercent (or [WrapSlow]'s) of each
//     Update's time, and every 256 lookups of the time since the last
//     such checkpoint; it allocates nothing.
//   - [Work]: a fixed number of extra instructions after every Update and
//     lookup ([WrapWork]; exact on amd64), allocating nothing.
//   - [Janitor]: a goroutine and [JanitorBytes] per published generation,
//     alive until that generation is collected (a held generation's cost).
//   - [None] changes nothing (for A/A controls).
package regressions

import (
	"crypto/tls"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/certstore"
)

// Kind names a variant.
type Kind string

// The variants.
const (
	None   Kind = "none"
	Allocs Kind = "allocs"
	Bytes  Kind = "bytes"
	Slow   Kind = "slow"
	Work   Kind = "work"
	// Janitor is a store with a cleanup goroutine per generation.
	Janitor Kind = "janitor"
)

// Kinds lists every variant.
var Kinds = []Kind{None, Allocs, Bytes, Slow, Work, Janitor}

// DefaultSlowPercent is the slowdown of Wrap(Slow, ...), in percent.
const DefaultSlowPercent = 25

// slowBatch is the number of lookups between two clock readings of a
// Slow store.
const slowBatch = 256

// DefaultWorkInstructions is the extra instructions per op of
// Wrap(Work, ...).
const DefaultWorkInstructions = 10000

// WorkLoopInstructions is the number of instructions of one iteration of
// a Work store's loop (exactly, on amd64; about, elsewhere).
const WorkLoopInstructions = 4

// Wrap returns a factory of stores from newStore with the variant's
// regression added (Slow by DefaultSlowPercent, Work by
// DefaultWorkInstructions).
func Wrap(k Kind, newStore certstore.Factory) certstore.Factory {
	switch k {
	case None:
		return newStore
	case Slow:
		return WrapSlow(DefaultSlowPercent, newStore)
	case Work:
		return WrapWork(DefaultWorkInstructions, newStore)
	case Janitor:
		return func() certstore.Store { return &janitorStore{wrapped: wrapped{newStore()}} }
	}
	return func() certstore.Store { return &store{wrapped: wrapped{newStore()}, kind: k} }
}

// WrapWork returns a factory of Work stores that execute instructions more
// instructions after every Update and lookup, fractions carried over
// between ops (exact to one loop iteration on amd64). WrapWork(0, ...) is
// the base for WrapWork(n, ...): both pay for the wrapper alike. A
// negative or non-finite instructions is 0.
func WrapWork(instructions float64, newStore certstore.Factory) certstore.Factory {
	milli := uint64(0)
	if instructions > 0 && instructions < 1e15 {
		milli = uint64(math.Round(instructions * 1000))
	}
	return func() certstore.Store { return &store{wrapped: wrapped{newStore()}, kind: Work, workMilli: milli} }
}

// WrapSlow returns a factory of Slow stores from newStore whose updates
// and lookups take percent more time (see Slow).
func WrapSlow(percent float64, newStore certstore.Factory) certstore.Factory {
	return func() certstore.Store { return &store{wrapped: wrapped{newStore()}, kind: Slow, slow: percent / 100} }
}

// wrapped is what every wrapper embeds: the wrapped store, closed with it.
type wrapped struct{ certstore.Store }

// Close closes the wrapped store if it has resources to release.
func (w wrapped) Close() error {
	if c, ok := w.Store.(certstore.Closer); ok {
		return c.Close()
	}
	return nil
}

type store struct {
	wrapped
	kind Kind
	slow float64 // Slow: the added share of time

	// Slow lookups: the count, the time of the last checkpoint (Unix
	// nanoseconds, 0 before the first) and the wait added there.
	lookups      atomic.Int64
	mark, waited atomic.Int64

	// Work: the extra instructions per op, in thousandths, and the
	// thousandths carried over (less than one loop iteration).
	workMilli uint64
	workRem   atomic.Uint64
}

// workMilliPerIteration is one loop iteration in thousandths of an
// instruction.
const workMilliPerIteration = WorkLoopInstructions * 1000

// work runs the extra instructions of one op of a Work store.
func (s *store) work() { loop(s.iterations()) }

// iterations returns the loop iterations of one op, carrying the
// remainder over to the next.
func (s *store) iterations() uint64 {
	for {
		r := s.workRem.Load()
		t := r + s.workMilli
		if s.workRem.CompareAndSwap(r, t%workMilliPerIteration) {
			return t / workMilliPerIteration
		}
	}
}

// blob is a small object with a pointer, so that it is not batched by the
// tiny allocator: each one is one counted allocation.
type blob struct {
	next *blob
	n    int
}

// Sinks make the extra allocations escape to the heap; drop clears them
// at once, so that they are garbage when the store's retained heap is
// measured (only allocations and time are meant to change).
var (
	sinkBlob  *blob
	sinkBytes []byte
)

//go:noinline
func drop() { sinkBlob, sinkBytes = nil, nil }

// Update applies cfg to the wrapped store and adds the variant's cost.
func (s *store) Update(cfg *certstore.Config) error {
	switch s.kind {
	case Allocs:
		err := s.Store.Update(cfg)
		if cfg != nil {
			for i := range cfg.Certificates {
				sinkBlob = &blob{next: sinkBlob, n: i}
				sinkBlob = sinkBlob.next
			}
			drop()
		}
		return err
	case Bytes:
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := s.Store.Update(cfg)
		runtime.ReadMemStats(&after)
		if extra := (after.TotalAlloc - before.TotalAlloc) / 20; extra > 0 {
			sinkBytes = make([]byte, extra)
			drop()
		}
		return err
	case Slow:
		start := time.Now()
		err := s.Store.Update(cfg)
		spin(time.Duration(float64(time.Since(start)) * s.slow))
		return err
	case Work:
		err := s.Store.Update(cfg)
		s.work()
		return err
	}
	return s.Store.Update(cfg)
}

// spin busy-waits for d without allocating.
func spin(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
	}
}

// Certificate looks up in the wrapped store, unchanged by every variant
// but Slow and Work.
func (s *store) Certificate(name string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	c, err := s.Store.Certificate(name, hello)
	switch {
	case s.kind == Slow && s.lookups.Add(1)%slowBatch == 0:
		s.slowLookups()
	case s.kind == Work:
		s.work()
	}
	return c, err
}

// slowLookups waits the slow share of the time since the last
// checkpoint, not counting the wait added there.
func (s *store) slowLookups() {
	now := time.Now().UnixNano()
	last := s.mark.Swap(now)
	if last == 0 {
		return
	}
	d := max(0, time.Duration(float64(now-last-s.waited.Load())*s.slow))
	s.waited.Store(int64(d))
	spin(d)
}

// Package simrand lines up the Go runtime's random stream in programs
// that certbench runs on its simulated CPU, so that two processes of one
// binary draw the same random numbers: map seeds, and the seeds of
// hash/maphash that stores take at package initialization.
//
// internal/callgrind fixes the 16 start-up random bytes (AT_RANDOM) from
// which the runtime seeds its generators. That leaves one source of
// difference: each OS thread the runtime starts takes one number from
// the stream of the thread that starts it, and whether the main thread
// starts one during the runtime's start-up (when the main goroutine first
// blocks) or the runtime's monitor thread does depends on timing. So the
// main thread's stream is at one of a few positions when packages begin
// to initialize, and a store seeding its hash tables from it gets one of
// a few seeds: lookups of the optimized store differ by a few percent
// between them.
//
// This package's initialization runs before any store's: the runner
// (package bench) imports it, and it imports only a few low-level
// standard packages, so Go's initialization order (the first package by
// import path whose imports are initialized) runs it long before
// crypto/x509 and so before certstore and every store. It finds the
// position of the main thread's stream by drawing two numbers and
// looking them up in the stream it computes from the fixed bytes (the
// runtime's generator is ChaCha8, as math/rand/v2's), then draws until
// the stream is at Position. It does so only when Env says the bytes are
// Seed; otherwise, and when the numbers are not found (a Go release that
// seeds differently), it does nothing, and Aligned reports false.
//
// The stream keeps moving by timing after start-up (a thread started from
// the main thread takes a number from it), so maps made later, such as a
// workload's, get seeds that differ between processes. When aligned, the
// main goroutine is locked to the main thread, and Realign finds the
// stream again and moves it to the next multiple of Step.
package simrand

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"runtime"
)

// Seed is the start-up randomness certbench's simulated CPU gives the
// programs it runs (see internal/callgrind.StartFixedSeed): any 16 bytes
// will do, as long as each half has a byte that is not zero (the runtime
// ignores them otherwise).
var Seed = [16]byte{'c', 'e', 'r', 't', 'b', 'e', 'n', 'c', 'h', ' ', 's', 'e', 'e', 'd', ' ', '1'}

// Env is set to "fixed" in the environment of a program whose start-up
// randomness is Seed.
const Env = "CERTBENCH_CALLGRIND_SEED"

// Position is the position of the main thread's random stream after this
// package's initialization, when aligned: far beyond where the runtime's
// start-up leaves it, so that every start-up ends at the same place.
const Position = 1 << 16

// maxSkip bounds the numbers the runtime draws from its global generator
// before it seeds the main thread's (its own start-up, the heap base, the
// hash key); maxSearch bounds the main thread's draws before this
// package's initialization.
const (
	maxSkip   = 64
	maxSearch = 1 << 12
)

// Step is how far Realign moves the main thread's stream each time: more
// than the runtime's own draws on the thread between two calls.
const Step = 1 << 12

var (
	aligned bool
	// shadow is a copy of the main thread's generator, at pos: Realign
	// finds where the runtime has moved the real one by drawing from both.
	shadow *rand.ChaCha8
	pos    int
)

// Aligned reports whether the main thread's stream was moved to Position
// at initialization.
func Aligned() bool { return aligned }

func init() {
	if os.Getenv(Env) == "fixed" {
		aligned = align()
		if aligned {
			// Keep the main goroutine on the main thread, the one whose
			// stream is known, so that Realign can find it again.
			runtime.LockOSThread()
		}
	}
}

// align draws two numbers from the runtime (package initialization runs
// on the main thread), finds them in the main thread's stream computed
// from Seed, and draws up to Position.
func align() bool {
	x, y := rand.Uint64(), rand.Uint64()
	g, i, ok := find(x, y)
	if !ok || i+2 > Position {
		return false
	}
	for n := i + 2; n < Position; n++ {
		rand.Uint64()
		g.Uint64()
	}
	shadow, pos = g, Position
	return true
}

// Realign moves the main thread's stream to the next multiple of Step
// after where it is, and reports whether it could. The runtime draws one
// number from a thread's stream for every thread it starts from there,
// and timing decides which thread starts one, so after a while two
// processes of one binary are no longer at the same position; a caller
// about to make maps or seeds that must agree between processes (a
// workload's configurations) calls Realign first, from the main goroutine
// (package initialization locked it to the main thread). It does nothing
// unless the stream was aligned at initialization, and reports false if
// the stream moved further than Step since the last call, or if it was
// called from another goroutine (whose thread's stream is unknown).
func Realign() bool {
	if !aligned {
		return false
	}
	x, y := rand.Uint64(), rand.Uint64()
	g := *shadow
	prev := g.Uint64()
	for i := pos + 1; i < pos+Step; i++ {
		v := g.Uint64()
		if prev == x && v == y {
			next := (i/Step + 1) * Step
			for n := i + 1; n < next; n++ {
				rand.Uint64()
				g.Uint64()
			}
			*shadow, pos = g, next
			return true
		}
		prev = v
	}
	return false
}

// find returns the index of x, followed by y, in the main thread's stream
// as the runtime seeds it from Seed, and a generator of that stream that
// has drawn them: the runtime's global generator is ChaCha8 keyed by the
// start-up bytes (then zeros); after skip numbers drawn for the runtime's
// own use, the main thread's generator is ChaCha8 keyed by the next four.
func find(x, y uint64) (*rand.ChaCha8, int, bool) {
	var key [32]byte
	copy(key[:], Seed[:])
	for skip := 0; skip < maxSkip; skip++ {
		g := rand.NewChaCha8(key)
		for range skip {
			g.Uint64()
		}
		var k [32]byte
		for j := range 4 {
			binary.LittleEndian.PutUint64(k[8*j:], g.Uint64())
		}
		m0 := rand.NewChaCha8(k)
		prev := m0.Uint64()
		for i := 1; i < maxSearch; i++ {
			v := m0.Uint64()
			if prev == x && v == y {
				return m0, i - 1, true
			}
			prev = v
		}
	}
	return nil, 0, false
}

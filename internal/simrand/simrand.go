// Package simrand lines up the Go runtime's random stream under the
// simulated CPU, so that two processes of one binary draw the same map
// and hash/maphash seeds.
//
// internal/callgrind fixes the start-up random bytes (AT_RANDOM), but each
// OS thread the runtime starts takes a number from its starter's stream,
// and which thread starts one at start-up depends on timing: the main
// thread's stream is at one of a few positions when packages initialize.
// This package's init finds that position (two draws looked up in the
// ChaCha8 stream computed from Seed) and draws up to Position, when Env
// says the bytes are Seed; otherwise Aligned reports false. Threads keep
// moving the stream later, so Realign moves it to the next multiple of
// Step before a workload's maps are made. The runner (package bench)
// imports it; it imports only low-level standard packages, so Go's
// initialization order runs it before certstore and every store.
package simrand

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"runtime"
)

// Seed is the start-up randomness the simulated CPU gives the programs it
// runs (callgrind.StartFixedSeed): each half needs a non-zero byte.
var Seed = [16]byte{'c', 'e', 'r', 't', 'b', 'e', 'n', 'c', 'h', ' ', 's', 'e', 'e', 'd', ' ', '1'}

// Env is "fixed" in the environment of a program whose start-up randomness
// is Seed.
const Env = "CERTBENCH_CALLGRIND_SEED"

const (
	// Position is the main thread's stream after init, when aligned: far
	// beyond where any start-up leaves it.
	Position = 1 << 16
	// Step is how far Realign moves the stream: more than the runtime
	// draws on the thread between two calls.
	Step = 1 << 12

	maxSkip   = 64      // the runtime's draws from its global generator before seeding the main thread's
	maxSearch = 1 << 12 // the main thread's draws before this package's init
)

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

// align finds two draws of the main thread (init runs there) in the stream
// computed from Seed, and draws up to Position.
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

// Realign moves the main thread's stream to the next multiple of Step and
// reports whether it could: false when not aligned at initialization,
// when the stream moved more than Step since the last call, or when not
// called from the main goroutine (which init locked to the main thread).
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

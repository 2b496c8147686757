package simrand

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// stream returns the first n numbers of the main thread's stream when the
// runtime drew skip numbers from its global generator before seeding it.
func stream(skip, n int) []uint64 {
	var key [32]byte
	copy(key[:], Seed[:])
	g := rand.NewChaCha8(key)
	for range skip {
		g.Uint64()
	}
	var k [32]byte
	for j := range 4 {
		binary.LittleEndian.PutUint64(k[8*j:], g.Uint64())
	}
	m0 := rand.NewChaCha8(k)
	out := make([]uint64, n)
	for i := range out {
		out[i] = m0.Uint64()
	}
	return out
}

func TestFind(t *testing.T) {
	for _, tc := range []struct{ skip, at int }{{19, 8}, {19, 9}, {0, 0}, {40, 1000}} {
		s := stream(tc.skip, tc.at+2)
		if _, i, ok := find(s[tc.at], s[tc.at+1]); !ok || i != tc.at {
			t.Errorf("skip %d: numbers at %d found at %d, %v", tc.skip, tc.at, i, ok)
		}
	}
	if _, _, ok := find(1, 2); ok {
		t.Error("two numbers that are not in the stream were found")
	}
}

func TestSeedHalves(t *testing.T) {
	var zero [8]byte
	if [8]byte(Seed[:8]) == zero || [8]byte(Seed[8:]) == zero {
		t.Error("Seed has a zero half: the runtime would ignore it")
	}
}

func TestNotAlignedOutsideTheSimulation(t *testing.T) {
	// The test binary does not run with Env set (unless a simulated run
	// started it), so nothing was drawn at initialization.
	if Aligned() {
		t.Skip("running under the simulated CPU")
	}
}

// Package simrand fixes the Go runtime's random stream under the simulated
// CPU, so that every sample of a process, and every process of a binary,
// draws the same map seeds.
//
// The runtime gives each OS thread a ChaCha8 generator of its own, keyed
// from the process's start-up randomness (AT_RANDOM, which
// internal/callgrind fixes) in the order threads start, and moves it on
// every draw: each map made takes a seed from the thread that makes it
// (its lookups then compare keys whose hash bytes collide, more or fewer
// with the seed: mystore's lookups varied 1.4% from sample to sample), and
// each map iteration a starting point. Which thread runs what, and so the
// stream a map draws from, depends on timing. Reset overwrites the calling
// thread's generator with a fresh one keyed by Key, in place, so that the
// draws that follow on that thread are the same wherever they start. The
// runner (package bench) imports this package and, when Env says the
// start-up randomness is Seed, its initialization resets the main thread
// before certstore and every store initialize (Go's initialization order
// runs it first: it imports only low-level standard packages).
package simrand

import (
	"os"
	"runtime"
)

// Seed is the start-up randomness the simulated CPU gives the programs it
// runs (callgrind.StartFixedSeed): each half needs a non-zero byte.
var Seed = [16]byte{'c', 'e', 'r', 't', 'b', 'e', 'n', 'c', 'h', ' ', 's', 'e', 'e', 'd', ' ', '1'}

// Key keys the stream Reset gives a thread.
var Key = [32]byte{'c', 'e', 'r', 't', 'b', 'e', 'n', 'c', 'h', ' ', 'r', 'u', 'n', 't', 'i', 'm', 'e', ' ', 's', 't', 'r', 'e', 'a', 'm'}

// Env is "fixed" in the environment of a program whose start-up randomness
// is Seed.
const Env = "CERTBENCH_CALLGRIND_SEED"

var fixed bool

// Fixed reports whether the main thread's stream was reset at
// initialization (Env set, and Reset works in this build).
func Fixed() bool { return fixed }

func init() {
	if os.Getenv(Env) == "fixed" {
		fixed = Reset()
	}
}

// Reset gives the calling thread a fresh generator keyed by Key, and
// reports whether it could: not on architectures other than amd64, nor
// where the runtime's layout is not the one this package finds (it then
// changes nothing). The caller keeps its goroutine on the thread
// (runtime.LockOSThread) for as long as the draws must follow.
func Reset() bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return reset()
}

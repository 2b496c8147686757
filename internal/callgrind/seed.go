package callgrind

import (
	"errors"
	"slices"

	"github.com/certbench/certbench/internal/simrand"
)

// Seed is the start-up randomness certbench fixes for the programs it
// runs under callgrind (see StartFixedSeed): the runtime's hash keys come
// from it; package simrand fixes the streams maps draw their seeds from.
var Seed = simrand.Seed

// SeedEnv is set to "fixed" in the environment of a program started by
// StartFixedSeed (by the caller, who knows), so that it can record it and
// package simrand resets its random stream at initialization.
const SeedEnv = simrand.Env

// checkSeed rejects a seed the Go runtime would not take: it ignores
// start-up bytes whose first or second eight are all zero (a C library
// may have cleared them) and reads /dev/urandom instead.
func checkSeed(seed [16]byte) error {
	var zero [8]byte
	if slices.Equal(seed[:8], zero[:]) || slices.Equal(seed[8:], zero[:]) {
		return errors.New("callgrind: a start-up seed needs a non-zero byte in each half (the Go runtime ignores it otherwise)")
	}
	return nil
}

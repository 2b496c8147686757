//go:build !(linux && amd64)

package callgrind

import (
	"errors"
	"os/exec"
)

// ErrNoFixedSeed is wrapped by StartFixedSeed's error when the start-up
// randomness cannot be fixed.
var ErrNoFixedSeed = errors.New("cannot fix the start-up seed")

// StartFixedSeed fixes the start-up randomness on linux/amd64 only; here
// it starts nothing and returns ErrNoFixedSeed.
func StartFixedSeed(cmd *exec.Cmd, seed [16]byte) error { return ErrNoFixedSeed }

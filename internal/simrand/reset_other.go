//go:build !amd64

package simrand

// reset is not implemented: the runtime's generator is found on amd64 only.
func reset() bool { return false }

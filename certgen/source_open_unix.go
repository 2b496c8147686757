//go:build unix

package certgen

import (
	"os"
	"syscall"
)

// openNoBlock opens a file for reading without blocking on a FIFO or
// taking a terminal as controlling terminal, so that the file's kind can
// be checked before anything is read.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}

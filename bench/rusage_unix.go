//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bench

import (
	"runtime"
	"syscall"
)

// maxRSS returns the process's peak resident set size in bytes
// (getrusage RUSAGE_SELF ru_maxrss: kilobytes on Linux and the BSDs,
// bytes on macOS), and whether the system reports it.
func maxRSS() (uint64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil || ru.Maxrss <= 0 {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return uint64(ru.Maxrss), true
	}
	return uint64(ru.Maxrss) * 1024, true
}

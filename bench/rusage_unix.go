//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bench

import (
	"runtime"
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used so far, user plus
// system, all threads (getrusage RUSAGE_SELF), and whether the system
// reports it.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

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

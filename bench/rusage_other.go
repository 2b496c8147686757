//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bench

import "time"

// cpuTime reports that the system gives no process CPU time.
func cpuTime() (time.Duration, bool) { return 0, false }

// maxRSS reports that the system gives no peak resident set size.
func maxRSS() (uint64, bool) { return 0, false }

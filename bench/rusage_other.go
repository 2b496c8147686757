//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bench

// maxRSS reports that the system gives no peak resident set size.
func maxRSS() (uint64, bool) { return 0, false }

//go:build !amd64 && !386

package results

// brandString is "": outside x86 the testing package names the processor
// from /proc/cpuinfo.
func brandString() string { return "" }

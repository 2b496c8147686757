package callgrind

import (
	"runtime"
	"strings"
	"unsafe"
)

// Client request codes: valgrind's core request RUNNING_ON_VALGRIND, and
// callgrind's, which start at its tool base ('C', 'T' in the two high
// bytes, as valgrind.h's VG_USERREQ_TOOL_BASE makes it).
const (
	reqRunningOnValgrind = 0x1001
	toolBase             = 'C'<<24 | 'T'<<16
	reqStartInstr        = toolBase + 4
	reqStopInstr         = toolBase + 5
	// reqMonitor runs a gdbserver monitor command: callgrind's "zero" and
	// "dump" act on every thread, its client requests on the caller's only.
	reqMonitor = 0x1202
)

// Supported reports whether this build can talk to valgrind: client
// requests are implemented for amd64 only; elsewhere every request is a
// no-op and Running reports false.
func Supported() bool { return supported }

// Running reports whether the process runs under valgrind (any tool).
func Running() bool {
	args := [6]uintptr{reqRunningOnValgrind}
	return request(&args, 0) != 0
}

// ZeroStats zeroes callgrind's cost counters, in every thread.
func ZeroStats() { monitor(zeroCmd) }

var zeroCmd = []byte("zero\x00")

// StartInstrumentation switches callgrind's instrumentation (and the
// cache simulation) on in every thread; each switch costs time, not
// counted instructions.
func StartInstrumentation() { call(reqStartInstr, 0) }

// StopInstrumentation: see StartInstrumentation.
func StopInstrumentation() { call(reqStopInstr, 0) }

// Dump makes callgrind write the costs since the last dump, one file per
// thread (run with --separate-threads=yes, as Options.Args does),
// labelled (Profile.Label; newlines and NULs become spaces), and zero
// them.
func Dump(label string) { monitor(cLabel(label)) }

// cLabel returns the NUL-terminated monitor command that dumps with label.
func cLabel(label string) []byte { return append([]byte(dumpCmd+sanitize(label)), 0) }

// dumpCmd starts the monitor command of a dump, and so its trigger.
const dumpCmd = "dump "

// monitor runs the NUL-terminated monitor command b.
func monitor(b []byte) {
	call(reqMonitor, uintptr(unsafe.Pointer(&b[0])))
	runtime.KeepAlive(b)
}

// sanitize replaces the characters a dump label cannot hold (NUL, line
// breaks) with spaces.
func sanitize(label string) string {
	return strings.Map(func(r rune) rune {
		if r == 0 || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, label)
}

// call issues a request with one argument and no answer.
func call(req, arg uintptr) {
	args := [6]uintptr{req, arg}
	request(&args, 0)
}

// archName names the architecture in errors.
const archName = runtime.GOARCH

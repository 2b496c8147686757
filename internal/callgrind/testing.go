package callgrind

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

//go:embed request_amd64.s
var requestAsm string

// TestingOverlay writes into dir a copy of the testing package's
// benchmark.go of the Go tree at goroot, with callgrind client requests at
// the benchmark timer's edges, and the two files they call, and returns
// them as go build -overlay's Replace entries. In a test binary built
// with them and run under callgrind with instrumentation off at the start
// (Options), instructions are counted only while a benchmark's timer runs
// (its set-up runs uninstrumented: faster), each stop of the timer dumps
// them ("certbench n=N", b.N), and each runN ends in a dump labelled
// "certbench-allocs n=N allocs=A bytes=B", A and B the objects and bytes
// testing counted over the timed region, exactly. An
// error names a Go whose testing package has not the edges it patches.
func TestingOverlay(goroot, dir string) (map[string]string, error) {
	src := filepath.Join(goroot, "src", "testing")
	b, err := os.ReadFile(filepath.Join(src, "benchmark.go"))
	if err != nil {
		return nil, err
	}
	bench := string(b)
	for _, p := range [][2]string{
		// The timer starts: count from here.
		{"\t\tb.timerOn = true\n\t\tb.loop.i &^= loopPoisonTimer\n", "$0\t\tcertbenchTimer(true)\n\t\tcertbenchMonitor(certbenchZero)\n"},
		// It stops: dump what was counted (instrumentation on: a dump of
		// an uninstrumented stretch is empty), stop counting.
		{"\tif b.timerOn {\n\t\tb.duration += highPrecisionTimeSince(b.start)\n",
			"\tif b.timerOn {\n\t\tcertbenchDump(b.N)\n\t\tcertbenchTimer(false)\n\t\tb.duration += highPrecisionTimeSince(b.start)\n"},
		// It is reset while running: what it counted so far goes.
		{"\t\tb.start = highPrecisionTimeNow()\n\t}\n\tb.duration = 0\n", "\t\tb.start = highPrecisionTimeNow()\n\t\tcertbenchMonitor(certbenchZero)\n\t}\n\tb.duration = 0\n"},
		// runN ends: a dump whose label carries testing's exact count of
		// the timed region's allocations.
		{"\tb.StopTimer()\n\tb.previousN = n\n", "\tb.StopTimer()\n\tcertbenchTimer(true)\n\tcertbenchMonitor([]byte(fmt.Sprintf(\"" + dumpCmd + TimedLabel + "-allocs n=%d allocs=%d bytes=%d\\x00\", n, b.netAllocs, b.netBytes)))\n\tcertbenchTimer(false)\n\tb.previousN = n\n"},
	} {
		if strings.Count(bench, p[0]) != 1 {
			return nil, fmt.Errorf("this Go's testing package (%s) has not the benchmark timer certbench counts by", goroot)
		}
		bench = strings.Replace(bench, p[0], strings.ReplaceAll(p[1], "$0", p[0]), 1)
	}
	files := map[string]string{
		"benchmark.go": bench,
		"zz_certbench_callgrind.go": fmt.Sprintf(`package testing

import (
	"strconv"
	"unsafe"
)

//go:noescape
func certbenchRequest(args *[6]uintptr, def uintptr) uintptr

// certbenchTimer switches callgrind's instrumentation on or off.
func certbenchTimer(on bool) {
	args := [6]uintptr{%d}
	if on {
		args[0] = %d
	}
	certbenchRequest(&args, 0)
}

// certbenchMonitor runs a NUL-terminated callgrind monitor command.
func certbenchMonitor(cmd []byte) {
	args := [6]uintptr{%d, uintptr(unsafe.Pointer(&cmd[0]))}
	certbenchRequest(&args, 0)
}

var certbenchZero = []byte("zero\x00")

// certbenchDump dumps the timed region's count, labelled with b.N,
// allocating nothing (testing counts the region's allocations).
func certbenchDump(n int) {
	var buf [64]byte
	cmd := strconv.AppendInt(append(buf[:0], "%s n="...), int64(n), 10)
	certbenchMonitor(append(cmd, 0))
}
`, reqStopInstr, reqStartInstr, reqMonitor, dumpCmd+TimedLabel),
		"zz_certbench_callgrind_amd64.s": strings.Replace(requestAsm, "·request(SB)", "·certbenchRequest(SB)", 1),
	}
	overlay := map[string]string{}
	for name, text := range files {
		to := filepath.Join(dir, name)
		if err := os.WriteFile(to, []byte(text), 0o644); err != nil {
			return nil, err
		}
		overlay[filepath.Join(src, name)] = to
	}
	return overlay, nil
}

// TimedLabel starts the label of a TestingOverlay dump.
const TimedLabel = "certbench"

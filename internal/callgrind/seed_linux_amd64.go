package callgrind

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// The fixed start-up randomness: the runtime seeds maps and hash/maphash
// from the kernel's 16 AT_RANDOM bytes, so a store hashing with a
// per-process seed counts differently in every process. Valgrind passes
// its own bytes on; StartFixedSeed replaces them before valgrind's tool
// starts, and package simrand lines up what timing still moves.

// auxvRandom is the auxiliary vector's key of the 16 random bytes.
const auxvRandom = 25 // AT_RANDOM

// StartFixedSeed starts cmd, a valgrind command made by Command, with the
// start-up randomness of the program valgrind runs fixed to seed (see
// above). It traces the valgrind launcher until it executes its tool,
// writes seed over the tool's AT_RANDOM bytes, and lets it go. Where
// tracing is not allowed it returns an error wrapping ErrNoFixedSeed
// without starting anything: the caller may start cmd as it is.
func StartFixedSeed(cmd *exec.Cmd, seed [16]byte) error {
	if err := checkSeed(seed); err != nil {
		return err
	}
	// ptrace requests must come from the thread that started the tracee.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	if err := cmd.Start(); err != nil {
		cmd.Process = nil
		cmd.SysProcAttr.Ptrace = false
		if errors.Is(err, syscall.EPERM) {
			return fmt.Errorf("%w: %v", ErrNoFixedSeed, err)
		}
		return err
	}
	pid := cmd.Process.Pid
	fail := func(err error) error {
		cmd.Process.Kill()
		syscall.PtraceDetach(pid)
		return fmt.Errorf("callgrind: fixing the start-up seed of valgrind (pid %d): %w", pid, err)
	}
	// The first stop: the launcher's own exec.
	if err := waitTrap(pid); err != nil {
		return fail(err)
	}
	if err := syscall.PtraceSetOptions(pid, syscall.PTRACE_O_TRACEEXEC); err != nil {
		return fail(err)
	}
	// Run the launcher (a script, then valgrind's launcher binary) to its
	// exec of the tool, passing on any signal; the bytes are written at
	// every exec on the way.
	sig := 0
	for {
		if err := syscall.PtraceCont(pid, sig); err != nil {
			return fail(err)
		}
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
			return fail(err)
		}
		if ws.Exited() || ws.Signaled() {
			return fmt.Errorf("callgrind: valgrind ended before starting its tool (%v)", ws)
		}
		sig = 0
		if !ws.Stopped() {
			continue
		}
		if ws.StopSignal() != syscall.SIGTRAP {
			sig = int(ws.StopSignal())
			continue
		}
		if ws.TrapCause() != syscall.PTRACE_EVENT_EXEC {
			continue
		}
		if err := writeRandom(pid, seed); err != nil {
			return fail(err)
		}
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil {
			return fail(err)
		}
		if isTool(exe) {
			break
		}
	}
	if err := syscall.PtraceDetach(pid); err != nil {
		return fail(err)
	}
	return nil
}

// isTool reports whether exe is a valgrind tool binary, named
// TOOL-ARCH-OS ("callgrind-amd64-linux").
func isTool(exe string) bool {
	return strings.HasSuffix(filepath.Base(exe), "-amd64-linux")
}

// ErrNoFixedSeed is wrapped by StartFixedSeed's error when the process
// may not be traced (a container's seccomp policy, a ptrace_scope that
// forbids it).
var ErrNoFixedSeed = errors.New("cannot fix the start-up seed: tracing valgrind is not allowed")

// waitTrap waits for pid's SIGTRAP stop.
func waitTrap(pid int) error {
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		return err
	}
	if !ws.Stopped() || ws.StopSignal() != syscall.SIGTRAP {
		return fmt.Errorf("unexpected state %v at the first exec", ws)
	}
	return nil
}

// writeRandom writes seed over the AT_RANDOM bytes of the stopped
// process pid.
func writeRandom(pid int, seed [16]byte) error {
	auxv, err := os.ReadFile(fmt.Sprintf("/proc/%d/auxv", pid))
	if err != nil {
		return err
	}
	var addr uint64
	for i := 0; i+16 <= len(auxv); i += 16 {
		k, v := binary.LittleEndian.Uint64(auxv[i:]), binary.LittleEndian.Uint64(auxv[i+8:])
		if k == auxvRandom {
			addr = v
			break
		}
		if k == 0 {
			break
		}
	}
	if addr == 0 {
		return errors.New("no AT_RANDOM in the auxiliary vector")
	}
	mem, err := os.OpenFile(fmt.Sprintf("/proc/%d/mem", pid), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	if _, err := mem.WriteAt(seed[:], int64(addr)); err != nil {
		return err
	}
	return nil
}

//go:build unix

package callgrind

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own.
func ownProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

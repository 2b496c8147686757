//go:build unix

package certgen

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

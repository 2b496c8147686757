//go:build !unix

package certgen

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }

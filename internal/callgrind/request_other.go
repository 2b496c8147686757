//go:build !amd64

package callgrind

// request returns def: client requests are implemented for amd64 only.
func request(args *[6]uintptr, def uintptr) uintptr { return def }

// supported reports whether client requests work on this architecture.
const supported = false

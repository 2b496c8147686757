package callgrind

// request issues the client request args[0] with the arguments args[1:]
// and returns valgrind's answer, or def when the process does not run
// under valgrind.
//
//go:noescape
func request(args *[6]uintptr, def uintptr) uintptr

// supported reports whether client requests work on this architecture.
const supported = true

// Package callgrind measures Go code under Valgrind's callgrind, a
// simulated CPU that other tenants of a machine cannot disturb: client
// requests from Go assembly, no cgo ([Running], [ZeroStats], [Dump], ...;
// no-ops outside valgrind and off amd64, see [Supported]); running a
// program under it ([Command], [Env], [Session]); and reading its
// untrusted output files ([Parse], [ParseFile]; bounded, errors name the
// line).
//
// Go needs GODEBUG=cpu.rdtscp=off (valgrind cannot decode RDTSCP) and
// asyncpreemptoff=1 (preemption signals trip callgrind); windows are
// opened by client requests from the measured code, since
// --toggle-collect is unreliable across goroutine stack switches. A window
// counts every thread (collection on everywhere, instrumentation, which is
// global, as the switch): callgrind's collect toggle is per thread, and
// after a long syscall the scheduler resumes the measured goroutine, or
// runs those it started, on other threads. The runtime's sysmon thread is
// counted too, a little noise that grows with a window's length.
package callgrind

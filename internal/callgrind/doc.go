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
// counts every thread but the runtime's sysmon (collection on everywhere,
// the global instrumentation switch and monitor commands open and dump
// it, one file per thread): callgrind's collect toggle and client-request
// dumps are per thread, and after a long syscall the scheduler resumes
// the measured goroutine, or runs those it started, on other threads;
// sysmon wakes up with the clock, not with the measured code.
package callgrind

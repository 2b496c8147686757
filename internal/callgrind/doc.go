// Package callgrind measures Go code under Valgrind's callgrind tool, a
// simulated CPU whose instruction counts other tenants of a machine
// cannot disturb. It has three parts:
//
//   - Client requests, issued from a small Go assembly function with
//     valgrind's amd64 magic preamble (no cgo): [Running] asks valgrind
//     whether the process runs under it; [ZeroStats], [ToggleCollect],
//     [StartInstrumentation], [StopInstrumentation] and [Dump] drive
//     callgrind. Outside valgrind each is a few no-op instructions; on
//     architectures other than amd64 they do nothing and Running reports
//     false ([Supported]).
//   - Running a program under callgrind: [Command] builds the valgrind
//     command line ([Options.Args]) and environment ([Env]): collection
//     and instrumentation off at the start, recursion levels merged, a
//     fixed cache geometry for the optional cache simulation, and the
//     GODEBUG settings Go needs there ([GODEBUG]) with GOMAXPROCS=1. The
//     measured program opens a [Session] and measures stretches of code
//     with [Session.Collect], which reads back each stretch's dump.
//   - Reading callgrind's output files: [Parse] and [ParseFile] return
//     each part's events, totals and per-function self costs and calls,
//     resolving callgrind's name compression ("fn=(12) name", then
//     "fn=(12)") and relative positions. Input is untrusted: lines,
//     names and events are bounded, and errors name the line.
//
// Go under callgrind: the runtime reads the clock with RDTSCP, which
// valgrind 3.19 cannot decode (cpu.rdtscp=off); asynchronous preemption
// signals trip callgrind's signal handling (asyncpreemptoff=1); and
// callgrind's --toggle-collect=FUNCTION is unreliable for Go, whose
// goroutine stack switches confuse callgrind's call tracking, so windows
// are opened and closed by client requests from the measured code.
package callgrind

package regressions

// loop runs n iterations of WorkLoopInstructions instructions each
// (work_amd64.s).
func loop(n uint64) uint64

// workExact reports whether loop's instruction count per iteration is
// exact (assembly) rather than the compiler's.
const workExact = true

//go:build !amd64

package regressions

// loop runs n iterations of a short loop; the compiler decides how many
// instructions each takes (about WorkLoopInstructions).
//
//go:noinline
func loop(n uint64) uint64 {
	var x uint64
	for ; n > 0; n-- {
		x += n
		x = x<<5 | x>>59
	}
	return x
}

// workExact reports whether loop's instruction count per iteration is
// exact (assembly) rather than the compiler's.
const workExact = false

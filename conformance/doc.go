// Package conformance checks that a certificate store keeps the certstore
// contract, and compares the behaviour of two stores. A store author calls
// [Run] from a test in the store's package, with a [certstore.Factory]
// that makes a new, empty store, and runs it with the race detector:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func() certstore.Store { return mystore.New() })
//	}
//
// Each rule is a subtest with a stable name (NoConfiguration, Lookup/*,
// Stores/*, GeneratedDefault, Replace, Reject/*, Accept/*, Atomicity,
// Goroutines, HeldGenerations/*, Differential), run on a store of its own,
// closed at the end when it implements [certstore.Closer]. [Check] runs
// the same rules without a *testing.T and returns a [Report].
//
// [Differential] checks random configurations and lookups, drawn from a
// small alphabet so that names collide, against [certstore.Match]; the
// first divergence is shrunk and reported as a ready-to-paste Go test that
// calls [CheckCase]. Iteration i of a seed is the same whatever else runs;
// test flags run longer passes:
//
//	go test -run TestConformance/Differential ./stores/mystore -conformance.diff.duration=10m -conformance.diff.seed=7
//
// A store's documented [Deviation]s, declared where it registers
// ([Declare]) or passed in [Options], are counted under their names; any
// other divergence fails. [Compare] plays the same cases on two stores and
// reports each kind of difference once, shrunk, grouped by cause
// (docs/conformance.md). [FuzzUpdate] and [FuzzMatch] are bodies of fuzz
// targets on the same checks.
//
// A panic in a call into a store fails the rule; a panic in a goroutine
// the store starts, or a call that never returns, cannot be caught in
// process ("certbench conformance" runs Check in a child process). The
// rules count goroutines and measure the live heap: do not run the suite in
// parallel with others.
package conformance

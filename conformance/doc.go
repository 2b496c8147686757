// Package conformance checks that a certificate store keeps the certstore
// contract: the lookup rules, rejection of bad configurations without
// panics and without disturbing the published generation, atomic
// whole-configuration switches under concurrent lookups, and no goroutine
// growth across refreshes. It also compares the behaviour of two stores.
//
// A store author calls [Run] from a test in the store's package, with a
// [certstore.Factory] that makes a new, empty store, and runs it with the
// race detector:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func() certstore.Store { return mystore.New() })
//	}
//
// Each rule is a subtest with a stable name, run on a store of its own
// (closed at the end when it implements [certstore.Closer]):
//
//   - NoConfiguration: before the first Update, lookups return
//     certstore.ErrNoCertificate.
//   - Lookup/<case>, Stores/<case>: the matching rules (case, IP SANs,
//     common names, exact before wildcard, first-in-configuration
//     tie-breaks, defaults on a miss), the whole chain and key served,
//     several stores with their own defaults, unknown stores.
//   - GeneratedDefault: with no configured default, a miss gets one usable
//     certificate of the store's own making per generation.
//   - Replace: a configuration is complete; a held generation keeps
//     answering from its own.
//   - Reject/<case>, Accept/<case>: bad inputs return a
//     *certstore.CertificateError naming the certificate and leave the
//     previous generation serving; unusual but valid ones are served.
//   - Atomicity: under concurrent lookups, every generation comes from one
//     whole configuration and each Update is visible once it returns.
//   - Goroutines: no growth over many refreshes, none left after Close.
//   - Differential: the differential pass finds no divergence.
//
// [Check] runs the same rules without a *testing.T and returns a [Report]
// of per-rule results; "certbench conformance" renders it.
//
// [Differential] checks random configurations and lookups, drawn from a
// small alphabet so that names collide, against [certstore.Match], so that
// a bug no rule was written for still fails; the first divergence is
// shrunk and reported as a ready-to-paste Go test that calls [CheckCase].
// Iteration i of a seed is the same whatever else runs; test flags run
// longer passes:
//
//	go test -run TestConformance/Differential ./stores/mystore -conformance.diff.duration=10m -conformance.diff.seed=7
//
// A store's documented deviations from the rules are [Deviation]s,
// declared where the store registers ([Declare]) or passed in [Options]: a
// divergence one explains is counted under its name, any other fails.
//
// [Compare] plays the same generated cases on two stores (say, two
// versions of one) and reports each kind of difference once, shrunk, as
// "base served X, head serves Y" (or "X or Y" for an answer that varies
// between runs). [FuzzUpdate] and [FuzzMatch] are bodies of fuzz targets
// on the same cases, checks and shrinking.
//
// Every call into a store is guarded: a panic fails the rule with its
// value and stack. A panic in a goroutine the store starts itself, or a
// store that never returns, cannot be caught in process; the certbench
// command runs Check in a child process for that. The rules count
// goroutines: do not run the suite in parallel with other tests.
package conformance

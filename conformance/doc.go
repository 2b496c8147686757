// Package conformance checks that a certificate store keeps the certstore
// contract, and compares the behaviour of two stores. A store author calls
// [Run] from a test in the store's package, with a [certstore.Factory]
// that makes a new, empty store, and runs it with the race detector:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func() certstore.Store { return mystore.New() })
//	}
//
// Each rule is a subtest with a stable name, run on a store of its own
// (closed at the end when it implements [certstore.Closer]):
// NoConfiguration (lookups before the first Update fail with
// certstore.ErrNoCertificate), Lookup/* and Stores/* (the matching rules,
// the whole chain and key served, several stores, unknown stores),
// GeneratedDefault (a miss without a configured default gets one usable
// certificate per generation), Replace (a configuration is complete; a
// held generation keeps answering from its own), Reject/* and Accept/*
// (bad inputs return a *certstore.CertificateError naming the certificate
// and leave the previous generation serving; unusual valid ones are
// served), Atomicity (under concurrent lookups every generation comes
// from one whole configuration, visible once Update returns), Goroutines
// (no growth over refreshes, none left after Close) and Differential.
// [Check] runs the same rules without a *testing.T and returns a [Report].
//
// [Differential] checks random configurations and lookups, drawn from a
// small alphabet so that names collide, against [certstore.Match]; the
// first divergence is shrunk and reported as a ready-to-paste Go test that
// calls [CheckCase]. Iteration i of a seed is the same whatever else runs;
// test flags run longer passes:
//
//	go test -run TestConformance/Differential ./stores/mystore -conformance.diff.duration=10m -conformance.diff.seed=7
//
// A store's documented deviations are [Deviation]s, declared where the
// store registers ([Declare]) or passed in [Options]: a divergence one
// explains is counted under its name, any other fails. [Compare] plays the
// same generated cases on two stores and reports each kind of difference
// once, shrunk, as "base served X, head serves Y", grouped by cause. A
// lookup on a held generation that one side answers as it does with the
// last configuration applied, not as with the held one, and the other
// side does not, has the cause "held generations of that side serve a
// later configuration"; any other's cause is its kind of difference: an
// Update's outcome, an answer from another configuration than the one
// held, a tie broken differently, or another kind of match, default or
// error. [FuzzUpdate] and
// [FuzzMatch] are bodies of fuzz targets on the same checks.
//
// Every call into a store is guarded: a panic fails the rule with its
// value and stack. A panic in a goroutine the store starts, or a store
// that never returns, cannot be caught in process; "certbench conformance"
// runs Check in a child process for that. The rules count goroutines: do
// not run the suite in parallel with other tests.
package conformance

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
//     certstore.ErrNoCertificate, and a generation held from then stays so.
//   - Lookup/<case>: the matching rules of one store (lowercased SNI,
//     non-ASCII letters, exact names before one-label wildcards, IP SANs,
//     common names, first-in-configuration tie-breaks, the configured
//     default on a miss or an empty SNI), the whole chain and a matching
//     key served, the Config left unmodified.
//   - Stores/<case>: certificates in several stores, per-store defaults,
//     declared stores without certificates, unknown stores.
//   - GeneratedDefault: with no configured default, a miss gets one usable
//     certificate of the store's own making per generation.
//   - Replace: a configuration is complete, and a held generation keeps
//     answering from its own.
//   - Reject/<case>: bad inputs return a *certstore.CertificateError with
//     the right Index (and Store), never panic, leave the previous
//     generation serving, and leave the store able to take the next one.
//   - Accept/<case>: unusual but valid configurations (expired
//     certificates, duplicate names, RSA, Ed25519, PKCS#1 and SEC 1 keys, an
//     empty configuration).
//   - Atomicity: while one writer applies whole configurations, readers see
//     every held generation come from one configuration and every lookup
//     from some complete one, and each Update is visible once it returns.
//   - Goroutines: no growth over 1,000 refreshes, none left after Close.
//   - Differential: the differential pass finds no divergence.
//
// [Check] runs the same rules without a *testing.T and returns a [Report]
// of per-rule results; "certbench conformance" renders it.
//
// # Differential pass
//
// [Differential] checks random cases against [certstore.Match], so that a
// bug no rule was written for still fails. An iteration applies one to four
// whole configurations of a few certificates drawn from a small alphabet
// (names collide; shared and overlapping wildcards, IP literals in every
// spelling, mixed case, duplicates, several stores and defaults, renewals
// that change names) and looks up names drawn from them (parents,
// children, near misses, other spellings, junk) in each new generation and
// in generations held from earlier updates. Iteration i of a seed is the
// same whatever else runs. The first divergence is shrunk (fewest
// configurations, certificates, names and labels) and reported as a
// ready-to-paste Go test that calls [CheckCase].
//
// Run does [DefaultDiffIterations] iterations, stopping early at
// [DefaultDiffTimeCap] for a slow store; test flags run longer passes:
//
//	go test -run TestConformance/Differential ./stores/mystore -conformance.diff.duration=10m -conformance.diff.seed=7
//
// A store's documented deviations from the rules are [Deviation]s,
// declared where the store registers ([Declare]) or passed in [Options]: a
// divergence one explains is counted under its name, any other fails.
//
// # Behaviour diff
//
// [Compare] plays the same generated cases on two stores (say, two
// versions of one) and reports each kind of difference between them once,
// shrunk, as "base served X, head serves Y". The stores are compared with
// each other, not with certstore.Match, so a declared deviation hides no
// change. Each case runs several times per store, so that a store whose
// answer varies between runs (map order) is reported as serving "X or Y".
//
// # Fuzzing
//
// [FuzzUpdate] and [FuzzMatch] are bodies of fuzz targets a store runs
// from its own tests, on the same cases, checks and shrinking.
//
// Every call into a store is guarded: a panic fails the rule with its
// value and stack. A panic in a goroutine the store starts itself, or a
// store that never returns, cannot be caught in process; the certbench
// command runs Check in a child process for that. The rules count
// goroutines: do not run the suite in parallel with other tests.
package conformance

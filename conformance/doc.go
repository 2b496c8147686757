// Package conformance is the test suite every certificate store runs to show
// that it keeps the certstore contract: the lookup rules, validation of bad
// configurations without panics and without disturbing the published
// generation, atomic whole-configuration switches under concurrent lookups,
// and no goroutine growth across refreshes.
//
// A store author calls [Run] from an ordinary test in the store's package,
// with a [certstore.Factory] that makes a new, empty store:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func() certstore.Store { return mystore.New() })
//	}
//
// and runs it with the race detector, so that data races in the store fail
// the atomicity check too:
//
//	go test -race -run TestConformance ./stores/mystore
//
// Run makes a new store for every check (calling Close at the end of the
// check when the store implements [certstore.Closer]), so checks do not
// depend on each other. Its subtests have stable names, so a failure names
// the rule that was broken:
//
//   - NoConfiguration: before the first Update, lookups return
//     certstore.ErrNoCertificate, and a generation held from then stays so.
//   - Lookup/<case>: the matching rules of one store (lowercased SNI,
//     non-ASCII letters and the Kelvin sign included, exact
//     names before wildcards, one-label wildcards, IP SANs, common names,
//     first-in-configuration tie-breaks, configured default on a miss or an
//     empty SNI), each expectation also checked against [certstore.Match].
//     Lookup/ChainAndKey checks that the whole configured chain and a
//     matching private key are served; Lookup/ConfigurationUnmodified that
//     the store did not modify the Config it was given.
//   - Stores/<case>: certificates in several stores, store-only
//     certificates, per-store defaults and tie-breaks, a declared store
//     without certificates, unknown stores (certstore.ErrUnknownStore).
//   - GeneratedDefault: with no configured default, a miss gets a usable
//     certificate that is none of the configured ones, the same one for every
//     lookup within a generation.
//   - Replace: a configuration is complete (certificates and stores absent
//     from it are gone) and a held generation keeps answering from its own
//     configuration.
//   - Reject/<case>: bad inputs applied after a good configuration (malformed
//     or empty PEM, mismatched keys, certificates without names, undeclared
//     stores, 5 MB of garbage, bad configured defaults) return a
//     *certstore.CertificateError with the right Index (-1 and the right
//     Store for a configured default), never panic, leave the previous generation serving exactly as
//     before, and leave the store able to take the next good configuration.
//   - Accept/<case>: documented behaviour for unusual but valid
//     configurations (expired and not-yet-valid certificates, duplicate names,
//     the same certificate twice, several stores, RSA, Ed25519, PKCS#1 and
//     SEC 1 keys, a chain without intermediates, an empty configuration).
//   - Atomicity: one writer applies 160 whole configurations (each renewing
//     every certificate and default) while readers look every name up; all lookups within one held generation
//     come from one configuration, every single lookup comes from some
//     complete configuration, and every Update is visible once it returns.
//   - Goroutines: the number of goroutines does not grow over 1,000
//     refreshes, and no goroutine the store started is still running
//     after Close (for a store that implements [certstore.Closer]).
//   - Differential: the differential pass (below) finds no divergence.
//
// # Differential pass
//
// The rules above check chosen cases; the differential pass ([Differential])
// checks random ones against [certstore.Match], so that a bug no rule was
// written for still fails. Each iteration generates a sequence of one to
// four whole configurations of a handful of certificates, biased toward the
// hard cases: a small label alphabet (so names collide), shared wildcards,
// exact and wildcard names that overlap across certificates, IP SANs and
// IP common names in v4 and v6 spellings (compressed, expanded, zero-padded,
// uppercase, v4-mapped), mixed case and non-ASCII common names, duplicate
// names and the same certificate twice (first-in-configuration ties),
// several stores with and without configured defaults, defaults that share
// a name with a configured certificate, and later configurations that renew
// a few certificates (some with changed names), add, remove or reorder
// certificates and change stores and defaults. After each Update it looks
// up names drawn from the configuration (as written and in other cases,
// parents, children, grandchildren of wildcards, near misses, other
// spellings of its addresses) and junk, in its stores and in unknown ones,
// through Store.Certificate and Current(), and looks some of them up again
// in the generations held from earlier updates, which must keep answering
// from their own configuration. Every answer is compared by leaf DER with
// what certstore.Match says for that configuration (a generated default must
// be usable and none of the configured certificates).
//
// Iteration i of a seed is the same whatever else runs (math/rand/v2 PCG
// seeded with the seed and i), so a divergence is reproducible from the seed
// and iteration alone. The first divergence is shrunk by greedy delta
// debugging (drop configurations, certificates, defaults, stores and names;
// delete or shorten labels everywhere; lowercase; write addresses
// canonically) while the store still diverges, and reported as a ready-to-
// paste Go test that calls [CheckCase] with the shrunk [Case], with the
// answer certstore.Match wants and the one the store gave.
//
// Run does a bounded pass: [DefaultDiffIterations] iterations (a few
// seconds under the race detector), stopping early after
// [DefaultDiffTimeCap] for a store with slow updates (the summary says how
// many ran). Longer or other passes come from test flags,
//
//	go test -run TestConformance/Differential ./stores/mystore -conformance.diff.duration=10m -conformance.diff.seed=7
//
// (also -conformance.diff.iterations), from [RunWith] with
// [DifferentialOptions], or from "certbench conformance --duration 10m".
// A store with documented deviations from the rules passes them as
// [Deviation]s: a divergence that one explains is counted under its name
// and shown shrunk as an example, not reported as a failure, and a
// divergence that none explains is shrunk only through cases none explains.
//
// Certificates are issued by a deterministic Ed25519 CA and kept in a
// process-wide cache keyed by their names, so configurations that recur
// cost no issuance.
//
// Every call into the store is guarded: a panic fails the check with the
// panic value and stack instead of crashing the test binary (a panic in a
// goroutine the store starts itself cannot be caught).
//
// Run takes about 5 to 15 seconds (plus the differential pass) under the race detector on a two-core
// machine with a simple store; its work is bounded by counts, not by time.
// It counts goroutines, so it must not run in parallel with other tests of
// the same binary (do not call t.Parallel in the calling test).
package conformance

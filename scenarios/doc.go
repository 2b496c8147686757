// Package scenarios makes the certificate churn that certbench measures:
// deterministic pools of certificates and the catalogue of scenarios, each a
// sequence of whole configurations to apply to a store.
//
// Pools are byte-identical for equal specs on any machine and in any run, so
// that a base and a head run measure the same input. Go 1.26 ignores custom
// random readers for key generation and ECDSA signing, so the pools avoid
// randomness altogether: the issuer is an Ed25519 CA (deterministic
// signatures), P-256 leaf keys are scalars derived from the seed, and RSA-2048
// leaves use a small set of committed keys.
//
// Pools of DiskCacheMin (5,000) certificates or more are kept on disk after
// their first generation (see PoolCacheDir and LoadPool): a pool of 100,000
// P-256 certificates takes about 8 s to generate on two idle cores (16 s of
// CPU) and 1 to 2 s to load (about 2 s of CPU, most of it re-encoding PEM). The cache is never required: a missing, corrupt or stale
// file is regenerated.
//
// Besides the fixed catalogue, Families make scenarios at any pool size
// (renew-1-of-N, noop-N, rotate-10-of-N, startup-N) for certbench sweep.
// The handshake-under-churn scenario (kind HandshakeUnderChurn) pairs the
// lookup mix of lookup-1000 with back-to-back renew-1 refreshes; package
// bench measures its lookup latency percentiles and refresh rate.
package scenarios

// Package certgen makes the certificates certbench measures: deterministic
// issuers and leaves, pools of them, and the on-disk pool cache.
//
// Pools are byte-identical for equal specs on any machine and in any run, so
// that a base and a head run measure the same input. Go 1.26 ignores custom
// random readers for key generation and ECDSA signing, so the pools avoid
// randomness altogether: the issuer is an Ed25519 CA (deterministic
// signatures), P-256 leaf keys are scalars derived from the seed, and
// RSA-2048 leaves use a small set of committed keys.
//
// Pools of DiskCacheMin (5,000) certificates or more are kept on disk after
// their first generation (see PoolCacheDir and LoadPool): a pool of 100,000
// P-256 certificates takes about 8 s to generate on two idle cores (16 s of
// CPU) and 1 to 2 s to load (about 2 s of CPU, most of it re-encoding PEM).
// The cache is never required: a missing, corrupt or stale file is
// regenerated.
//
// certgen imports only certstore: the conformance suite and the scenario
// catalogue both build on it.
package certgen

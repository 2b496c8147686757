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
// Pools of DiskCacheMin certificates or more are kept on disk after their
// first generation (see PoolCacheDir and LoadPool), since loading one costs
// far less than generating it. The cache is never required: a missing,
// corrupt or stale file is regenerated.
//
// certgen imports only certstore: the conformance suite and the scenario
// catalogue both build on it.
package certgen

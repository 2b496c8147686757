// Package certgen makes the certificates certbench measures: deterministic
// issuers and leaves, pools of them, the on-disk pool cache, and a user's
// certificates loaded as a pool (Load).
//
// Pools are byte-identical for equal specs on any machine, so that a base
// and a head run measure the same input. Go ignores custom random readers
// for key generation and ECDSA signing, so pools use no randomness: an
// Ed25519 CA, P-256 scalars derived from the seed, and committed RSA keys.
package certgen

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
package scenarios

// Package optimized is a certstore.Store that parses each certificate once
// and stops copying and re-parsing on every refresh, while every refresh
// still switches the whole TLS configuration atomically.
//
// Update builds a complete new generation off to the side and publishes it
// with one atomic.Pointer store; a published generation is never modified,
// so a handshake sees one configuration throughout. Updates are serialized
// by a mutex; lookups take no lock. Nothing shared changes until every
// certificate has parsed.
//
// Entries are keyed by a seeded 128-bit hash of their PEM content, not
// slice identity: a proxy re-reads its configuration into new buffers on
// every refresh. The store keeps exactly the entries the current
// generation uses, so nothing grows without bound. Only the names of
// changed positions are re-resolved into persistent hash tries (index.go);
// a name several positions claim keeps every claimant, so ties resolve as
// a rebuild would (first configured wins).
//
// Parsing follows tls.X509KeyPair's rules; leaves of the common CA-issued
// profile are read without x509.ParseCertificate (leaf.go), and every
// other leaf, or a pair that fails, goes through crypto/x509, so the store
// accepts and rejects exactly what crypto/x509 does. A store without a
// configured default shares one lazily generated P-256 certificate. An
// ASCII host-name lookup allocates nothing.
package optimized

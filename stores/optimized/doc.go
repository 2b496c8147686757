// Package optimized is a certstore.Store that gets the memory and CPU wins
// Traefik PR #10302 was after (parse each certificate once, stop copying and
// re-parsing on every refresh) without giving up what that PR was rejected
// for: every refresh still switches the whole TLS configuration atomically.
//
// # Atomic whole-configuration switch
//
// Update builds a complete new generation (an exact-name index, a wildcard
// index keyed by parent domain, an IP index and the default certificate for
// every store; unchanged parts shared with the published generation) off
// to the side, then publishes it with a single
// atomic.Pointer store. A published generation is never modified, so a
// handshake, or a caller holding Store.Current, sees one configuration from
// start to end, and never a mix of two. Updates are serialized by a mutex;
// lookups take no lock at all. A configuration that fails validation (bad
// PEM, a key that does not match, a certificate without names, an unknown
// store) is rejected as a whole with a *certstore.CertificateError and the
// published generation keeps serving untouched: nothing shared is modified
// until every certificate has parsed.
//
// # Parse once, reuse by content
//
// The incremental win comes from sharing immutable entries between
// generations instead of mutating a live store. Each distinct (certificate
// PEM, key PEM) pair is parsed once into an entry; the next Update finds the
// pairs whose bytes did not change and puts the same entries, with the same
// *tls.Certificate pointers, in the new generation. Pairs are identified by
// content, not by slice identity, since a proxy re-reads its configuration
// into new buffers on every refresh: the key is 128 bits of seeded maphash
// over both PEM inputs (see keyOf for why that is enough), looked up in the
// store's entry map. That map holds exactly the entries the current
// generation uses, so entries that are no longer configured drop
// out of it on the next Update and are collected once no generation that
// is still held references them; nothing grows without bound. The same
// pair twice in one configuration, or a configured default that is also a
// configured certificate, is one entry.
//
// When the certificates, their stores and the defaults are all unchanged,
// Update publishes nothing: the current generation already is that
// configuration. Otherwise a refresh costs the hashing (every PEM byte is
// read, the floor for knowing nothing else changed) plus what changed: the
// new configuration is compared position by position with the published
// one (or, when the number of certificates changed, between their longest
// common prefix and suffix), and only the names of the positions that
// differ are re-resolved. The name indexes are persistent: each is a
// two-level hash trie whose leaves are small open-addressing tables
// (table, in index.go), so the new generation copies the directory and the
// few leaves those names live in and shares every other leaf with the
// published generation, which is never modified. Renewing one certificate
// of 10,000 allocates a few tens of kilobytes, of 100,000 under 200 KB.
// Where several positions claim a name, the leaf keeps every claimant, so a
// removal or a tie between an unchanged and a changed certificate is
// decided exactly as a rebuild would decide it (the first in configuration
// order wins); a randomized test compares the two after every step. When
// more than an eighth of the positions change, the indexes are built from
// scratch instead. The store's own bookkeeping of the published
// configuration (content keys, entries in order, reference counts) is
// changed in place under the update mutex once the new configuration has
// parsed; lookups never read it.
//
// New pairs are parsed on the
// caller's goroutine, or, from 32 new pairs on, on GOMAXPROCS goroutines
// that all finish before Update returns; no goroutine outlives an Update.
// Content keys of configurations of 16,384 pairs or more are hashed on
// GOMAXPROCS goroutines too (a no-op refresh of 100,000 pairs: about 60 ms
// on one core, under 40 ms on two), into a buffer the store keeps (16 bytes
// per pair) so that an unchanged refresh still allocates next to nothing;
// smaller ones are compared as they are hashed, keeping only changed keys.
// Parsing follows tls.X509KeyPair's rules but skips three of its costs: the
// key is parsed with the parser its PEM type names first (X509KeyPair tries
// PKCS #1 first and fails slowly on PKCS #8 and SEC 1 keys); the PEM text
// after the leaf, the intermediates, is decoded once per distinct text; and
// a leaf of the common profile of CA-issued server certificates (version 3,
// the usual extensions in their usual forms: see leaf.go) whose public key
// is the canonical encoding of its private key's is read for its names
// without x509.ParseCertificate, which would allocate about 4.4 KB for the
// three facts the store needs (about half of a startup's allocations). Every
// other leaf, and every pair that fails, goes through crypto/x509, so the
// store accepts and rejects exactly what crypto/x509 does, with its errors;
// FuzzReadLeaf checks that the profile reader never accepts a leaf
// crypto/x509 rejects and reads the same names and key.
//
// # Default certificates
//
// A store with no configured default serves a self-signed P-256 certificate
// that the Store generates once, lazily, in the first Update that needs it,
// and shares between all such stores (and all generations) instead of
// generating an RSA-2048 certificate on every refresh as Traefik does. It is
// renewed only when it is within 30 days of its one-year expiry. Configured
// defaults go through the same entry cache as certificates.
//
// # Memory
//
// A held P-256 certificate costs about 1.3 KB of heap at 10,000 certificates
// (BenchmarkRetained10000), indexes included; about 900 bytes of it are the
// leaf DER and the private key, the floor for any tls.Certificate:
//
//   - Certificate.Leaf is not kept. crypto/tls never reads Leaf for a
//     certificate returned by GetCertificate (only SupportsCertificate and
//     the deprecated NameToCertificate path look at it), and the parsed
//     x509.Certificate would triple the size of an entry. Names are taken
//     from the leaf once, when it is parsed, and kept in the store's own
//     indexes.
//   - Intermediate and issuer certificates are interned: all entries whose
//     chain has the same DER share one copy of it (typically every
//     certificate of an ACME account shares one issuer).
//   - PEM input is never retained: entries keep the leaf DER and key only.
//   - The names of an entry are one string; index keys are substrings of
//     it, so every name is owned once, and index slots point straight at
//     the entry that holds the *tls.Certificate.
//   - An ECDSA key and its three big.Ints are re-materialized in one
//     allocation (240 bytes instead of 336).
//
// # Lookups
//
// A lookup of an ASCII host name allocates nothing and takes a few tens of
// nanoseconds: the SNI is lowercased into a stack buffer only when it has an
// upper-case letter (one with non-ASCII bytes goes through strings.ToLower,
// as certstore.NormalizeServerName does, which allocates only when it
// changes the name), a name is hashed once and compared as string(buf[:n])
// (which the compiler does not allocate for), a wildcard lookup indexes the
// wildcard table with the parent domain as a substring of the SNI, and an SNI that is an IP address is parsed with
// net/netip into a netip.Addr key (host names are told apart from addresses
// without calling netip.ParseAddr, whose errors allocate). Where several
// certificates claim a name at the same level, the one first in
// Config.Certificates wins: a build fills the indexes in configuration
// order and keeps the first claimant of a name, and an update that touches
// a name several positions claim finds the first of them in the new
// configuration.
package optimized

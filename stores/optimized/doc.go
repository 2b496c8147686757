// Package optimized is a certstore.Store that gets the memory and CPU wins
// Traefik PR #10302 was after (parse each certificate once, stop copying and
// re-parsing on every refresh) without giving up what that PR was rejected
// for: every refresh still switches the whole TLS configuration atomically.
//
// # Atomic whole-configuration switch
//
// Update builds a complete new generation (an exact-name index, a wildcard
// index keyed by parent domain, an IP index and the default certificate for
// every store) off to the side, then publishes it with a single
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
// entry map of the current generation. That map holds exactly the entries
// the current generation uses, so entries that are no longer configured drop
// out of it on the next Update and are collected once no generation that
// is still held references them; nothing grows without bound. The same
// pair twice in one configuration, or a configured default that is also a
// configured certificate, is one entry.
//
// When the certificates, their stores and the defaults are all unchanged,
// Update publishes nothing: the current generation already is that
// configuration. Otherwise it rebuilds the indexes, which costs a few map
// inserts per name, far less than parsing. New pairs are parsed on the
// caller's goroutine, or, from 32 new pairs on, on GOMAXPROCS goroutines
// that all finish before Update returns; no goroutine outlives an Update.
// Content keys of configurations of 16,384 pairs or more are hashed on
// GOMAXPROCS goroutines too (a no-op refresh of 100,000 pairs: about 60 ms
// on one core, under 40 ms on two), into a buffer the store keeps (16 bytes
// per pair) so that an unchanged refresh still allocates next to nothing.
// Parsing follows tls.X509KeyPair's rules but skips two of its costs: the
// key is parsed with the parser its PEM type names first (X509KeyPair tries
// PKCS #1 first and fails slowly on PKCS #8 and SEC 1 keys), and the PEM text
// after the leaf, the intermediates, is decoded once per distinct text.
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
//   - The names of an entry are one string; index map keys are substrings of
//     it, so every name is owned once, and the index maps map straight to
//     *tls.Certificate.
//   - An ECDSA key and its three big.Ints are re-materialized in one
//     allocation (240 bytes instead of 336).
//
// # Lookups
//
// A lookup of an ASCII host name allocates nothing and takes a few tens of
// nanoseconds: the SNI is lowercased into a stack buffer only when it has an
// upper-case letter (one with non-ASCII bytes goes through strings.ToLower,
// as certstore.NormalizeServerName does, which allocates only when it
// changes the name), map
// lookups index with string(buf[:n]) (which the compiler does not allocate
// for), a wildcard lookup indexes the wildcard map with the parent domain as
// a substring of the SNI, and an SNI that is an IP address is parsed with
// net/netip into a netip.Addr key (host names are told apart from addresses
// without calling netip.ParseAddr, whose errors allocate). Where several
// certificates claim a name at the same level, the one first in
// Config.Certificates wins: indexes are filled in reverse configuration
// order, so the last writer of a name, which keeps it, is the first
// certificate that claims it.
package optimized

// Package optimized is a certstore.Store that parses each certificate once
// and stops copying and re-parsing on every refresh, while every refresh
// still switches the whole TLS configuration atomically.
//
// # Atomic whole-configuration switch
//
// Update builds a complete new generation (exact, wildcard and IP indexes
// and the default certificate of every store) off to the side and
// publishes it with one atomic.Pointer store. A published generation is
// never modified, so a handshake, or a caller holding Store.Current, sees
// one configuration from start to end. Updates are serialized by a mutex;
// lookups take no lock. A configuration that fails validation is rejected
// as a whole with a *certstore.CertificateError, and nothing shared is
// modified until every certificate has parsed.
//
// # Parse once, reuse by content
//
// Each distinct (certificate PEM, key PEM) pair is parsed once into an
// immutable entry, identified by a 128-bit seeded hash of its content (a
// proxy re-reads its configuration into new buffers on every refresh, so
// slice identity says nothing). The next Update reuses the entries whose
// bytes did not change, with the same *tls.Certificate pointers. The store
// keeps exactly the entries the current generation uses, so nothing grows
// without bound.
//
// An unchanged configuration publishes nothing. Otherwise a refresh costs
// the hashing of every PEM byte plus what changed: the new configuration
// is compared position by position with the published one (or, when its
// length changed, between their longest common prefix and suffix), and
// only the names of the changed positions are re-resolved. The indexes are
// persistent hash tries (table, in index.go): a new generation copies the
// few leaves the changed names live in and shares the rest. A name several
// positions claim keeps every claimant, so ties resolve as a rebuild would
// (first in configuration order wins). Past an eighth of the positions
// changed, the indexes are rebuilt instead.
//
// Large configurations are parsed and hashed on GOMAXPROCS goroutines that
// all finish before Update returns. Parsing follows tls.X509KeyPair's
// rules but parses the key with the parser its PEM type names first,
// decodes each distinct intermediate chain once, and reads leaves of the
// common CA-issued profile without x509.ParseCertificate (leaf.go). Every
// other leaf, and every pair that fails, goes through crypto/x509, so the
// store accepts and rejects exactly what crypto/x509 does, with its errors.
//
// # Default certificates
//
// A store with no configured default serves a self-signed P-256
// certificate generated once, lazily, and shared by all such stores and
// generations; it is renewed only when it nears expiry. Configured defaults
// go through the same entries as certificates.
//
// # Memory
//
// Entries keep no Certificate.Leaf (crypto/tls does not read it for
// GetCertificate results) and no PEM input; intermediate chains and their
// DER are interned; an entry's names are one string that the index keys
// are substrings of; an ECDSA key and its big.Ints share one allocation.
//
// # Lookups
//
// A lookup of an ASCII host name allocates nothing: the SNI is lowercased
// into a stack buffer when needed, hashed once, and an IP SNI is parsed
// into a netip.Addr key (host names are told apart from addresses without
// netip.ParseAddr, whose errors allocate). Where several certificates
// claim a name at the same level, the first in Config.Certificates wins.
package optimized

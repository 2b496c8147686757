// Package certstore is the contract between certbench and the TLS certificate
// stores it measures.
//
// A proxy hands a store its whole TLS configuration on every refresh:
// every certificate (PEM chain and key), the named stores each belongs to,
// and per store an optional default. The store validates it and publishes
// one generation; handshakes look up in a published generation and never
// see a mix of two.
//
// # Configuration
//
// A [Config] is complete: absent certificates are gone. A certificate
// naming no store belongs to [DefaultStore], which always exists; any
// other store named must be declared in [Config.Stores].
//
// # Validation
//
// Update rejects the whole configuration, and the published generation
// keeps serving, when any certificate (or configured default, even an empty
// KeyPair) has PEM that does not decode, a key that does not match its
// leaf, no name (no DNS name, IP address or common name), or names an
// undeclared or empty store. The error is a [*CertificateError] naming the
// certificate by index and, where known, first name. A nil *Config is
// rejected with an error, never a panic. Expired and not-yet-valid
// certificates are accepted: validity is the client's to check.
//
// # Lookup rules
//
// A lookup takes a store name and a TLS ClientHello's server name (SNI):
//
//   - the name is normalized by [NormalizeServerName] (lowercased with
//     [strings.ToLower], Unicode included) and certificate names by [Names],
//     so case never matters. An empty name (no SNI) gets the store's
//     default, and so does a nil *tls.ClientHelloInfo;
//   - an exact name wins over a wildcard: a certificate whose DNS names or
//     common name equal the SNI;
//   - an IP address SNI matches certificates with that IP SAN (any textual form
//     of the address, compared as addresses);
//   - a wildcard name covers exactly one label: "*.example.com" matches
//     "a.example.com" but not "a.b.example.com" nor "example.com";
//   - when several certificates match at the same level, the one that comes
//     first in [Config.Certificates] wins;
//   - with no match the store's default certificate is returned: the
//     configured one, or one the store generates itself;
//   - a lookup in a store that the configuration does not have (including
//     the empty name; store names are case-sensitive) returns
//     [ErrUnknownStore].
//
// [Match] is the reference implementation of these rules, used by the
// conformance suite; stores implement them with their own indexes.
//
// A store with no configured default serves one it generates; [SelfSigned]
// makes such a certificate.
//
// # Registry
//
// Stores [Register] a [Factory] under a name from an init function, as
// database/sql drivers do.
//
// # Writing a store
//
// A store module needs a type implementing [Store], a test calling
// conformance.Run, a benchmark calling bench.Benchmark and, for the
// certbench command, an init function calling [Register] and a main
// package calling cli.Main: see examples/mystore.
package certstore

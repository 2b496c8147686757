// Package certstore is the contract between certbench and the TLS certificate
// stores it measures.
//
// A proxy hands a store its whole TLS configuration on every refresh: every
// certificate (PEM chain and PEM key), the named stores each certificate belongs
// to, and per store an optional default certificate. The store validates the
// configuration, builds what it needs to answer handshakes, and publishes the
// result as one generation. Handshakes look certificates up in a published
// generation and never see a mix of two configurations.
//
// # Configuration
//
// A [Config] is complete: certificates that are absent from it are gone.
// A certificate that names no store belongs to [DefaultStore]. The default
// store always exists; any other store a certificate names must be declared in
// [Config.Stores], otherwise the update is rejected.
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
// Stores register a [Factory] under a name from an init function, the way
// database/sql drivers do, so that a command can list them and a third party
// can add one by importing its package. [Register] documents the names it
// refuses.
//
// # Writing a store
//
// A store module needs a type implementing [Store], a test calling
// conformance.Run, a benchmark calling bench.Benchmark with the store's
// constructor and, for the certbench command, an init function calling
// [Register] and a main package calling cli.Main. The repository's
// examples/mystore is such a module, with a CI workflow.
package certstore

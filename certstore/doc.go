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
// Update rejects the whole configuration, and the previously published
// generation keeps serving untouched, when any certificate (or configured
// default) has PEM that does not decode, a key that does not match its leaf,
// no name at all (no DNS name, IP address or common name), or names an
// undeclared store (or an empty store name). A configured default
// certificate that is set (even to an empty KeyPair) is validated like any
// other. The error is a [*CertificateError] naming the certificate
// by its index and, where known, its first name. A nil *Config is rejected
// too, with an error that need not be a *CertificateError, and never a
// panic. Expired and not-yet-valid
// certificates are accepted: a store serves what it is given, as Traefik does;
// validity is the proxy's business and the client's to check.
//
// # Lookup rules
//
// A lookup takes a store name and a TLS ClientHello's server name (SNI):
//
//   - the name is lowercased with [strings.ToLower] semantics, Unicode
//     included: "Éxample.test" and "ÉXAMPLE.TEST" are both "éxample.test",
//     the Kelvin sign (U+212A) becomes an ASCII "k", and invalid UTF-8 bytes
//     become U+FFFD. Certificate names (DNS names and common names) are
//     lowercased the same way when they are indexed, so case never matters,
//     whether or not the SNI also has an ASCII capital. An SNI that is an IP
//     address is compared as an address instead (see below). An empty name
//     (no SNI) gets the store's default, and so does a nil
//     *tls.ClientHelloInfo, which lookups accept without panicking;
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
// # Ownership
//
// A [Config] handed to Update is read-only from then on, for the caller and
// the store: the store may keep references to it, and neither side modifies
// it. Certificates returned by lookups are shared and must not be modified.
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
// A store module needs: a type implementing [Store]; a test calling
// conformance.Run (package conformance); a benchmark calling
// bench.Benchmark, which takes the store's own constructor (a func
// returning the concrete type is fine); and, to use the certbench command,
// an init function calling [Register] and a main package calling cli.Main.
// The directory examples/mystore of the certbench repository is such a
// module, complete with a CI workflow.
package certstore

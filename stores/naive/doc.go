// Package naive is a faithful model of Traefik v3's TLS manager (pkg/tls
// Manager.UpdateConfigs and CertificateStore.GetBestCertificate), written
// from a description of it, not from its source. It is the baseline that
// certbench measures other stores against: its costs are meant to track the
// real thing, so it keeps Traefik's expensive steps on purpose.
//
// # What is modelled
//
// A refresh (Update) runs under one lock that serializes refreshes, as
// Traefik's UpdateConfigs runs under the manager's write lock:
//
//  1. Store names default to "default"; every certificate that names no store
//     goes to "default". Traefik also always creates an "acme-tls/1" store
//     (for ACME TLS-ALPN-01 challenges) and never generates a default
//     certificate for it; the model builds that store too, with its own
//     empty certificate map and lookup cache, but hides it from lookups
//     unless the configuration declares it (then it is an ordinary store and
//     gets a default, as the contract requires).
//  2. For each certificate, the PEM certificate and key are copied (Traefik's
//     FileOrContent.Read returns fresh bytes on every read) and parsed with
//     tls.X509KeyPair (PEM decode, leaf parse, key parse and match). The
//     names of the leaf (common name, DNS names, IP addresses, see
//     certstore.Names) are sorted and joined with "," into the SAN key.
//  3. Per store the certificate is added to a map keyed by SAN key, after a
//     linear scan of the keys already there for a duplicate (so a refresh is
//     O(n²)); the first certificate for a key wins.
//  4. Wipe and rebuild: every refresh makes a brand-new map of stores, each
//     with a brand-new certificate map and a brand-new lookup cache (a model
//     of go-cache: a map of items with a 1h expiry under its own RWMutex).
//  5. Per store, a configured default certificate is copied and parsed again;
//     with none configured, a NEW self-signed RSA-2048 certificate ("TRAEFIK
//     DEFAULT CERT", a random "*.traefik.default" DNS name, one year of
//     validity) is generated, PEM-encoded and parsed back with
//     tls.X509KeyPair, as Traefik does for a store without a default. This
//     key generation dominates a refresh, in Traefik and here.
//  6. The new map of stores is published by swapping one pointer under a
//     write lock; readers take the read lock to fetch the current map
//     (Traefik's GetStore). A published map is never mutated afterwards;
//     only the per-store lookup caches fill in, with answers computed from
//     that same generation.
//
// A lookup (Traefik's GetBestCertificate) lowercases the SNI, answers an
// empty SNI with the store's default, then checks the store's cache. On a
// miss it collects every SAN key of the store and sorts them in reverse
// (allocating on every miss), splits each key on "," and compares each name
// with the SNI the way Traefik's matchDomain does: an equality test, then
// one wildcard candidate built by splitting the SNI on "." and joining it
// back with its first label replaced by "*" (allocating per name), as
// Traefik v3.7's matchDomain does. A match is cached for an
// hour; a miss is not cached and gets the store's default certificate.
//
// # Where the model follows the certstore contract instead of Traefik
//
//   - Traefik logs and skips a bad certificate; the model rejects the whole
//     update with a *certstore.CertificateError before building anything,
//     and the previous generation keeps serving.
//   - Traefik picks among matches by sorting the matched names and taking the
//     greatest (exact names sort after "*."), breaking ties between
//     certificates with the same name by map iteration order. The model
//     ranks exact over wildcard and breaks ties by position in
//     Config.Certificates, as the contract requires.
//   - Like Traefik v3.7, the model builds one wildcard candidate ("*." +
//     parent), so a wildcard covers exactly one label; unlike Traefik, a
//     wildcard never matches an IP SNI.
//   - The SNI is normalized with certstore.NormalizeServerName: lowercased
//     with strings.ToLower as Traefik does (non-ASCII letters included),
//     except that an IP address is put in canonical form instead, so that
//     IP SANs match in any textual form; Traefik only lowercases.
//     Traefik trims spaces and, with no SNI, matches the connection's local
//     address; the model does neither and serves the default for no SNI.
//   - Updates are serialized by their own mutex and the read/write lock is
//     held only for the swap, so lookups never wait for a refresh. In
//     Traefik handshakes reach stores through closures built with the
//     routers and do not wait on the manager's lock either.
//
// # What is deliberately not modelled
//
//   - go-cache's janitor goroutine: Traefik starts one per store per refresh
//     and they leak (Traefik issue #13584). The model starts no goroutine,
//     so goroutines do not grow across refreshes; expired cache entries
//     simply stay until their generation is dropped.
//   - Logging, TLS options (tls.Config building happens when routers are
//     built, not in the refresh), OCSP stapling, ACME-generated defaults
//     (DefaultGeneratedCert) and sniStrict.
package naive

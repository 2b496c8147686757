// Package naive is a model of Traefik v3's TLS manager (Manager.UpdateConfigs
// and CertificateStore.GetBestCertificate), written from a description of
// it, not from its source. It is the baseline certbench measures other
// stores against, so it keeps Traefik's expensive steps on purpose.
//
// # What is modelled
//
// A refresh (Update) runs under one lock, as UpdateConfigs runs under the
// manager's write lock:
//
//  1. Certificates that name no store go to "default". Traefik always
//     creates an "acme-tls/1" store too, without a default certificate; the
//     model builds it and hides it from lookups unless the configuration
//     declares it.
//  2. Each certificate's PEM is copied (FileOrContent.Read returns fresh
//     bytes) and parsed with tls.X509KeyPair; its names, sorted and joined
//     with ",", are its SAN key.
//  3. Per store, a certificate is added under its SAN key after a linear
//     scan for a duplicate key (so a refresh is O(n²)); the first wins.
//  4. Every refresh builds new stores, each with a new certificate map and
//     lookup cache (a model of go-cache: items with a 1h expiry under an
//     RWMutex).
//  5. A configured default is copied and parsed again; a store without one
//     gets a NEW self-signed RSA-2048 certificate, PEM-encoded and parsed
//     back, as Traefik does. This key generation dominates a refresh.
//  6. The new stores are published by swapping one pointer under a write
//     lock; lookups read-lock to fetch them. Only the lookup caches change
//     after publication, with answers from that same generation.
//
// A lookup lowercases the SNI, serves the default for an empty one, then
// checks the cache. On a miss it sorts every SAN key of the store in
// reverse, splits each on "," and compares each name with the SNI as
// Traefik's matchDomain does (an equality test, then one wildcard
// candidate built by splitting and joining the SNI), allocating on every
// miss. A match is cached for an hour; a miss gets the default, uncached.
//
// # Where the model follows the certstore contract instead
//
//   - A bad certificate rejects the whole update with a
//     *certstore.CertificateError (Traefik logs and skips it).
//   - Exact names beat wildcards and ties go to the first in
//     Config.Certificates (Traefik sorts names and breaks ties by map
//     order); a wildcard never matches an IP SNI.
//   - The SNI is normalized with certstore.NormalizeServerName (IP
//     addresses in canonical form); no SNI gets the default (Traefik
//     matches the local address).
//   - The read/write lock is held only for the swap, so lookups never wait
//     for a refresh (in Traefik, handshakes do not wait on it either).
//
// # Not modelled
//
// go-cache's janitor goroutines (Traefik leaks one per store per refresh,
// issue #13584), logging, TLS options, OCSP stapling, ACME-generated
// defaults and sniStrict.
package naive

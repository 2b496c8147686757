package optimized

import (
	"crypto/tls"
	"time"

	"github.com/certbench/certbench/certstore"
)

// defaultRenew is how long before its expiry an Update replaces the
// generated default certificate.
const defaultRenew = 30 * 24 * time.Hour

// generateDefault makes the self-signed certificate served by stores with
// no configured default (certstore.SelfSigned: a P-256 key, no names), and
// returns it with the time from which it should be replaced.
//
// A P-256 key takes tens of microseconds to generate, where Traefik's
// RSA-2048 default costs tens to hundreds of milliseconds, which Traefik
// pays on every refresh. Here it is paid once per Store (and once a year
// after that), so the key type matters little for refresh cost; P-256 also
// keeps the certificate small and its handshakes cheap. Clients reaching it
// get a certificate they cannot trust, as with any default certificate.
// The parsed leaf is dropped, as for every entry the store keeps.
func generateDefault() (*entry, time.Time, error) {
	c, err := certstore.SelfSigned()
	if err != nil {
		return nil, time.Time{}, err
	}
	e := &entry{cert: tls.Certificate{Certificate: c.Certificate, PrivateKey: c.PrivateKey}}
	return e, c.Leaf.NotAfter.Add(-defaultRenew), nil
}

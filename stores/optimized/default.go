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
// returns it with the time from which it should be replaced. It is made
// once per Store, not per refresh; the parsed leaf is dropped, as for
// every entry.
func generateDefault() (*entry, time.Time, error) {
	c, err := certstore.SelfSigned()
	if err != nil {
		return nil, time.Time{}, err
	}
	e := &entry{cert: tls.Certificate{Certificate: c.Certificate, PrivateKey: c.PrivateKey}}
	return e, c.Leaf.NotAfter.Add(-defaultRenew), nil
}

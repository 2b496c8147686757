package optimized

import (
	"crypto/tls"
	"time"

	"github.com/certbench/certbench/certstore"
)

// defaultRenew is how long before its expiry an Update replaces the
// generated default certificate.
const defaultRenew = 30 * 24 * time.Hour

// generateDefault makes the default of stores without one
// (certstore.SelfSigned) and the time from which to replace it.
func generateDefault() (*entry, time.Time, error) {
	c, err := certstore.SelfSigned()
	if err != nil {
		return nil, time.Time{}, err
	}
	e := &entry{cert: tls.Certificate{Certificate: c.Certificate, PrivateKey: c.PrivateKey}}
	return e, c.Leaf.NotAfter.Add(-defaultRenew), nil
}

//go:build !traefik_noocsp

package store

import traefiktls "github.com/traefik/traefik/v3/pkg/tls"

// newManager makes Traefik's manager without an OCSP stapler (Traefik
// v3.5 and later: NewManager(ocspConfig *OCSPConfig)).
func newManager() *traefiktls.Manager { return traefiktls.NewManager(nil) }

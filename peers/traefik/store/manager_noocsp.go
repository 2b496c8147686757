//go:build traefik_noocsp

package store

import traefiktls "github.com/traefik/traefik/v3/pkg/tls"

// newManager makes Traefik's manager (before v3.5, which added the OCSP
// stapler: NewManager()).
func newManager() *traefiktls.Manager { return traefiktls.NewManager() }

//go:build !traefik_v2

package store

import "github.com/rs/zerolog"

// silenceLogs turns Traefik v3's logger off: it logs with zerolog's global
// logger.
func silenceLogs() { zerolog.SetGlobalLevel(zerolog.Disabled) }

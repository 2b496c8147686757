//go:build traefik_v2

package store

import (
	"io"

	"github.com/sirupsen/logrus"
)

// silenceLogs turns Traefik v2's logger off: its pkg/log writes through
// logrus's standard logger.
func silenceLogs() {
	logrus.SetOutput(io.Discard)
	logrus.SetLevel(logrus.PanicLevel)
}

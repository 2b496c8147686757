package naive

import (
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
)

func TestConformance(t *testing.T) {
	conformance.Run(t, func() certstore.Store { return New() })
}

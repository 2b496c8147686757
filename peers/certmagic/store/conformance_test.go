package store

import (
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
	"github.com/certbench/certbench/peers/internal/peerconf"
)

// TestConformance runs the conformance suite. certmagic breaks some of the
// contract's rules on purpose (see the package documentation), so it runs
// only with CERTBENCH_PEER_CONFORMANCE=1; TestConformanceTable checks the
// same rules against peers/README.md.
func TestConformance(t *testing.T) {
	peerconf.Inner(t)
	conformance.RunWith(t, func() certstore.Store { return New() }, conformance.Options{Store: Name})
}

// TestConformanceTable checks the certmagic column of the conformance table in
// peers/README.md against a run of the suite; -update-readme rewrites it.
func TestConformanceTable(t *testing.T) {
	peerconf.Check(t, Name, func() certstore.Store { return New() }, "../../README.md")
}

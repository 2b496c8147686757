package optimized

import (
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
)

// FuzzUpdate applies configurations with an arbitrary key pair (see
// conformance.FuzzUpdate): no panic; an error and the last good
// configuration still served, or a generation that answers lookups as
// certstore.Match says.
func FuzzUpdate(f *testing.F) {
	conformance.FuzzUpdate(f, func() certstore.Store { return New() })
}

// FuzzMatch checks lookups on configurations made from fuzzed names
// against certstore.Match, the reference (see conformance.FuzzMatch).
func FuzzMatch(f *testing.F) {
	conformance.FuzzMatch(f, func() certstore.Store { return New() })
}

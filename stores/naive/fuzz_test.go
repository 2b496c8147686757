package naive

import (
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/storefuzz"
)

// FuzzUpdate applies configurations with an arbitrary key pair (see
// storefuzz.CheckUpdate): no panic; an error and the last good
// configuration still served, or a generation that answers lookups as
// certstore.Match says.
func FuzzUpdate(f *testing.F) {
	storefuzz.Update(f, func() certstore.Store { return New() })
}

// FuzzMatch checks lookups on configurations generated from fuzzed names
// against certstore.Match, the reference (see storefuzz.CheckMatch).
func FuzzMatch(f *testing.F) {
	storefuzz.Match(f, func() certstore.Store { return New() })
}

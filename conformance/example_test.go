package conformance_test

import (
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
)

// A store's package runs the suite from an ordinary test, with a factory that
// makes a new, empty store (here newStore stands for the store's
// constructor, such as mystore.New):
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func() certstore.Store { return mystore.New() })
//	}
//
// and runs it under the race detector: go test -race -run TestConformance.
func ExampleRun() {
	var newStore func() certstore.Store // the store's constructor

	testConformance := func(t *testing.T) {
		conformance.Run(t, newStore)
	}
	_ = testConformance
}

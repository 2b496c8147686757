package conformance_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
	"github.com/certbench/certbench/stores/optimized"
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

// A store's package declares its documented deviations next to its
// registration, so that every differential pass on it knows them
// ("certbench conformance --stores mystore" included).
func ExampleDeclare() {
	conformance.Declare("mystore", conformance.Deviation{
		Name: "the last of tied certificates wins",
		Explains: func(d *conformance.Divergence) bool {
			return d.Want.Kind == conformance.AnswerCertificate && d.Got.Kind == conformance.AnswerCertificate &&
				d.Got.Index > d.Want.Index
		},
	})
}

// Check runs the rules without a *testing.T and returns each rule's
// outcome.
func ExampleCheck() {
	r := conformance.Check(func() certstore.Store { return optimized.New() }, conformance.Options{})
	for _, rule := range r.Rules {
		if rule.Result != conformance.Pass {
			fmt.Println(rule.Rule, rule.Output)
		}
	}
}

// lastTie serves the last of tied certificates: it hands optimized its
// configuration in reverse order.
type lastTie struct{ *optimized.Store }

func (s lastTie) Update(cfg *certstore.Config) error {
	rev := *cfg
	rev.Certificates = slices.Clone(cfg.Certificates)
	slices.Reverse(rev.Certificates)
	return s.Store.Update(&rev)
}

// Compare finds how two stores behave differently, each kind of change
// once, on a case shrunk to a few certificates, grouped by cause.
func ExampleCompare() {
	r := conformance.Compare(
		func() certstore.Store { return optimized.New() },
		func() certstore.Store { return lastTie{optimized.New()} },
		conformance.CompareOptions{Base: "optimized", Head: "last-tie", Seed: 3, Iterations: 10})
	for _, c := range r.Causes {
		fmt.Println(c.Cause)
		for _, ch := range c.Changes {
			fmt.Println(ch.Kind)
			fmt.Println(ch.Summary())
		}
	}
	// Output:
	// a tie between certificates is broken differently
	// tie-break: the first configured -> a later one
	// Store.Certificate("default", "t") on the generation of configuration 0 of 1: base served certificate 0 ["t"], head serves certificate 1 ["t" "variant 2"]
}

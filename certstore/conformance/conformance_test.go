package conformance_test

import (
	"testing"

	"github.com/certbench/certbench/certstore"
	old "github.com/certbench/certbench/certstore/conformance"
	"github.com/certbench/certbench/stores/optimized"
)

// TestOldPath checks that code written against the old import path still
// works: a case checked through the forwarding functions and types.
func TestOldPath(t *testing.T) {
	newStore := func() certstore.Store { return optimized.New() }
	c := old.Case{
		Configs: []old.CaseConfig{{Certs: []old.CaseCert{{DNSNames: []string{"a.example"}}, {DNSNames: []string{"*.example"}}}}},
		Store:   certstore.DefaultStore,
		SNI:     "a.example",
	}
	old.CheckCase(t, newStore, c)
	r := old.Differential(newStore, old.DifferentialOptions{Seed: old.DefaultDiffSeed, Iterations: 2})
	if r.Failure != nil || r.Iterations != 2 {
		t.Errorf("differential pass through the old path: %s", r.Summary())
	}
	var opts old.Options = old.Options{Differential: old.DifferentialOptions{Known: []old.Deviation{}}}
	_ = opts
	if old.AnswerCertificate.String() != "certificate" {
		t.Error("AnswerCertificate is not the new package's")
	}
}

// Package conformance is the old import path of the conformance suite,
// kept for one release so that a store that imports it keeps compiling:
// every name here is an alias of, or calls, the same name in
// github.com/certbench/certbench/conformance.
//
// Deprecated: use github.com/certbench/certbench/conformance.
package conformance

import (
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
)

// Options configure RunWith.
//
// Deprecated: use conformance.Options.
type Options = conformance.Options

// DifferentialOptions configure a differential pass.
//
// Deprecated: use conformance.DifferentialOptions.
type DifferentialOptions = conformance.DifferentialOptions

// Deviation is a documented departure of a store from the lookup rules.
//
// Deprecated: use conformance.Deviation.
type Deviation = conformance.Deviation

// Divergence is a lookup whose answer differs from certstore.Match's.
//
// Deprecated: use conformance.Divergence.
type Divergence = conformance.Divergence

// DiffReport is the outcome of a differential pass.
//
// Deprecated: use conformance.DiffReport.
type DiffReport = conformance.DiffReport

// Case is one differential check.
//
// Deprecated: use conformance.Case.
type Case = conformance.Case

// CaseConfig is a whole configuration in terms of names.
//
// Deprecated: use conformance.CaseConfig.
type CaseConfig = conformance.CaseConfig

// CaseCert is one certificate of a CaseConfig.
//
// Deprecated: use conformance.CaseCert.
type CaseCert = conformance.CaseCert

// AnswerKind says what a lookup returned.
//
// Deprecated: use conformance.AnswerKind.
type AnswerKind = conformance.AnswerKind

// Answer is a lookup result described in terms of a Case.
//
// Deprecated: use conformance.Answer.
type Answer = conformance.Answer

// The defaults of the differential pass.
//
// Deprecated: use the constants of package conformance.
const (
	DefaultDiffSeed       = conformance.DefaultDiffSeed
	DefaultDiffIterations = conformance.DefaultDiffIterations
	DefaultDiffTimeCap    = conformance.DefaultDiffTimeCap
)

// The kinds of answer.
//
// Deprecated: use the constants of package conformance.
const (
	AnswerCertificate = conformance.AnswerCertificate
	AnswerDefault     = conformance.AnswerDefault
	AnswerGenerated   = conformance.AnswerGenerated
	AnswerError       = conformance.AnswerError
	AnswerNone        = conformance.AnswerNone
)

// Run runs the conformance suite against stores made by newStore.
//
// Deprecated: use conformance.Run.
func Run(t *testing.T, newStore certstore.Factory) {
	t.Helper()
	conformance.Run(t, newStore)
}

// RunWith is Run with options.
//
// Deprecated: use conformance.RunWith.
func RunWith(t *testing.T, newStore certstore.Factory, opts Options) {
	t.Helper()
	conformance.RunWith(t, newStore, opts)
}

// Differential compares stores made by newStore with certstore.Match.
//
// Deprecated: use conformance.Differential.
func Differential(newStore certstore.Factory, opts DifferentialOptions) *DiffReport {
	return conformance.Differential(newStore, opts)
}

// CheckCase replays c against a new store made by newStore.
//
// Deprecated: use conformance.CheckCase.
func CheckCase(t testing.TB, newStore certstore.Factory, c Case) {
	t.Helper()
	conformance.CheckCase(t, newStore, c)
}

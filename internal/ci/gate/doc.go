// Package gate decides whether a change regressed: [Evaluate] compares a
// head run of certbench with a base run under a [Policy], metric by
// metric, and returns a [Verdict] that certbench gate turns into an exit
// code and renders from [Verdict.Page] (text, Markdown) or
// [Verdict.JSON].
//
// The rules (which findings are exact, paired, tested or near-exact; the
// correction; thresholds; the defaults; the policy file; incomplete data)
// are written once, in docs/gate.md, whose defaults TestDocDefaults checks
// against [DefaultPolicy]. [ParseConfig] reads a policy file's "gate"
// section, [ResolvePolicy] applies flags over it, and [Verdict.AddSites]
// names grown allocation sites from a [SiteFinder] (package blame
// implements it on heap profiles); gate depends on no profile or runner
// package.
package gate

// Package scenarios makes the certificate churn that certbench measures: the
// catalogue of scenarios, each a sequence of whole configurations to apply
// to a store, built on pools of certificates from package certgen.
//
// Besides the fixed catalogue, Families make scenarios at any pool size
// (renew-1-of-N, noop-N, rotate-10-of-N, startup-N) for certbench sweep.
// The handshake-under-churn scenario (kind HandshakeUnderChurn) pairs the
// lookup mix of lookup-1000 with back-to-back renew-1 refreshes; package
// bench measures its lookup latency percentiles and refresh rate.
package scenarios

// Package examples holds examples of using certbench from another module.
// examples/mystore is a complete third-party store module (its own go.mod):
// a store, its conformance test and benchmark, a certbench binary with the
// store registered, a gate policy and a GitHub workflow that uses
// certbench's action. This package has no code; its test runs
// scripts/certbench-ci.sh on a scratch git repository made from
// examples/mystore.
package examples

// Package examples holds examples of using certbench from another module.
// examples/mystore is a complete third-party store module (its own go.mod):
// a store, its conformance test and benchmark, a certbench binary with the
// store registered, a gate policy and GitHub workflows that use certbench's
// actions. This package has no code; its tests run the CI scripts on
// scratch git repositories made from examples/mystore and hold every
// workflow to docs/ci.md's rule on tokens.
package examples

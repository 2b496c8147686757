// Package peerbuild builds a certbench binary whose peer stores run a
// proxy's certificate code from local trees: a Traefik or certmagic
// checkout (adapters peers/traefik/store, peers/certmagic/store) at any
// commit, or a released version from the module proxy.
//
// Several sides (usually a pull request's base and head) go into one
// binary as stores named KIND@SIDE ("traefik@base"), so that one run
// interleaves them in one process and the behaviour diff runs the same
// cases on both. Go cannot link two versions of one module, so each side's
// packages that the adapter reaches are copied under a module path of
// their own (below "certbench.invalid/SIDE/") with their imports
// rewritten, and the adapter is generated once per side. One go.mod
// requires every copy, so one version of every other dependency serves
// all sides; each tree's replace and exclude directives are carried over
// (a directory replacement only when its directory exists).
//
// The adapter's files for a side are those whose build constraints hold
// with the tags of what its tree declares ([Kind.Probes]). A module two
// sides require at different major versions under one path (libdns v0.2
// and v1 for certmagic v0.20 and v0.25) is copied for the older side:
// minimum version selection would give it the newer API.
//
// The trees are only read; the build happens in a temporary directory.
// When it fails, an error in the generated adapter is an [*AdapterError]
// naming the adapter function and line to change, and an error in a
// tree's code an [*InputError] with paths in the tree; the go command's
// output goes to Options.Log.
package peerbuild

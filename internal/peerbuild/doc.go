// Package peerbuild builds a certbench binary whose peer stores run a
// proxy's certificate code from local trees: a Traefik checkout (the
// traefik adapter, peers/traefik/store) or a certmagic checkout (the
// certmagic adapter, peers/certmagic/store), at any commit, or a released
// version from the module proxy.
//
// Several sides (usually a pull request's base and head) go into one
// binary as stores named KIND@SIDE ("traefik@base", "traefik@head"), so
// that one certbench run interleaves them in one process and the
// behaviour diff runs the same cases on both. Go cannot link two versions
// of one module into a binary, so each side is copied into a build
// directory under a module path of its own (the original path below
// "certbench.invalid/SIDE/"), every import of the proxy's module in the
// copy is rewritten to it, and the adapter package is generated once per
// side from the adapter's source with its imports and its registered Name
// changed. Only the packages the adapter reaches in the proxy's module are
// copied. The build directory's go.mod requires both copies, so Go's
// minimum version selection picks one version of every other dependency
// for both sides; each tree's replace and exclude directives are carried
// over (a tree's directory replacement only when its directory exists,
// which a module zip lacks for nested modules).
//
// Nothing is written into the trees: they are read, and the build happens
// in a temporary directory that Build removes. The go command may add to
// the module cache what the trees require, as any build does.
//
// When the build fails, the compiler's errors are sorted by whose code
// they are in: an error in the generated adapter becomes an
// [*AdapterError] naming the adapter function to change and the line in
// its source; an error in a tree's code an [*InputError] saying that the
// tree does not compile, with paths in the tree. The go command's full
// output goes to Options.Log.
package peerbuild

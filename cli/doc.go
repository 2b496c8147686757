// Package cli holds certbench's commands: thin glue that turns flags into
// calls to the library packages. Each command has an options type bound
// to its flags and a run function, so that flag handling and behaviour
// are tested apart. A binary gets its stores by importing their packages
// (they register with certstore) and calling Main; see
// examples/mystore/cmd/certbench.
//
// Exit codes: 0 success; 1 a regression was found (gate); 2 bad usage or
// bad input.
package cli

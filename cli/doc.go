// Package cli holds certbench's commands. It is thin glue: each command
// turns flags into calls to the library packages (bench, compare, ...).
// Each has an options type (RunOptions, GateOptions, ...) that its
// constructor binds the flags into, and a run function that takes the
// options, so that flag handling and behaviour are tested apart. What a
// library caller needs lives in the library: gate.ResolvePolicy (flags
// over certbench.yaml over the defaults), bench.HeapProfile (one capture)
// and profile.FileName (the file names profile --all writes),
// blame.Folders (the gate.SiteFinder on two folders of profiles).
//
// A binary gets its stores by importing their packages, which register
// themselves with certstore; cmd/certbench imports the two that ship with
// certbench, and a third party builds a binary with its own store the same
// way:
//
//	package main
//
//	import (
//		"os"
//
//		"github.com/certbench/certbench/cli"
//		_ "github.com/certbench/certbench/stores/naive"
//		_ "example.com/mystore"
//	)
//
//	func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
//
// Exit codes: 0 success; 1 a regression was found (gate); 2 bad usage or
// bad input (unknown flag, store or scenario, unreadable or malformed file).
package cli

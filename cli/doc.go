// Package cli holds certbench's commands. It is thin glue: each command
// turns flags into calls to the library packages (bench, compare, ...).
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

// Command certbench benchmarks and profiles TLS certificate stores.
//
// Run "certbench help" for the commands. This binary includes the stores
// that ship with certbench; a binary with more stores imports their packages
// beside these (see package cli).
package main

import (
	"os"

	"github.com/certbench/certbench/cli"
	_ "github.com/certbench/certbench/stores/naive"
	_ "github.com/certbench/certbench/stores/optimized"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// Command certbench is certbench with this module's store, "mystore",
// registered beside the two stores that ship with certbench (to compare
// against). Every certbench command works:
//
//	go run ./cmd/certbench list
//	go run ./cmd/certbench compare --stores optimized,mystore --scenarios rotate-10-of-100
//	go run ./cmd/certbench conformance --stores mystore
package main

import (
	"os"

	"github.com/certbench/certbench/cli"
	_ "github.com/certbench/certbench/stores/optimized"

	_ "example.com/mystore"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

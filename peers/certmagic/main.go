// Command certmagic is certbench with one more store: "certmagic", Caddy's
// real certificate cache (see package store), beside certbench's own naive
// and optimized stores. Build and run it from this directory:
//
//	go run . compare --stores certmagic,naive,optimized
//	go run . list
package main

import (
	"os"

	"github.com/certbench/certbench/cli"
	_ "github.com/certbench/certbench/peers/certmagic/store"
	_ "github.com/certbench/certbench/stores/naive"
	_ "github.com/certbench/certbench/stores/optimized"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

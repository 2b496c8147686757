// Command traefik is certbench with one more store: "traefik", Traefik v3's
// real TLS manager (see package store), beside certbench's own naive and
// optimized stores. Build and run it from this directory:
//
//	go run . compare --stores traefik,naive,optimized
//	go run . list
package main

import (
	"os"

	"github.com/certbench/certbench/cli"
	_ "github.com/certbench/certbench/peers/traefik/store"
	_ "github.com/certbench/certbench/stores/naive"
	_ "github.com/certbench/certbench/stores/optimized"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

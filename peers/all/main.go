// Command all is certbench with every peer store: "traefik" (Traefik v3's
// TLS manager) and "certmagic" (Caddy's certificate cache), beside
// certbench's own naive and optimized stores. Build and run it from this
// directory:
//
//	go run . compare --stores traefik,certmagic,naive,optimized
//
// It is a module of its own so that each peer module keeps only its own
// dependencies; this one joins them.
package main

import (
	"os"

	"github.com/certbench/certbench/cli"
	_ "github.com/certbench/certbench/peers/certmagic/store"
	_ "github.com/certbench/certbench/peers/traefik/store"
	_ "github.com/certbench/certbench/stores/naive"
	_ "github.com/certbench/certbench/stores/optimized"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

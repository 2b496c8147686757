// Throwaway: certbench with the janitor regression registered, to draw the
// held growth chart (not committed).
package main

import (
	"os"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/cli"
	_ "github.com/certbench/certbench/stores/naive"
	"github.com/certbench/certbench/stores/optimized"
	"github.com/certbench/certbench/stores/regressions"
)

func main() {
	certstore.Register("janitor", "optimized with a goroutine and 64 KiB per generation (go-cache janitor shape)",
		regressions.Wrap(regressions.Janitor, func() certstore.Store { return optimized.New() }))
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/certbench/certbench/certstore"
)

// storesArg finds the stores a command names: --stores a,b or --stores=a,b.
var storesArg = regexp.MustCompile(`--stores[ =]([^\s]+)`)

// TestDocsNameStockStores: every `certbench` command of the README's and
// docs' shell blocks that names stores names stores this binary has; a
// command with another store runs another binary (docs/measurements.md's
// heldbench), which the page shows how to build.
func TestDocsNameStockStores(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	checked := 0
	for _, page := range pages {
		md, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range strings.Split(string(md), "```sh\n")[1:] {
			body, _, _ := strings.Cut(block, "```")
			for _, line := range strings.Split(strings.ReplaceAll(body, "\\\n", " "), "\n") {
				f := strings.Fields(line)
				if len(f) == 0 || f[0] != "certbench" { // go run ./cmd/certbench may be a store module's own
					continue
				}
				for _, m := range storesArg.FindAllStringSubmatch(line, -1) {
					for _, name := range strings.Split(m[1], ",") {
						checked++
						if _, err := certstore.LookupFactory(name); err != nil {
							t.Errorf("%s: %q: %v", filepath.Base(page), line, err)
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no command names a store: the test reads nothing")
	}
}

package cli

import (
	"fmt"
	"io"

	"github.com/certbench/certbench/internal/compare"
)

// printWarnings writes the warnings of results read from files (units
// certbench does not know, for example) to w, one a line.
func printWarnings(w io.Writer, rs *compare.Results) {
	for _, err := range rs.Warnings {
		fmt.Fprintln(w, "certbench: warning:", err)
	}
}

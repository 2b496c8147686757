package cli

import (
	"cmp"
	"fmt"
	"io"

	"github.com/certbench/certbench/results"
)

// printWarnings writes the warnings of results read from files to w.
func printWarnings(w io.Writer, rs *results.Set) {
	for _, err := range rs.Warnings {
		fmt.Fprintln(w, "certbench: warning:", err)
	}
}

// printFailures warns of each benchmark the files record as failed.
func printFailures(w io.Writer, rs *results.Set) {
	for _, f := range rs.Failures {
		what := "benchmark " + f.Name
		if sc, st := f.Value(results.ScenarioKey), f.Value(results.StoreKey); sc != "" && st != "" {
			what = fmt.Sprintf("store %s in scenario %s", st, sc)
		}
		fmt.Fprintf(w, "certbench: warning: %s:%d: %s failed (%s): no sample of that run after it\n", f.File, f.Line, what, cmp.Or(f.Reason, "no reason recorded"))
	}
}

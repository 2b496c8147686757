package cli

import (
	"fmt"
	"io"

	"github.com/certbench/certbench/results"
)

// printWarnings writes the warnings of results read from files (units
// certbench does not know, for example) to w, one a line.
func printWarnings(w io.Writer, rs *results.Set) {
	for _, err := range rs.Warnings {
		fmt.Fprintln(w, "certbench: warning:", err)
	}
}

// printFailures writes to w a warning per benchmark the files record as
// failed (a store that panicked or hung in certbench run): its samples
// stop there.
func printFailures(w io.Writer, rs *results.Set) {
	for _, f := range rs.Failures {
		what := "benchmark " + f.Name
		if sc, st := f.Value(results.ScenarioKey), f.Value(results.StoreKey); sc != "" && st != "" {
			what = fmt.Sprintf("store %s in scenario %s", st, sc)
		}
		reason := f.Reason
		if reason == "" {
			reason = "no reason recorded"
		}
		fmt.Fprintf(w, "certbench: warning: %s:%d: %s failed (%s): no sample of that run after it\n", f.File, f.Line, what, reason)
	}
}

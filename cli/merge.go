package cli

import (
	"fmt"
	"os"

	"github.com/certbench/certbench/bench"
	"github.com/spf13/cobra"
)

func newMergeCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "merge FILE...",
		Short: "Merge result files into one, recomputing the unit lines from all samples",
		Long: `merge writes the results of the files, in order, as one file in the Go
benchmark format, each result with its configuration lines, followed by unit
lines computed from all the merged samples: B/op, allocs/op and goroutines
are declared "assume=exact" only if every benchmark has at least 2 samples
and all of them are equal. Other unit lines of the inputs are kept; inputs
that contradict each other are an error.

Use it instead of cat to combine the files of separate runs (such as one
"certbench run --count 1" per round, as scripts/ci-compare.sh does): each
count-1 file declares its counts exact, which one sample cannot show, and
concatenated files make compare and benchstat read a count that varies
between runs as exact.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, a := range args {
				if output != "" && output != "-" && sameFile(a, output) {
					return usagef("-o %s: is also an input", output)
				}
			}
			out := cmd.OutOrStdout()
			var file *os.File
			if output != "" && output != "-" {
				f, err := os.Create(output)
				if err != nil {
					return usagef("-o: %v", err)
				}
				defer f.Close()
				file, out = f, f
			}
			if _, err := bench.Merge(out, args...); err != nil {
				if file != nil {
					file.Close()
					os.Remove(output)
				}
				return usageError(err)
			}
			if file != nil {
				if err := file.Close(); err != nil {
					return fmt.Errorf("writing %s: %w", output, err)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "write the merged results to this file instead of stdout")
	return cmd
}

// sameFile reports whether paths a and b name the same existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

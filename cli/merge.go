package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/certbench/certbench/results"
	"github.com/spf13/cobra"
)

// MergeOptions are the options of certbench merge.
type mergeOptions struct {
	ioStreams ioStreams
	Files     []string
	// Output is the merged file (-o), not one of Files; "" or "-" is
	// IO.Out.
	Output string
}

func newMergeCmd(runF func(context.Context, *mergeOptions) error) *cobra.Command {
	opts := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge FILE...",
		Short: "Merge result files into one, recomputing the unit lines from all samples",
		Long: `merge writes the results of the files, in order, as one file in the Go
benchmark format (to stdout, or to the file -o names): each result with its
configuration and comment lines, then unit lines computed from all the
merged samples and the closing line "# certbench-end: N results".

Use it instead of cat to combine separate runs (one "certbench run
--count 1" per round): each count-1 file declares B/op, allocs/op and
goroutines "assume=exact", which one sample cannot show; merge declares
them so only when every benchmark has at least 2 samples, all equal.
Other unit lines of the inputs are kept; inputs that contradict each
other are an error.`,
		Example: `  certbench merge -o all.txt run1.txt run2.txt`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ioStreams, opts.Files = ioOf(cmd), args
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runMerge(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "write the merged results to this `file` instead of stdout")
	return cmd
}

// runMerge merges the files; a failed merge leaves no output file.
func runMerge(_ context.Context, opts *mergeOptions) error {
	toFile := opts.Output != "" && opts.Output != "-"
	for _, a := range opts.Files {
		if toFile && sameFile(a, opts.Output) {
			return usagef("-o %s: is also an input", opts.Output)
		}
	}
	out := opts.ioStreams.Out
	var file *os.File
	if toFile {
		f, err := os.Create(opts.Output)
		if err != nil {
			return usagef("-o: %v", err)
		}
		defer f.Close()
		file, out = f, f
	}
	if _, err := results.Merge(out, opts.Files...); err != nil {
		if file != nil {
			file.Close()
			os.Remove(opts.Output)
		}
		return usageError(err)
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", opts.Output, err)
		}
	}
	return nil
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

package bench

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// Append copies the results and unit metadata of one file in the Go
// benchmark format (named name in errors) to w: each result line with its
// configuration, and each "Unit" line through DeclareUnit, so that
// WriteUnits decides exactness from every sample appended, then the
// file's failed benchmarks (results.FailPrefix lines, with their
// reasons). It returns the number of results appended and fails, naming
// name:line, on a malformed line.
func (w *Writer) Append(r io.Reader, name string) (int, error) {
	var fails results.FailureScanner
	rd := benchfmt.NewReader(io.TeeReader(r, &fails), name)
	n := 0
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.SyntaxError:
			return n, fmt.Errorf("bench: malformed line: %w", rec)
		case *benchfmt.Result:
			if err := w.WriteResult(rec); err != nil {
				f, l := rec.Pos()
				return n, fmt.Errorf("%s:%d: %w", f, l, err)
			}
			n++
		case *benchfmt.UnitMetadata:
			if err := w.DeclareUnit(rec); err != nil {
				return n, err
			}
		}
	}
	if err := rd.Err(); err != nil {
		return n, fmt.Errorf("bench: %s: %w", name, err)
	}
	fails.Close()
	for _, f := range fails.Failures {
		if err := w.writeFailure(f.Name, f.Reason); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Merge writes the results of the named files, in order, to out as one
// file, followed by unit metadata recomputed from all of them (see
// Writer.WriteUnits): files that each hold one sample per benchmark, such
// as one `certbench run --count 1` per round, merge into a file that
// declares a count exact only if every merged sample agrees. Concatenating
// such files instead repeats each file's own unit lines, which say nothing
// about the other files' samples.
//
// It returns the number of results written, and fails if a file cannot be
// read, has a malformed line or declares unit metadata that conflicts with
// an earlier file's, or if the files hold no result at all.
func Merge(out io.Writer, paths ...string) (int, error) {
	if len(paths) == 0 {
		return 0, errors.New("bench: merge: no input files")
	}
	w := NewWriter(out)
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return w.Samples(), fmt.Errorf("bench: %w", err)
		}
		_, err = w.Append(f, p)
		f.Close()
		if err != nil {
			return w.Samples(), err
		}
	}
	if w.Samples() == 0 && w.Failures() == 0 {
		return 0, fmt.Errorf("bench: merge: no benchmark results in %d file(s)", len(paths))
	}
	return w.Samples(), w.WriteUnits()
}

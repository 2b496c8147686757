package results

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/perf/benchfmt"
)

// Append copies the results and unit metadata of one file in the Go
// benchmark format (named name in errors) to w: each result line with its
// configuration (configuration and comment lines alike), and each "Unit"
// line through declareUnit, so that Close decides exactness from every
// sample appended, then the file's failed benchmarks (failPrefix lines,
// with their reasons). Closing lines of the input are not copied: Close
// writes one for all. It returns the number of results appended and
// fails, naming name:line, on a malformed line.
func (w *Writer) Append(r io.Reader, name string) (int, error) {
	sc := newScanner(r, name)
	n := 0
	var config []benchfmt.Config
	for sc.Scan() {
		switch rec := sc.Record().(type) {
		case *benchfmt.SyntaxError:
			return n, fmt.Errorf("results: malformed line: %w", rec)
		case *benchfmt.Result:
			config = sc.config(config[:0], rec)
			res := &benchfmt.Result{Config: config, Name: rec.Name, Iters: rec.Iters, Values: rec.Values}
			if err := w.WriteResult(res); err != nil {
				f, l := rec.Pos()
				return n, fmt.Errorf("%s:%d: %w", f, l, err)
			}
			n++
		case *benchfmt.UnitMetadata:
			if err := w.declareUnit(rec); err != nil {
				return n, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return n, fmt.Errorf("results: %s: %w", name, err)
	}
	sc.fails.Close()
	for _, f := range sc.fails.Failures {
		if err := w.writeFailure(f.Name, f.Reason); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Merge writes the results of the named files, in order, to out as one
// file, followed by unit metadata recomputed from all of them and one
// closing line (see Writer.Close): files that each hold one sample per benchmark, such
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
		return 0, errors.New("results: merge: no input files")
	}
	w := NewWriter(out)
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return w.Samples(), fmt.Errorf("results: %w", err)
		}
		_, err = w.Append(f, p)
		f.Close()
		if err != nil {
			return w.Samples(), err
		}
	}
	if w.Samples() == 0 && w.failures == 0 {
		return 0, fmt.Errorf("results: merge: no benchmark results in %d file(s)", len(paths))
	}
	return w.Samples(), w.Close()
}

package results

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/perf/benchfmt"
)

// Append copies one file's results with their configuration, its unit
// metadata (so that Close decides exactness from every sample) and its
// failures to w; not its closing line. It returns the results appended
// and fails, naming name:line, on a malformed line.
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
	for _, f := range sc.fails.Failures {
		if err := w.writeFailure(f.Name, f.Reason); err != nil {
			return n, err
		}
	}
	return n, nil
}

// Merge writes the named files' results to out as one file, its unit
// metadata recomputed from all of them (concatenated files would repeat
// each file's own, which says nothing of the others' samples). It returns
// the results written, and fails on an unreadable file, a malformed line,
// conflicting unit metadata, or no result at all.
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

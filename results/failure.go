package results

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// failPrefix starts a failed benchmark's line as go test writes it
// ("--- FAIL: BenchmarkX-2", the reason indented under it); certbench run
// writes one for a sample its store ended. benchstat ignores it.
const failPrefix = "--- FAIL: Benchmark"

// A Failure is a benchmark that failed (a failPrefix line).
type Failure struct {
	Name   string // as benchfmt.Result.Name: no "Benchmark", with -GOMAXPROCS
	Reason string // the first line indented under it, trimmed
	Line   int    // of the FAIL line, from 1
	File   string // the input's label, as in Set.Files
}

// Value returns the sub-benchmark key's value in the name (NameValue).
func (f Failure) Value(key string) string {
	v, _ := NameValue(benchfmt.Name(f.Name), key)
	return v
}

// writeFailure writes a failed benchmark's lines, reason on one line.
func writeFailure(w io.Writer, name, reason string) error {
	reason = strings.Join(strings.Fields(reason), " ")
	_, err := fmt.Fprintf(w, "%s%s\n    %s\n", failPrefix, name, reason)
	return err
}

// A failureScanner collects the failures among a file's lines (benchfmt
// skips them); the scanner's lineFeed shows it the start of every line.
type failureScanner struct {
	Failures []Failure // in file order
	reason   bool      // the previous line was a FAIL line awaiting its reason
}

// maxFailLine is the longest FAIL line taken for a failure, and the most
// kept of a reason.
const maxFailLine = 4096

// line sees line n, b its start (whole: all of it).
func (s *failureScanner) line(b []byte, whole bool, n int) {
	text := bytes.TrimSuffix(b, []byte("\n"))
	long := !whole || len(text) > maxFailLine
	text = bytes.TrimSuffix(text[:min(len(text), maxFailLine)], []byte("\r"))
	switch {
	case s.reason && len(text) > 0 && (text[0] == ' ' || text[0] == '\t'):
		s.Failures[len(s.Failures)-1].Reason = string(bytes.TrimSpace(text))
		s.reason = false
	case bytes.HasPrefix(text, []byte(failPrefix)) && !long:
		name, _, _ := bytes.Cut(text[len(failPrefix):], []byte(" "))
		s.Failures = append(s.Failures, Failure{Name: string(name), Line: n})
		s.reason = true
	default:
		s.reason = false
	}
}

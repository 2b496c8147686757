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

// A failureScanner collects the failures in the bytes written to it (a
// file teed through it while benchfmt, which skips them, reads it). Close
// it after the last write.
type failureScanner struct {
	Failures []Failure // in file order

	line    int    // lines seen
	partial []byte // the start of a line not ended yet (bounded)
	long    bool   // the current line is longer than partial keeps
	reason  bool   // the previous line was a FAIL line awaiting its reason
}

// maxFailLine bounds what a failureScanner keeps of one line.
const maxFailLine = 4096

// Write implements io.Writer; it never fails.
func (s *failureScanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.add(p)
			break
		}
		s.add(p[:i])
		s.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// Close ends a last line without a newline.
func (s *failureScanner) Close() error {
	if len(s.partial) > 0 || s.long {
		s.endLine()
	}
	return nil
}

func (s *failureScanner) add(b []byte) {
	room := maxFailLine - len(s.partial)
	if len(b) > room {
		b, s.long = b[:room], true
	}
	s.partial = append(s.partial, b...)
}

func (s *failureScanner) endLine() {
	s.line++
	line := bytes.TrimSuffix(s.partial, []byte("\r"))
	switch {
	case s.reason && len(line) > 0 && (line[0] == ' ' || line[0] == '\t'):
		s.Failures[len(s.Failures)-1].Reason = string(bytes.TrimSpace(line))
		s.reason = false
	case bytes.HasPrefix(line, []byte(failPrefix)) && !s.long:
		name, _, _ := bytes.Cut(line[len(failPrefix):], []byte(" "))
		s.Failures = append(s.Failures, Failure{Name: string(name), Line: s.line})
		s.reason = true
	default:
		s.reason = false
	}
	s.partial, s.long = s.partial[:0], false
}

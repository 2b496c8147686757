package results

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// failPrefix starts the line that records a benchmark that failed, as go
// test -bench writes it ("--- FAIL: BenchmarkX-2", the reason indented on
// the lines under it). certbench run writes one for a sample its store
// ended (a panic, or a call that did not return): no result line is
// written for that sample. benchstat, like any reader of the Go benchmark
// format, ignores both lines; certbench merge keeps them and certbench
// gate and compare read them (see failureScanner).
const failPrefix = "--- FAIL: Benchmark"

// A Failure is a benchmark that failed (a failPrefix line).
type Failure struct {
	// Name is the benchmark's name as benchfmt.Result.Name holds it: no
	// "Benchmark" prefix, with the -GOMAXPROCS suffix, for example
	// "Churn/scenario=rotate-10-of-100/store=mystore-2".
	Name string
	// Reason is the first line indented under the FAIL line, trimmed;
	// "" when there is none.
	Reason string
	// Line is the FAIL line's number in its file, from 1.
	Line int
	// File is the label of the input it was read from, when read by
	// Load or Read (as in Set.Files).
	File string
}

// Value returns the value of the sub-benchmark key in the failure's name
// (see NameValue): the failed scenario ("scenario") or store ("store").
func (f Failure) Value(key string) string {
	v, _ := NameValue(benchfmt.Name(f.Name), key)
	return v
}

// WriteFailure writes the lines of a failed benchmark: failPrefix and
// name (which, as for results, has no "Benchmark" prefix and carries the
// -GOMAXPROCS suffix), then reason indented on one line (line breaks
// become spaces).
func writeFailure(w io.Writer, name, reason string) error {
	reason = strings.Join(strings.Fields(reason), " ")
	_, err := fmt.Fprintf(w, "%s%s\n    %s\n", failPrefix, name, reason)
	return err
}

// A failureScanner collects the failures (failPrefix lines and their
// reasons) in the bytes written to it: tee a result file through it
// (io.TeeReader) while benchfmt.Reader reads it, since that reader skips
// lines that are not results, configuration or unit metadata. Call Close
// after the last write.
type failureScanner struct {
	// Failures are those found so far, in file order.
	Failures []Failure

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

package results

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"
)

// scanner reads one input with certbench's comment lines: a lineFeed
// hands benchfmt.Reader one line at a time, so each record is read with
// exactly the comment lines before it in effect. Read and Append use it.
type scanner struct {
	feed  lineFeed
	rd    *benchfmt.Reader
	name  string         // the input's name in errors
	fails failureScanner // failed benchmarks, which benchfmt skips

	comments []benchfmt.Config // comment keys in effect, in order
	changed  bool              // a line other than a result or unit line since the last result

	results   int  // results since the start or the last closing line
	versioned bool // a VersionKey comment was read: the writer writes a closing line
	ended     bool // a closing line follows the last result
	warnings  []error
}

// newScanner returns a scanner of r whose results carry initConfig.
func newScanner(r io.Reader, name string, initConfig ...string) *scanner {
	s := &scanner{name: name, changed: true}
	s.feed = lineFeed{br: bufio.NewReaderSize(r, 64<<10), onLine: s.line}
	s.rd = benchfmt.NewReader(&s.feed, name)
	s.rd.Reset(&s.feed, name, initConfig...)
	return s
}

// Scan advances to the next record (see benchfmt.Reader.Scan).
func (s *scanner) Scan() bool {
	if !s.rd.Scan() {
		return false
	}
	if _, ok := s.rd.Result().(*benchfmt.Result); ok {
		s.results++
		s.ended = false
	}
	return true
}

// Record returns the current record, reused by the next Scan; a result
// lacks the comment keys (see config).
func (s *scanner) Record() benchfmt.Record { return s.rd.Result() }

// Err returns the first error; a line too long names its own line
// (benchfmt names the one before).
func (s *scanner) Err() error {
	err := s.rd.Err()
	if err != nil && errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("%s:%d: line longer than %d KiB (%w)", s.name, s.feed.lines, bufio.MaxScanTokenSize>>10, bufio.ErrTooLong)
	}
	return err
}

// config appends res's configuration, then the comment keys it lacks.
func (s *scanner) config(dst []benchfmt.Config, res *benchfmt.Result) []benchfmt.Config {
	dst = append(dst, res.Config...)
	for _, c := range s.comments {
		if _, ok := res.ConfigIndex(c.Key); !ok {
			dst = append(dst, c)
		}
	}
	return dst
}

// comment returns the value of comment key in effect, if any.
func (s *scanner) comment(key string) (string, bool) {
	if i := s.commentIndex(key); i >= 0 {
		return string(s.comments[i].Value), true
	}
	return "", false
}

func (s *scanner) commentIndex(key string) int {
	return slices.IndexFunc(s.comments, func(c benchfmt.Config) bool { return c.Key == key })
}

// line sees each line (its first chunk unless whole) before benchfmt
// parses it; the start of a long line is not read as a comment.
func (s *scanner) line(line []byte, whole bool) {
	s.fails.line(line, whole, s.feed.lines)
	if !whole && line[0] == '#' || bytes.HasPrefix(line, benchmarkPrefix) || bytes.HasPrefix(line, unitPrefix) {
		return
	}
	s.changed = true
	rest, ok := bytes.CutPrefix(line, []byte(CommentPrefix))
	if !ok {
		return
	}
	key, value, ok := parseConfigLine(bytes.TrimRight(rest, "\r\n"))
	if !ok || (key != EndKey && !isCommentKey(key)) {
		return // another comment, ignored as the format ignores it
	}
	if key == EndKey {
		s.end(value)
		return
	}
	if key == VersionKey {
		s.versioned = true
	}
	switch i := s.commentIndex(key); {
	case i >= 0 && len(value) == 0:
		s.comments = slices.Delete(s.comments, i, i+1)
	case i >= 0:
		s.comments[i].Value = bytes.Clone(value)
	case len(value) > 0:
		s.comments = append(s.comments, benchfmt.Config{Key: string(key), Value: bytes.Clone(value), File: true})
	}
}

// end reads a closing line: N counts the results since the last one.
func (s *scanner) end(value []byte) {
	count, _, _ := bytes.Cut(value, []byte(" "))
	if n, err := strconv.Atoi(string(count)); err != nil || n != s.results {
		s.warnings = append(s.warnings, &EndCountWarning{File: s.name, Line: s.feed.lines, Want: string(value), Results: s.results})
	}
	s.results = 0
	s.ended = true
}

// finish returns the input's warnings once it is read.
func (s *scanner) finish(results int) []error {
	if s.versioned && !s.ended && results > 0 {
		s.warnings = append(s.warnings, &MissingEndWarning{File: s.name, Line: s.feed.lines, Results: results})
	}
	return s.warnings
}

var (
	benchmarkPrefix = []byte("Benchmark")
	unitPrefix      = []byte("Unit ")
)

// parseConfigLine parses "key: value" by the format's rule: the key
// begins lower-case and has no space or upper-case letter.
func parseConfigLine(line []byte) (key string, value []byte, ok bool) {
	colon := -1
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRune(line[i:])
		if (i == 0 && !unicode.IsLower(r)) || unicode.IsSpace(r) || unicode.IsUpper(r) {
			return "", nil, false
		}
		if i > 0 && r == ':' {
			colon = i
			break
		}
		i += n
	}
	if colon < 0 {
		return "", nil, false
	}
	value = line[colon+1:]
	if len(value) > 0 && value[0] != ' ' && value[0] != '\t' {
		return "", nil, false
	}
	return string(line[:colon]), bytes.TrimLeft(value, " \t"), true
}

// lineFeed hands a benchfmt.Reader one line per Read (in pieces when
// long), calling onLine just before benchfmt parses it, and keeps what
// the truncation checks need.
type lineFeed struct {
	br      *bufio.Reader
	onLine  func(line []byte, whole bool)
	pending []byte // the part of the current line not handed over yet
	err     error  // the input's error, returned once pending is empty

	lines   int      // lines begun
	mid     bool     // the last piece read did not end its line
	head    [16]byte // the start of the current line
	headLen int
}

func (f *lineFeed) Read(p []byte) (int, error) {
	if len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		chunk, err := f.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			err = nil
		}
		f.err = err
		if len(chunk) == 0 {
			if err == nil {
				err = io.ErrNoProgress // cannot happen: ReadSlice returns bytes or an error
				f.err = err
			}
			return 0, err
		}
		if !f.mid {
			f.lines++
			f.headLen = copy(f.head[:], chunk)
			f.onLine(chunk, chunk[len(chunk)-1] == '\n' || err != nil)
		}
		f.mid = chunk[len(chunk)-1] != '\n'
		f.pending = chunk
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// lastUnterminated reports whether line is the last, without a newline.
func (f *lineFeed) lastUnterminated(line int) bool {
	return f.mid && f.err == io.EOF && line == f.lines
}

package compare

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// FileKey is the internal configuration key that Load and Read attach to
// every result. Its value is the input's label, so ".file" can be used in
// Options.Row, Options.Col and Options.Filter like any other key.
const FileKey = ".file"

// Results is a set of benchmark results read from one or more inputs.
//
// A Results is not modified by Build, so one Results can be used to build
// several Reports (for example with different Options).
//
// To keep memory near the size of the input, the results read from one
// input share their Config slices (and results of the same benchmark their
// Name bytes) while the configuration does not change: treat them as
// read-only, and Clone a result before changing it.
type Results struct {
	// Results holds every benchmark result line, in input order. Each
	// result carries its input's label under the FileKey (".file")
	// configuration key.
	Results []*benchfmt.Result

	// Units is the unit metadata ("Unit allocs/op assume=exact" lines)
	// merged from all inputs.
	Units benchfmt.UnitMetadataMap

	// Files lists the input labels in input order.
	Files []string

	// Failures are the benchmarks the inputs record as failed
	// (results.FailPrefix lines: certbench run writes one for a sample
	// its store ended, go test for a benchmark that failed), in input
	// order. A failed sample has no result line.
	Failures []Failure

	// Warnings are problems with the inputs that do not stop them being
	// read, such as a unit certbench does not know
	// (*UnknownUnitWarning), each naming file and line. Callers should
	// show them (the certbench command prints them to stderr).
	Warnings []error
}

// A Failure is a failed benchmark of one input.
type Failure struct {
	results.Failure
	// File is the input's label (as in Results.Files).
	File string
}

// Stdin is the argument that makes Load read standard input, as
// benchfmt.Files reads it ("compare -", "gate base.txt -"). Its label is
// "-", or the label of "label=-"; errors name it StdinName.
const Stdin = "-"

// StdinName names standard input in the errors and warnings of Load.
const StdinName = "<stdin>"

// Load reads benchmark results in the Go benchmark format from the named
// files, in order, and returns them as one Results.
//
// Each file is labelled with its path as given. An argument of the form
// "label=path" (when no file is literally named by the whole argument)
// labels the file at path with label instead, for example "base=old.txt".
// A path given twice gets "#1", "#2", ... appended to its later labels.
// The path "-" (Stdin) is standard input, which can be given once.
//
// Load checks every measurement before any statistics are computed. It
// fails, with an error naming the file (and line, as "FILE:LINE: ..."),
// if a file cannot be read or is a directory, contains a malformed
// benchmark or unit line (the error wraps the *benchfmt.SyntaxError), a
// value that is not a finite number or is negative (*ValueError), an
// iteration count below one (*IterationsError), a last line without its
// newline that is not a complete result in known units (a truncated
// file), no benchmark results, or unit metadata that conflicts with an
// earlier file. Units certbench does not know are read, with a warning in
// Results.Warnings.
func Load(paths ...string) (*Results, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input files")
	}
	// Not benchfmt.Files, though "-" and "label=path" mean here what
	// they mean there: Files opens the inputs itself and gives neither
	// their bytes nor where one input ends, so Load could not tell a
	// truncated last line (tailReader), an input with no results or a
	// directory. Files also labels a repeated path "a#0", "a#1" (Load:
	// "a", "a#1") and splits at "=" even a file named "a=b.txt".
	rs := &Results{Units: make(benchfmt.UnitMetadataMap)}
	seen := make(map[string]int)
	stdin := false
	for _, arg := range paths {
		label, path := arg, arg
		if i := strings.Index(arg, "="); i > 0 {
			if _, err := os.Stat(arg); err != nil {
				label, path = arg[:i], arg[i+1:]
			}
		}
		if n := seen[label]; n > 0 {
			seen[label]++
			label = fmt.Sprintf("%s#%d", label, n)
		} else {
			seen[label] = 1
		}
		if path == Stdin {
			if stdin {
				return nil, fmt.Errorf("%s: standard input given twice", arg)
			}
			stdin = true
			if err := rs.read(os.Stdin, StdinName, label); err != nil {
				return nil, err
			}
			continue
		}
		if err := rs.readFile(path, label); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// readFile appends the results of the file at path to rs.
func (rs *Results) readFile(path, label string) error {
	f, err := os.Open(path)
	if err != nil {
		return err // *fs.PathError: "open PATH: ..."
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory, want a result file", path)
	}
	return rs.read(f, path, label)
}

// Read reads benchmark results in the Go benchmark format from r, as Load
// does for a file, with the same checks. name is used in error messages
// and as the input's label.
func Read(r io.Reader, name string) (*Results, error) {
	rs := &Results{Units: make(benchfmt.UnitMetadataMap)}
	if err := rs.read(r, name, name); err != nil {
		return nil, err
	}
	return rs, nil
}

// read appends the results of one input to rs. path names the input in
// error messages; label is stored under FileKey. Nothing is appended if
// the input has an error.
func (rs *Results) read(r io.Reader, path, label string) error {
	var fails results.FailureScanner
	tr := &tailReader{r: io.TeeReader(r, &fails)}
	reader := benchfmt.NewReader(tr, path)
	reader.Reset(tr, path, FileKey, label)
	var (
		c        cloner
		got      []*benchfmt.Result
		units    = unitWarnings{file: path}
		newUnits = make(benchfmt.UnitMetadataMap)
	)
	for reader.Scan() {
		switch rec := reader.Result().(type) {
		case *benchfmt.SyntaxError:
			if tr.isLastUnterminated(rec.Line) {
				return fmt.Errorf("%w (last line, without a newline: the file looks truncated)", rec)
			}
			return rec
		case *benchfmt.Result:
			if err := CheckResult(rec); err != nil {
				return err
			}
			tidyZeros(rec)
			for _, v := range rec.Values {
				if !results.IsKnownUnit(v.Unit) {
					_, line := rec.Pos()
					units.add(line, origUnit(v))
				}
			}
			got = append(got, c.clone(rec))
		case *benchfmt.UnitMetadata:
			have, ok := rs.Units[rec.UnitMetadataKey]
			if !ok {
				have, ok = newUnits[rec.UnitMetadataKey]
			}
			if ok {
				if have.Value != rec.Value {
					hf, hl := have.Pos()
					f, l := rec.Pos()
					return fmt.Errorf("%s:%d: unit %s: %s=%s conflicts with %s=%s at %s:%d",
						f, l, rec.OrigUnit, rec.Key, rec.Value, have.Key, have.Value, hf, hl)
				}
				continue
			}
			newUnits[rec.UnitMetadataKey] = rec
		}
	}
	if err := reader.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			// benchfmt reports the line before the long one.
			line := 0
			if rest, ok := strings.CutPrefix(err.Error(), path+":"); ok {
				if i := strings.IndexByte(rest, ':'); i > 0 {
					line, _ = strconv.Atoi(rest[:i])
				}
			}
			return fmt.Errorf("%s:%d: line longer than %d KiB (%w)", path, line+1, bufio.MaxScanTokenSize>>10, bufio.ErrTooLong)
		}
		return err // "PATH:LINE: ..."
	}
	if err := tr.checkLastLine(path, got); err != nil {
		return err
	}
	fails.Close()
	if len(got) == 0 && len(fails.Failures) == 0 {
		return fmt.Errorf("%s: no benchmark results", path)
	}
	for _, f := range fails.Failures {
		rs.Failures = append(rs.Failures, Failure{Failure: f, File: label})
	}
	if rs.Results == nil {
		rs.Results = got
	} else {
		rs.Results = append(rs.Results, got...)
	}
	for k, m := range newUnits {
		rs.Units[k] = m
	}
	rs.Warnings = append(rs.Warnings, units.errors()...)
	rs.Files = append(rs.Files, label)
	return nil
}

// tailReader passes reads through, counting newlines and keeping the
// start of the last line, so that a last line without its newline (a
// truncated file) can be recognized.
type tailReader struct {
	r        io.Reader
	newlines int
	any      bool     // any byte read
	lastNL   bool     // the last byte read was a newline
	head     [16]byte // start of the line after the last newline
	headLen  int
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	b := p[:n]
	if n > 0 {
		t.any = true
		t.lastNL = b[n-1] == '\n'
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			t.newlines += bytes.Count(b, []byte{'\n'})
			t.headLen = 0
			b = b[i+1:]
		}
		t.headLen += copy(t.head[t.headLen:], b)
	}
	return n, err
}

// isLastUnterminated reports whether line is the input's last line and
// has no newline (as far as the input has been read).
func (t *tailReader) isLastUnterminated(line int) bool {
	return t.any && !t.lastNL && line == t.newlines+1
}

// checkLastLine reports a last line without its newline that looks like
// a benchmark line but is not a whole result in known units: the file was
// cut while being written (for example "BenchmarkX 10 1184 al", the end
// of "allocs/op" missing). results are the input's results so far.
func (t *tailReader) checkLastLine(path string, got []*benchfmt.Result) error {
	if !t.isLastUnterminated(t.newlines + 1) {
		return nil
	}
	head := t.head[:t.headLen]
	if !bytes.HasPrefix(head, []byte("Benchmark")) {
		return nil
	}
	line := t.newlines + 1
	if len(got) > 0 {
		last := got[len(got)-1]
		if _, l := last.Pos(); l == line {
			for _, v := range last.Values {
				if !results.IsKnownUnit(v.Unit) {
					return fmt.Errorf("%s:%d: last line, without a newline, ends in unit %q, which certbench does not know: the file looks truncated",
						path, line, origUnit(v))
				}
			}
			return nil
		}
	}
	return fmt.Errorf("%s:%d: last line, without a newline, is not a complete benchmark result: the file looks truncated", path, line)
}

// cloner copies the results a benchfmt.Reader returns (it reuses one
// Result), sharing what results of one input have in common: the
// configuration (the same for every result until a configuration line
// changes it) and the benchmark names. The values of many results are
// carved out of one allocation.
type cloner struct {
	config []benchfmt.Config
	names  map[string]benchfmt.Name
	values []benchfmt.Value // free part of the current slab
}

// maxNames bounds the names a cloner shares; later new names are copied.
const maxNames = 1 << 14

// valueSlab is how many values a cloner allocates at once.
const valueSlab = 4096

func (c *cloner) clone(rec *benchfmt.Result) *benchfmt.Result {
	// Clone copies the fields a caller cannot set (position); copy the
	// rest here, shared.
	config, name, values := rec.Config, rec.Name, rec.Values
	rec.Config, rec.Name, rec.Values = nil, nil, nil
	res := rec.Clone()
	rec.Config, rec.Name, rec.Values = config, name, values
	res.Config = c.sharedConfig(config)
	res.Name = c.sharedName(name)
	res.Values = c.copyValues(values)
	return res
}

func (c *cloner) sharedConfig(config []benchfmt.Config) []benchfmt.Config {
	if c.config != nil && sameConfig(c.config, config) {
		return c.config
	}
	size := 0
	for _, cfg := range config {
		size += len(cfg.Value)
	}
	buf := make([]byte, 0, size)
	out := make([]benchfmt.Config, len(config))
	for i, cfg := range config {
		start := len(buf)
		buf = append(buf, cfg.Value...)
		out[i] = benchfmt.Config{Key: cfg.Key, Value: buf[start:len(buf):len(buf)], File: cfg.File}
	}
	c.config = out
	return out
}

func sameConfig(a, b []benchfmt.Config) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].File != b[i].File || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

func (c *cloner) sharedName(name benchfmt.Name) benchfmt.Name {
	if n, ok := c.names[string(name)]; ok {
		return n
	}
	n := append(benchfmt.Name(nil), name...)
	n = n[:len(n):len(n)]
	if c.names == nil {
		c.names = make(map[string]benchfmt.Name)
	}
	if len(c.names) < maxNames {
		c.names[string(n)] = n
	}
	return n
}

func (c *cloner) copyValues(values []benchfmt.Value) []benchfmt.Value {
	if len(values) > len(c.values) {
		c.values = make([]benchfmt.Value, max(valueSlab, len(values)))
	}
	out := c.values[:len(values):len(values)]
	copy(out, values)
	c.values = c.values[len(values):]
	return out
}

// tidyZeros gives zero values the tidied unit their other values get:
// benchfmt tidies a value only when tidying changes it, so "0 ns/op" stays
// ns/op while "12 ns/op" becomes sec/op, and a unit whose samples are
// sometimes 0 (gc-cpu-ns/op of a store that allocates nothing) would be
// split over two tables.
func tidyZeros(r *benchfmt.Result) {
	for i := range r.Values {
		v := &r.Values[i]
		if v.Value != 0 || v.OrigUnit != "" {
			continue
		}
		if _, unit := benchunit.Tidy(1, v.Unit); unit != v.Unit {
			v.OrigUnit, v.OrigValue, v.Unit = v.Unit, 0, unit
		}
	}
}

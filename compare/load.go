package compare

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// FileKey is the internal configuration key that Load and Read attach to
// every result. Its value is the input's label, so ".file" can be used in
// Options.Row, Options.Col and Options.Filter like any other key.
const FileKey = ".file"

// Results is a set of benchmark results read from one or more inputs.
//
// A Results is not modified by Build, so one Results can be used to build
// several Reports (for example with different Options).
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
}

// Load reads benchmark results in the Go benchmark format from the named
// files, in order, and returns them as one Results.
//
// Each file is labelled with its path as given. An argument of the form
// "label=path" (when no file is literally named by the whole argument)
// labels the file at path with label instead, for example "base=old.txt".
// A path given twice gets "#1", "#2", ... appended to its later labels.
//
// Load fails, naming the file, if a file cannot be read, contains a
// malformed benchmark or unit line (the error names file:line and wraps
// the *benchfmt.SyntaxError), contains no benchmark results, or declares
// unit metadata that conflicts with an earlier file.
func Load(paths ...string) (*Results, error) {
	if len(paths) == 0 {
		return nil, errors.New("compare: no input files")
	}
	rs := &Results{Units: make(benchfmt.UnitMetadataMap)}
	seen := make(map[string]int)
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
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("compare: %w", err)
		}
		err = rs.read(f, path, label)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// Read reads benchmark results in the Go benchmark format from r, as Load
// does for a file. name is used in error messages and as the input's label.
func Read(r io.Reader, name string) (*Results, error) {
	rs := &Results{Units: make(benchfmt.UnitMetadataMap)}
	if err := rs.read(r, name, name); err != nil {
		return nil, err
	}
	return rs, nil
}

// read appends the results of one input to rs. path names the input in
// error messages; label is stored under FileKey.
func (rs *Results) read(r io.Reader, path, label string) error {
	reader := benchfmt.NewReader(r, path)
	reader.Reset(r, path, FileKey, label)
	n := 0
	for reader.Scan() {
		switch rec := reader.Result().(type) {
		case *benchfmt.SyntaxError:
			return fmt.Errorf("compare: malformed line: %w", rec)
		case *benchfmt.Result:
			rs.Results = append(rs.Results, rec.Clone())
			n++
		case *benchfmt.UnitMetadata:
			if have, ok := rs.Units[rec.UnitMetadataKey]; ok {
				if have.Value != rec.Value {
					hf, hl := have.Pos()
					f, l := rec.Pos()
					return fmt.Errorf("compare: %s:%d: unit %s: %s=%s conflicts with %s=%s at %s:%d",
						f, l, rec.OrigUnit, rec.Key, rec.Value, have.Key, have.Value, hf, hl)
				}
				continue
			}
			rs.Units[rec.UnitMetadataKey] = rec
		}
	}
	if err := reader.Err(); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("compare: %s: no benchmark results", path)
	}
	rs.Files = append(rs.Files, label)
	return nil
}

package bench

import (
	"io"

	"github.com/certbench/certbench/results"
)

// This file keeps, for one release, what package bench exported before
// package results took over the result files.

// ExactUnits are the units a Writer declares "assume=exact" when their
// samples show them to be exact.
//
// Deprecated: use results.ExactUnits.
var ExactUnits = results.ExactUnits

// ValueDigits is the number of significant digits FormatValue keeps.
//
// Deprecated: use results.ValueDigits.
const ValueDigits = results.ValueDigits

// FormatValue formats a measurement as result lines hold it.
//
// Deprecated: use results.FormatValue.
func FormatValue(v float64) string { return results.FormatValue(v) }

// Writer writes samples in the Go benchmark format.
//
// Deprecated: use results.Writer, whose Write takes a Sample too.
type Writer struct {
	*results.Writer
}

// NewWriter returns a Writer to w.
//
// Deprecated: use results.NewWriter.
func NewWriter(w io.Writer, extra ...string) *Writer {
	return &Writer{results.NewWriter(w, extra...)}
}

// Write writes one sample as a result line, with the Writer's
// configuration.
func (w *Writer) Write(s Sample) error { return w.Writer.Write(s) }

// Merge writes the results of the named files, in order, to out as one
// file.
//
// Deprecated: use results.Merge.
func Merge(out io.Writer, paths ...string) (int, error) { return results.Merge(out, paths...) }

// Version returns certbench's version.
//
// Deprecated: use results.Version.
func Version() string { return results.Version() }

// Revision returns the VCS revision certbench was built from, or "".
//
// Deprecated: use results.Revision.
func Revision() string { return results.Revision() }

// VersionLine returns what certbench --version prints after the command
// name.
//
// Deprecated: use results.VersionLine.
func VersionLine() string { return results.VersionLine() }

// CPUName returns the processor's model name as the testing package
// reports it, or "unknown".
//
// Deprecated: use results.CPUName.
var CPUName = results.CPUName

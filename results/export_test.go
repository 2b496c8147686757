package results

import "io"

// What the external tests (package results_test) reach of the package's
// unexported names.

const (
	FailPrefix = failPrefix
	Stdin      = stdinArg
	StdinName  = stdinName
)

var (
	EndLine     = endLine
	FormatValue = formatValue
	ExactUnits  = exactUnits
)

type (
	IterationsError    = iterationsError
	UnknownUnitWarning = unknownUnitWarning
	ValueError         = valueError
)

func WriteFailure(w io.Writer, name, reason string) error { return writeFailure(w, name, reason) }

func (w *Writer) Failures() int { return w.failures }

package gate_test

import (
	"encoding/json"
	"io"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/table"
)

// The renderers as certbench gate calls them.
func writeText(v *gate.Verdict, w io.Writer) error     { return table.WriteText(w, v.Page()) }
func writeMarkdown(v *gate.Verdict, w io.Writer) error { return table.WriteMarkdown(w, v.Page()) }
func writeJSON(v *gate.Verdict, w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v.JSON())
}

package results

import "strings"

// markdownReplacer escapes what Markdown (GitHub's flavour) would read as
// markup or a table's column separator.
var markdownReplacer = strings.NewReplacer(
	`\`, `\\`, "|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`",
	"<", "&lt;", ">", "&gt;", "[", `\[`, "]", `\]`,
)

// EscapeMarkdown escapes s for Markdown text and table cells: every
// renderer of certbench (compare, gate, profile) escapes by it.
func EscapeMarkdown(s string) string { return markdownReplacer.Replace(s) }

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

// CodeSpan returns s as a Markdown code span that is safe in a table
// cell: fenced by more backquotes than s holds in a row, with "|"
// escaped (GitHub reads "\|" as "|" even in a code span in a table).
func CodeSpan(s string) string {
	fence, run := 1, 0
	for _, r := range s {
		if r == '`' {
			run++
			fence = max(fence, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", fence)
	s = strings.ReplaceAll(s, "|", `\|`)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return f + s + f
}

package table

import (
	"encoding/json"
	"fmt"
	"io"
)

// Write renders p in the named format: "text", "markdown" (or "md"),
// "csv" or "html"; "json" writes data as encoding/json marshals it,
// indented, since a page is a view and data is what it shows.
func Write(w io.Writer, format string, p *Page, data any) error {
	switch format {
	case "text":
		return WriteText(w, p)
	case "markdown", "md":
		return WriteMarkdown(w, p)
	case "csv":
		return WriteCSV(w, p)
	case "html":
		return WriteHTML(w, p)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(data)
	}
	return fmt.Errorf("format %q: want text, markdown, csv, html or json", format)
}

// A Document is an output that writes itself in text, Markdown and JSON,
// where a Page's grid does not fit (conformance's findings).
type Document interface {
	WriteText(io.Writer) error
	WriteMarkdown(io.Writer) error
	WriteJSON(io.Writer) error
}

// WriteDocument writes d in the named format: "text", "markdown" (or
// "md") or "json".
func WriteDocument(w io.Writer, format string, d Document) error {
	switch format {
	case "text":
		return d.WriteText(w)
	case "markdown", "md":
		return d.WriteMarkdown(w)
	case "json":
		return d.WriteJSON(w)
	}
	return fmt.Errorf("format %q: want text, markdown or json", format)
}

package certgen

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSkipLines: skipped entries are named with their reason, the
// unusable ones first; entries skipped for the same reason share a line;
// the list is capped, its last line saying how many more there are.
func TestSkipLines(t *testing.T) {
	skips := []Skip{
		{File: "notes.txt", Reason: "no PEM blocks", Ignored: true},
		{File: "a.pem", Line: 3, Reason: "certificate has no matching private key"},
		{File: "b.txt", Reason: "no PEM blocks", Ignored: true},
		{File: "c.txt", Reason: "no PEM blocks", Ignored: true},
		{File: "d.txt", Reason: "no PEM blocks", Ignored: true},
		{File: "dyn.yaml", Line: 7, Where: "tls.certificates[2]", Reason: "no keyFile"},
	}
	want := []string{
		"skipped a.pem:3: certificate has no matching private key",
		"skipped dyn.yaml:7 tls.certificates[2]: no keyFile",
		"ignored 4 entries (notes.txt, b.txt, c.txt and 1 more): no PEM blocks",
	}
	if got := (&Source{Skipped: skips}).SkippedLines(); !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := (&Source{Skipped: skips}).SkippedCount(); got != "6 entries skipped (2 unusable; 4 ignored: other files, duplicates, CA certificates)" {
		t.Errorf("count: %s", got)
	}
	if got := (&Source{Skipped: skips[:1]}).SkippedCount(); !strings.HasPrefix(got, "1 entry skipped (") {
		t.Errorf("one skip: %q", got)
	}

	var many []Skip
	for i := range 25 {
		many = append(many, Skip{File: fmt.Sprintf("f%02d.pem", i), Line: 1, Reason: fmt.Sprintf("reason %d", i/2)})
	}
	got := (&Source{Skipped: many}).SkippedLines()
	if len(got) != maxSkipLines {
		t.Fatalf("%d lines, want %d:\n%s", len(got), maxSkipLines, strings.Join(got, "\n"))
	}
	if last := got[len(got)-1]; last != "... and 7 more entries, for 4 other reasons" {
		t.Errorf("last line %q", last)
	}
}

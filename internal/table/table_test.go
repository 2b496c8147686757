package table

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// page is a comparison in benchstat's shape (grouped columns, intervals,
// a continuing test column, footnotes, a summary row) and a gate-like
// table without groups.
func page() *Page {
	t := New("sec/op",
		Column{Name: "scenario"},
		Column{Group: "old.txt", Name: "sec/op", Align: Right},
		Column{Group: "new.txt", Name: "sec/op", Align: Right},
		Column{Group: "new.txt", Name: "vs base", Align: Right},
		Column{Group: "new.txt", Align: Left},
	)
	t.Add(Cell{Text: "rotate-10-of-100"}, Cell{Text: "12.3 ms", Interval: "3%"},
		Cell{Text: "8.75 ms", Interval: "3%"}, Cell{Text: "-28.66%", Class: Better}, Cell{Text: "(p=0.002 n=6)"})
	t.Add(Cell{Text: "lookup|1000"}, Cell{Text: "3.45 ms", Interval: "12%"},
		t.Note(Cell{Text: "3.43 ms"}, "too few samples for an interval"), Cell{Text: "~"}, Cell{Text: "(p=0.937 n=3)"})
	t.Add(Cell{Text: "geomean"}, Cell{Text: "6.51 ms"}, Cell{Text: "5.48 ms"},
		t.Note(Cell{Text: "-15.88%"}, "geomean of 2 rows", "too few samples for an interval"), Cell{}).Summary = true
	g := New("Regressed",
		Column{Name: "benchmark"}, Column{Name: "base", Align: Right},
		Column{Name: "head", Align: Right}, Column{Name: "change", Align: Right})
	g.Add(Cell{Text: "rotate/optimized"}, Cell{Text: "1 ms"}, Cell{Text: "1.25 ms"}, Cell{Text: "+24.75%", Class: Regressed})
	g.Notes = []string{"change: the paired estimate, not the difference of the medians"}
	return &Page{
		Title:   "certbench <compare>",
		Details: []string{"goos: linux", "cpu: Xeon"},
		Lines:   []string{"base: old.txt", "head: new.txt"},
		Tables:  []*Table{t, g},
		Notes:   []string{"each change is tested on its own"},
	}
}

func TestGolden(t *testing.T) {
	for _, r := range []struct {
		ext   string
		write func(*bytes.Buffer, *Page) error
	}{
		{"txt", func(b *bytes.Buffer, p *Page) error { return WriteText(b, p) }},
		{"md", func(b *bytes.Buffer, p *Page) error { return WriteMarkdown(b, p) }},
		{"csv", func(b *bytes.Buffer, p *Page) error { return WriteCSV(b, p) }},
		{"html", func(b *bytes.Buffer, p *Page) error { return WriteHTML(b, p) }},
	} {
		var b bytes.Buffer
		if err := r.write(&b, page()); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join("testdata", "page."+r.ext+".golden")
		if *update {
			if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if b.String() != string(want) {
			t.Errorf("%s: got\n%s\nwant\n%s", file, b.String(), want)
		}
	}
}

// TestTextAligned checks that every line of a grouped table puts its
// group separators at the same rune offsets.
func TestTextAligned(t *testing.T) {
	var b bytes.Buffer
	p := page()
	p.Tables[0].Title = ""
	WriteText(&b, &Page{Tables: p.Tables[:1]})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	pos := func(l string) []int {
		var at []int
		for i, r := range []rune(l) {
			if r == '│' {
				at = append(at, i)
			}
		}
		return at
	}
	want := pos(lines[0])
	if len(want) != 3 {
		t.Fatalf("header %q: %d separators, want 3", lines[0], len(want))
	}
	if got := pos(lines[1]); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("separators at %v and %v:\n%s", want, got, b.String())
	}
	for _, l := range lines[2:5] {
		// A body cell ends before the next group's separator column.
		if r := []rune(l); len(r) > want[1] && r[want[1]] != ' ' {
			t.Errorf("line %q runs into the separator at %d", l, want[1])
		}
	}
}

func TestFootnoteShared(t *testing.T) {
	tb := New("x", Column{Name: "a"})
	a, b, c := tb.Footnote("one"), tb.Footnote("two"), tb.Footnote("one")
	if a != 1 || b != 2 || c != 1 || len(tb.Footnotes) != 2 {
		t.Errorf("Footnote numbers %d %d %d, footnotes %q", a, b, c, tb.Footnotes)
	}
}

// TestSameCells checks that every renderer shows every cell's text.
func TestSameCells(t *testing.T) {
	p := page()
	var txt, md, h, c bytes.Buffer
	WriteText(&txt, p)
	WriteMarkdown(&md, p)
	WriteHTML(&h, p)
	WriteCSV(&c, p)
	r := csv.NewReader(&c)
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var fields []string
	for _, rec := range recs {
		fields = append(fields, rec...)
	}
	csvText := strings.Join(fields, "\n")
	for _, tb := range p.Tables {
		for _, row := range tb.Rows {
			for _, cell := range row.Cells {
				for name, out := range map[string]string{"text": txt.String(), "html": h.String(), "csv": csvText, "md": strings.ReplaceAll(md.String(), `\|`, "|")} {
					if !strings.Contains(out, cell.Text) {
						t.Errorf("%s does not show %q", name, cell.Text)
					}
				}
			}
		}
	}
}

func TestJSON(t *testing.T) {
	b, err := json.Marshal(page())
	if err != nil {
		t.Fatal(err)
	}
	var back Page
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := back.Tables[0].Rows[1].Cells[2].Notes, []int{1}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("notes after a round trip: %v, want %v", got, want)
	}
}

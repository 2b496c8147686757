package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// TestOutputsAgree runs every renderer of one pair of results files (the
// gate's golden base and head) — compare's text, Markdown and CSV,
// report's HTML, the gate's text, Markdown and JSON, and report --gate —
// and checks that they show, for every benchmark and metric they share,
// the same base and head value and the same change, and for every metric
// the same geomean decision.
func TestOutputsAgree(t *testing.T) {
	t.Run("golden", func(t *testing.T) { agree(t, "../ci/gate/testdata/base.txt", "../ci/gate/testdata/golden-head.txt") })
	// Values that read alike at the usual digits: 1,328.65 and 1,329.05
	// allocs/op (exact: a regression) must read as different values,
	// and the same, everywhere.
	dir := t.TempDir()
	var b, h strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, "BenchmarkChurn/scenario=s/store=optimized 10 %d ns/op 1328.65 allocs/op\n", 1000+i)
		fmt.Fprintf(&h, "BenchmarkChurn/scenario=s/store=optimized 10 %d ns/op 1329.05 allocs/op\n", 1000+i)
	}
	os.WriteFile(filepath.Join(dir, "base.txt"), []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "head.txt"), []byte(h.String()), 0o644)
	t.Run("close", func(t *testing.T) { agree(t, filepath.Join(dir, "base.txt"), filepath.Join(dir, "head.txt")) })
}

func agree(t *testing.T, files ...string) {
	base, err := results.Load(files[0])
	if err != nil {
		t.Fatal(err)
	}
	head, err := results.Load(files[1])
	if err != nil {
		t.Fatal(err)
	}
	both, err := results.Load(files...)
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := compare.Build(both, compare.FileOptions())
	if err != nil {
		t.Fatal(err)
	}
	v, err := gate.Evaluate(base, head, gate.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	gateJSON, err := json.Marshal(v.JSON())
	if err != nil {
		t.Fatal(err)
	}
	g, err := gate.ReadDocument(bytes.NewReader(gateJSON))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(both, Options{Compare: compare.FileOptions(), Gate: g})
	if err != nil {
		t.Fatal(err)
	}
	render := func(write func(*bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	cp, gp := cmp.Page(), v.Page()
	html := render(func(b *bytes.Buffer) error { return rep.WriteHTML(b) })
	gateAt := strings.Index(html, `<section id="gate"`)
	outputs := map[string]string{
		"compare text":     render(func(b *bytes.Buffer) error { return table.WriteText(b, cp) }),
		"compare markdown": render(func(b *bytes.Buffer) error { return table.WriteMarkdown(b, cp) }),
		"compare csv":      csvLines(t, render(func(b *bytes.Buffer) error { return table.WriteCSV(b, cp) })),
		"report html":      html[strings.Index(html, `<section id="tables"`):],
		"gate text":        render(func(b *bytes.Buffer) error { return table.WriteText(b, gp) }),
		"gate markdown":    render(func(b *bytes.Buffer) error { return table.WriteMarkdown(b, gp) }),
		"gate json page":   render(func(b *bytes.Buffer) error { return table.WriteText(b, g.Page) }),
		"report --gate":    html[gateAt : gateAt+strings.Index(html[gateAt:], "</section>")],
	}
	compared := 0
	for _, f := range v.Findings {
		if f.Scenario == "" || f.Status == gate.Missing {
			continue
		}
		ct := cmp.Table(f.Unit)
		if ct.Hidden != "" {
			continue // no output shows it
		}
		label := "scenario=" + f.Scenario + "/store=" + f.Store
		var row *compare.Row
		for _, r := range ct.Rows {
			if r.Label == label {
				row = r
			}
		}
		if row == nil || row.Cells[0] == nil || row.Cells[1] == nil {
			t.Fatalf("%s %s: no compare row %s", f.Label(), f.Unit, label)
		}
		// The table values of compare and the gate show one text for
		// each figure.
		b, h := cellTexts(cp, f.Unit, label, 1, 2)
		if f.Status != gate.Unchanged {
			if gb, gh := cellTexts(gp, f.Unit, f.Label(), 2, 3); b != gb || h != gh {
				t.Errorf("%s %s: compare's cells %s, %s; the gate's %s, %s", f.Label(), f.Unit, b, h, gb, gh)
			}
		}
		if f.Base != f.Head && b == h {
			t.Errorf("%s %s: base %v and head %v both read %s", f.Label(), f.Unit, f.Base, f.Head, b)
		}
		want := []string{b, h}
		if d := row.Cells[1].Delta; d.Significant && f.Method != gate.SignedRank && (f.Status == gate.Regressed || f.Status == gate.Improved) {
			want = append(want, d.String()) // the gate's change shows the same percent
		}
		for name, out := range outputs {
			isGate := strings.Contains(name, "gate")
			if isGate && f.Status == gate.Unchanged {
				continue // the gate counts unchanged findings
			}
			rowLabel := label
			if isGate {
				rowLabel = f.Label()
			}
			line := rowOf(out, rowLabel, f.Unit, isGate)
			if line == "" {
				t.Errorf("%s: no row %s %s", name, rowLabel, f.Unit)
				continue
			}
			for _, w := range want {
				if !strings.Contains(line, w) {
					t.Errorf("%s: row %s %s lacks %q: %s", name, rowLabel, f.Unit, w, line)
				}
			}
			compared++
		}
	}
	if compared < 8 {
		t.Errorf("only %d rows compared", compared)
	}
	// The geomean decision: shown in every compare output or in none,
	// and said why where not.
	for _, ct := range cmp.Tables {
		if ct.Hidden != "" {
			continue
		}
		for _, name := range []string{"compare text", "compare markdown", "compare csv", "report html"} {
			out := section(outputs[name], ct.Unit)
			has := false
			for _, row := range []string{"\ngeomean ", "| *geomean* |", " | geomean | ", `<tr class="summary">`} {
				has = has || strings.Contains(out, row)
			}
			says := strings.Contains(out, ct.NoGeomean)
			if (ct.Geomean != nil) != has || (ct.NoGeomean != "" && !says) {
				t.Errorf("%s %s: geomean row %v, why %v; compare decided %v (%q)", name, ct.Unit, has, says, ct.Geomean != nil, ct.NoGeomean)
			}
		}
	}
}

// cellTexts returns the texts of cells i and j of the row of p's tables
// that starts with label (and, in a gate table, names unit in its second
// cell); compare's tables are titled by their unit.
func cellTexts(p *table.Page, unit, label string, i, j int) (string, string) {
	for _, tb := range p.Tables {
		for _, r := range tb.Rows {
			if r.Cells[0].Text == label && (tb.Title == unit || len(r.Cells) > 1 && r.Cells[1].Text == unit) {
				return r.Cells[i].Text, r.Cells[j].Text
			}
		}
	}
	return "", ""
}

// csvLines joins each CSV record's fields by " | ", one record a line.
func csvLines(t *testing.T, s string) string {
	r := csv.NewReader(strings.NewReader(s))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, rec := range recs {
		b.WriteString(strings.Join(rec, " | ") + "\n")
	}
	return b.String()
}

// rowOf returns the line (an HTML row) of out that shows label's unit:
// in the gate's tables a row names the unit; compare's rows are under
// their unit's table.
func rowOf(out, label, unit string, gateRow bool) string {
	if !gateRow {
		out = section(out, unit)
	}
	lines := strings.Split(out, "\n")
	if strings.Contains(out, "<tr") {
		lines = strings.Split(out, "</tr>")
	}
	for _, l := range lines {
		l = strings.ReplaceAll(l, `\|`, "|")
		if !strings.Contains(l, label+" ") && !strings.Contains(l, ">"+label+"<") && !strings.Contains(l, label+" |") {
			continue
		}
		if !gateRow || strings.Contains(l, " "+unit+" ") || strings.Contains(l, ">"+unit+"<") {
			return l
		}
	}
	return ""
}

// section returns unit's table in out: from its title to the next
// table's (text, Markdown, HTML), or its records (CSV, as csvLines).
func section(out, unit string) string {
	if strings.HasPrefix(out, "table | ") {
		var b strings.Builder
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, unit+" | ") {
				b.WriteString(l + "\n")
			}
		}
		return b.String()
	}
	out = "\n" + out
	for _, f := range []struct{ head, next string }{
		{"\n" + unit + "\n", "\n\n"}, {"### " + unit + "\n", "\n### "}, {"(" + unit + ")</h3>", "<h3>"},
	} {
		if i := strings.Index(out, f.head); i >= 0 {
			rest := out[i+len(f.head):]
			if j := strings.Index(rest, f.next); j >= 0 {
				return rest[:j]
			}
			return rest
		}
	}
	return ""
}

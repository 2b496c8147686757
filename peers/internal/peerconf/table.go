package peerconf

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The markers around the generated table in peers/README.md.
const (
	BeginMarker = "<!-- conformance-table:begin -->"
	EndMarker   = "<!-- conformance-table:end -->"
)

// Table is the conformance table: one row per rule, one column per peer.
type Table struct {
	Peers []string
	Rules []string
	Cells map[string]map[string]Result // peer -> rule -> result
}

// ReadTable parses the table between the markers of a README. A README
// whose markers enclose no table gives an empty table.
func ReadTable(readme []byte) (*Table, error) {
	body, err := between(readme)
	if err != nil {
		return nil, err
	}
	t := &Table{Cells: map[string]map[string]Result{}}
	for _, line := range strings.Split(string(body), "\n") {
		cells := splitRow(line)
		switch {
		case cells == nil:
		case cells[0] == "rule":
			t.Peers = append([]string(nil), cells[1:]...)
			for _, p := range t.Peers {
				t.Cells[p] = map[string]Result{}
			}
		case strings.HasPrefix(cells[0], "`"):
			rule := strings.Trim(cells[0], "`")
			if len(cells)-1 != len(t.Peers) {
				return nil, fmt.Errorf("conformance table: row %q has %d results for %d peers", rule, len(cells)-1, len(t.Peers))
			}
			t.Rules = append(t.Rules, rule)
			for i, c := range cells[1:] {
				switch r := Result(strings.Trim(c, "*")); r {
				case Pass, Fail, Skip:
					t.Cells[t.Peers[i]][rule] = r
				case "–", "-", "":
				default:
					return nil, fmt.Errorf("conformance table: row %q: unknown result %q", rule, c)
				}
			}
		}
	}
	return t, nil
}

// splitRow returns the trimmed cells of a Markdown table row, or nil for
// anything else (including the separator row).
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| ---") {
		return nil
	}
	parts := strings.Split(line[1:len(line)-1], "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// Set replaces peer's column with r, adding the column if it is new. Rows
// follow r's order, then the rules only other peers have; rules no peer has
// are dropped.
func (t *Table) Set(peer string, r Results) {
	if !slices.Contains(t.Peers, peer) {
		t.Peers = append(t.Peers, peer)
	}
	col := make(map[string]Result, len(r.Of))
	for k, v := range r.Of {
		col[k] = v
	}
	t.Cells[peer] = col
	rules := slices.Clone(r.Order)
	for _, rule := range t.Rules {
		if slices.Contains(rules, rule) {
			continue
		}
		for _, p := range t.Peers {
			if _, ok := t.Cells[p][rule]; ok {
				rules = append(rules, rule)
				break
			}
		}
	}
	t.Rules = rules
}

// Diff lists how r differs from peer's column, one line per rule.
func (t *Table) Diff(peer string, r Results) []string {
	col := t.Cells[peer]
	if col == nil {
		return []string{fmt.Sprintf("the table has no %s column", peer)}
	}
	var diff []string
	for _, rule := range r.Order {
		want, ok := col[rule]
		switch {
		case !ok:
			diff = append(diff, fmt.Sprintf("%s: %s now, not in the table", rule, r.Of[rule]))
		case want != r.Of[rule]:
			diff = append(diff, fmt.Sprintf("%s: %s now, the table says %s", rule, r.Of[rule], want))
		}
	}
	for _, rule := range t.Rules {
		if _, ok := col[rule]; ok {
			if _, ran := r.Of[rule]; !ran {
				diff = append(diff, fmt.Sprintf("%s: in the table (%s), not run now", rule, col[rule]))
			}
		}
	}
	return diff
}

// Render writes the table as Markdown, with a summary row.
func (t *Table) Render() []byte {
	var b bytes.Buffer
	b.WriteString("| rule |")
	for _, p := range t.Peers {
		b.WriteString(" " + p + " |")
	}
	b.WriteString("\n|---|")
	for range t.Peers {
		b.WriteString(":-:|")
	}
	b.WriteString("\n")
	for _, rule := range t.Rules {
		b.WriteString("| `" + rule + "` |")
		for _, p := range t.Peers {
			switch r, ok := t.Cells[p][rule]; {
			case !ok:
				b.WriteString(" – |")
			case r == Fail:
				b.WriteString(" **FAIL** |")
			default:
				b.WriteString(" " + string(r) + " |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("| **rules passed** |")
	for _, p := range t.Peers {
		n := 0
		for _, r := range t.Cells[p] {
			if r == Pass {
				n++
			}
		}
		fmt.Fprintf(&b, " **%d / %d** |", n, len(t.Cells[p]))
	}
	b.WriteString("\n")
	return b.Bytes()
}

// ReplaceTable returns readme with the text between the markers replaced
// by table.
func ReplaceTable(readme, table []byte) ([]byte, error) {
	if _, err := between(readme); err != nil {
		return nil, err
	}
	i := bytes.Index(readme, []byte(BeginMarker)) + len(BeginMarker)
	j := bytes.Index(readme, []byte(EndMarker))
	var out bytes.Buffer
	out.Write(readme[:i])
	out.WriteString("\n")
	out.Write(table)
	out.Write(readme[j:])
	return out.Bytes(), nil
}

func between(readme []byte) ([]byte, error) {
	i := bytes.Index(readme, []byte(BeginMarker))
	j := bytes.Index(readme, []byte(EndMarker))
	if i < 0 || j < 0 || j < i {
		return nil, errors.New("no conformance table markers (" + BeginMarker + " ... " + EndMarker + ")")
	}
	return readme[i+len(BeginMarker) : j], nil
}

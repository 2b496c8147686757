package compare

import (
	"encoding/json"
	"io"
	"math"
)

// JSONSchema identifies the version of the JSON document written by
// WriteJSON. It changes only if fields are removed or change meaning.
const JSONSchema = "certbench.compare/v1"

// The types below define the JSON document; see the package
// documentation for the schema.

type jsonReport struct {
	Schema   string       `json:"schema"`
	Options  jsonOptions  `json:"options"`
	Config   []jsonConfig `json:"config"`
	Columns  []string     `json:"columns"`
	Tables   []jsonTable  `json:"tables"`
	Warnings []string     `json:"warnings"`
}

type jsonOptions struct {
	Row        string   `json:"row"`
	Col        string   `json:"col"`
	Filter     string   `json:"filter"`
	Columns    []string `json:"columns"`
	Alpha      float64  `json:"alpha"`
	Confidence float64  `json:"confidence"`
}

type jsonConfig struct {
	Key    string   `json:"key"`
	Values []string `json:"values"`
}

type jsonTable struct {
	Unit       string         `json:"unit"`
	Assumption string         `json:"assumption"`
	Better     string         `json:"better"`
	RowHeader  string         `json:"row_header"`
	Rows       []jsonRow      `json:"rows"`
	Geomean    []*jsonGeomean `json:"geomean"`
}

type jsonRow struct {
	Label string            `json:"label"`
	Key   map[string]string `json:"key"`
	Cells []*jsonCell       `json:"cells"`
}

type jsonCell struct {
	Column     string     `json:"column"`
	N          int        `json:"n"`
	Values     []float64  `json:"values"`
	Center     float64    `json:"center"`
	Lo         *float64   `json:"lo"`
	Hi         *float64   `json:"hi"`
	Confidence float64    `json:"confidence"`
	Text       string     `json:"text"`
	CenterText string     `json:"center_text"`
	CIText     string     `json:"ci_text"`
	Warnings   []string   `json:"warnings"`
	Delta      *jsonDelta `json:"delta"`
}

type jsonDelta struct {
	Base        float64  `json:"base"`
	Value       float64  `json:"value"`
	Ratio       *float64 `json:"ratio"`
	Percent     *float64 `json:"percent"`
	P           float64  `json:"p"`
	Alpha       float64  `json:"alpha"`
	NBase       int      `json:"n_base"`
	N           int      `json:"n"`
	Significant bool     `json:"significant"`
	Text        string   `json:"text"`
	Test        string   `json:"test"`
	Warnings    []string `json:"warnings"`
}

type jsonGeomean struct {
	Column    string   `json:"column"`
	Rows      int      `json:"rows"`
	Center    *float64 `json:"center"`
	Ratio     *float64 `json:"ratio"`
	Percent   *float64 `json:"percent"`
	Text      string   `json:"text"`
	DeltaText string   `json:"delta_text"`
	Warnings  []string `json:"warnings"`
}

// WriteJSON writes r as one indented JSON document, described in the
// package documentation.
func (r *Report) WriteJSON(w io.Writer) error {
	doc := jsonReport{
		Schema: JSONSchema,
		Options: jsonOptions{
			Row: r.Options.Row, Col: r.Options.Col, Filter: r.Options.Filter,
			Columns: nonNil(r.Options.Columns),
			Alpha:   r.Options.Alpha, Confidence: r.Options.Confidence,
		},
		Config:   []jsonConfig{},
		Columns:  []string{},
		Tables:   []jsonTable{},
		Warnings: nonNil(r.Warnings),
	}
	for _, c := range r.Config {
		doc.Config = append(doc.Config, jsonConfig{c.Key, nonNil(c.Values)})
	}
	for _, c := range r.Columns {
		doc.Columns = append(doc.Columns, c.Label)
	}
	for _, t := range r.Tables {
		jt := jsonTable{
			Unit:       t.Unit,
			Assumption: t.Assumption.SummaryLabel(),
			Better:     map[int]string{-1: "lower", 1: "higher"}[t.Better],
			RowHeader:  t.RowHeader(),
			Rows:       []jsonRow{},
			Geomean:    []*jsonGeomean{},
		}
		for _, row := range t.Rows {
			jr := jsonRow{Label: row.Label, Key: map[string]string{}}
			for _, f := range row.Key.Projection().FlattenedFields() {
				jr.Key[f.Name] = row.Key.Get(f)
			}
			for j, c := range row.Cells {
				if c == nil {
					jr.Cells = append(jr.Cells, nil)
					continue
				}
				center, ci := t.cellTexts(c)
				jc := &jsonCell{
					Column:     t.Columns[j].Label,
					N:          c.N(),
					Values:     c.Sample.Values,
					Center:     c.Center(),
					Lo:         finite(c.Summary.Lo),
					Hi:         finite(c.Summary.Hi),
					Confidence: c.Summary.Confidence,
					Text:       center + " ± " + ci,
					CenterText: center,
					CIText:     ci,
					Warnings:   nonNil(c.Warnings),
				}
				if d := c.Delta; d != nil {
					jc.Delta = &jsonDelta{
						Base:        d.Base,
						Value:       d.Value,
						Ratio:       finite(d.Ratio),
						Percent:     finite(d.Percent()),
						P:           d.Comparison.P,
						Alpha:       d.Comparison.Alpha,
						NBase:       d.Comparison.N1,
						N:           d.Comparison.N2,
						Significant: d.Significant,
						Text:        d.String(),
						Test:        testText(d),
						Warnings:    nonNil(d.Warnings),
					}
				}
				jr.Cells = append(jr.Cells, jc)
			}
			jt.Rows = append(jt.Rows, jr)
		}
		for j, g := range t.Geomean {
			center, ratio := t.geoTexts(j, g)
			jg := &jsonGeomean{
				Column:    t.Columns[j].Label,
				Rows:      g.Rows,
				Center:    finite(g.Center),
				Ratio:     finite(g.Ratio),
				Percent:   finite((g.Ratio - 1) * 100),
				Text:      center,
				DeltaText: ratio,
				Warnings:  nonNil(g.Warnings),
			}
			jt.Geomean = append(jt.Geomean, jg)
		}
		doc.Tables = append(doc.Tables, jt)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

// finite returns a pointer to x, or nil (JSON null) if x is infinite or NaN.
func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

package compare

import (
	"encoding/json"
	"math"
)

// The MarshalJSON methods add the benchmath values (samples, summaries,
// tests) and write non-finite numbers as null.

// MarshalJSON adds the table's assumption ("median" or "exact") and row
// header.
func (t *Table) MarshalJSON() ([]byte, error) {
	type plain Table
	return json.Marshal(struct {
		*plain
		Assumption string `json:"assumption"`
		RowHeader  string `json:"row_header"`
	}{(*plain)(t), t.Assumption.SummaryLabel(), t.RowHeader()})
}

// MarshalJSON adds the sample and its summary.
func (c *Cell) MarshalJSON() ([]byte, error) {
	type plain Cell
	return json.Marshal(struct {
		*plain
		N          int       `json:"n"`
		Values     []float64 `json:"values"`
		Center     float64   `json:"center"`
		Lo         *float64  `json:"lo"`
		Hi         *float64  `json:"hi"`
		Confidence float64   `json:"confidence"`
		Interval   string    `json:"interval"`
	}{(*plain)(c), c.N(), c.Sample.Values, c.Center(), finite(c.Summary.Lo), finite(c.Summary.Hi),
		c.Summary.Confidence, ciText(c)})
}

// MarshalJSON adds the test and the change's text.
func (d *Delta) MarshalJSON() ([]byte, error) {
	type plain Delta
	return json.Marshal(struct {
		*plain
		Ratio   *float64 `json:"ratio"`
		Percent *float64 `json:"percent"`
		P       float64  `json:"p"`
		Alpha   float64  `json:"alpha"`
		NBase   int      `json:"n_base"`
		N       int      `json:"n"`
		Text    string   `json:"text"`
		Test    string   `json:"test"`
	}{(*plain)(d), finite(d.Ratio), finite(d.Percent()), d.Comparison.P, d.Comparison.Alpha,
		d.Comparison.N1, d.Comparison.N2, d.String(), d.Comparison.String()})
}

// MarshalJSON writes an undefined center or ratio as null.
func (g Geomean) MarshalJSON() ([]byte, error) {
	type plain Geomean
	return json.Marshal(struct {
		plain
		Center *float64 `json:"center"`
		Ratio  *float64 `json:"ratio"`
	}{plain(g), finite(g.Center), finite(g.Ratio)})
}

// finite returns a pointer to x, or nil (JSON null) if x is infinite or NaN.
func finite(x float64) *float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return nil
	}
	return &x
}

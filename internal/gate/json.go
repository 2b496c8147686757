package gate

import (
	"encoding/json"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/table"
)

// JSONSchema is the "schema" of the document certbench gate --format json
// writes ([Verdict.JSON]).
const JSONSchema = "certbench.gate/v2"

// A Document is what certbench gate --format json writes: the Verdict
// (non-finite numbers null), its outcome, and the Page every other
// output renders.
type Document struct {
	Schema   string   `json:"schema"`
	Passed   bool     `json:"passed"`
	Summary  string   `json:"summary"`
	Failures []string `json:"failures"`
	*Verdict
	Page *table.Page `json:"page"`
}

// JSON returns v's Document.
func (v *Verdict) JSON() Document {
	return Document{JSONSchema, v.Passed(), v.Summary(), v.Failures(), v, v.Page()}
}

// MarshalJSON writes undefined numbers as null, and adds the change.
func (f *Finding) MarshalJSON() ([]byte, error) {
	type plain Finding
	n := compare.Finite
	return json.Marshal(struct {
		*plain
		Base      *float64 `json:"base"`
		Head      *float64 `json:"head"`
		Change    *float64 `json:"change"`
		Percent   *float64 `json:"percent"`
		BaseN     int      `json:"base_n"`
		HeadN     int      `json:"head_n"`
		BaseMin   *float64 `json:"base_min"`
		BaseMax   *float64 `json:"base_max"`
		HeadMin   *float64 `json:"head_min"`
		HeadMax   *float64 `json:"head_max"`
		P         *float64 `json:"p"`
		AdjustedP *float64 `json:"adjusted_p"`
		Ratio     *float64 `json:"ratio"`
		RatioLow  *float64 `json:"ratio_low"`
		RatioHigh *float64 `json:"ratio_high"`
	}{(*plain)(f), n(f.Base), n(f.Head), n(f.Change()), n(f.Percent()),
		f.BaseN, f.HeadN, n(f.BaseMin), n(f.BaseMax), n(f.HeadMin), n(f.HeadMax),
		n(f.P), n(f.AdjustedP), n(f.Ratio), n(f.RatioLow), n(f.RatioHigh)})
}

package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

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
		findingNumbers
	}{(*plain)(f), findingNumbers{n(f.Base), n(f.Head), n(f.Change()), n(f.Percent()),
		f.BaseN, f.HeadN, n(f.BaseMin), n(f.BaseMax), n(f.HeadMin), n(f.HeadMax),
		n(f.P), n(f.AdjustedP), n(f.Ratio), n(f.RatioLow), n(f.RatioHigh)}})
}

// findingNumbers are a Finding's numbers in JSON, null where undefined;
// Change and Percent are derived (written, not read back).
type findingNumbers struct {
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
}

// UnmarshalJSON reads what MarshalJSON writes, a null number as NaN.
func (f *Finding) UnmarshalJSON(b []byte) error {
	type plain Finding
	var v struct {
		*plain
		findingNumbers
	}
	v.plain = (*plain)(f)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	n := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	x := v.findingNumbers
	f.Base, f.Head, f.BaseN, f.HeadN = n(x.Base), n(x.Head), x.BaseN, x.HeadN
	f.BaseMin, f.BaseMax, f.HeadMin, f.HeadMax = n(x.BaseMin), n(x.BaseMax), n(x.HeadMin), n(x.HeadMax)
	f.P, f.AdjustedP, f.Ratio, f.RatioLow, f.RatioHigh = n(x.P), n(x.AdjustedP), n(x.Ratio), n(x.RatioLow), n(x.RatioHigh)
	return nil
}

// ReadDocument reads what certbench gate --format json writes, refusing
// anything else (another schema, no outcome or page).
func ReadDocument(r io.Reader) (*Document, error) {
	data, err := io.ReadAll(io.LimitReader(r, 64<<20))
	if err != nil {
		return nil, err
	}
	var head struct {
		Schema string          `json:"schema"`
		Passed *bool           `json:"passed"`
		Page   json.RawMessage `json:"page"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a gate result (certbench gate --format json): %v", err)
	}
	switch {
	case head.Schema == "":
		return nil, errors.New("not a gate result (certbench gate --format json): no \"schema\"")
	case head.Schema != JSONSchema:
		return nil, fmt.Errorf("gate result of schema %q, want %q (gate it again with this certbench)", head.Schema, JSONSchema)
	case head.Passed == nil || len(head.Page) == 0 || string(head.Page) == "null":
		return nil, errors.New("gate result without \"passed\" or \"page\"")
	}
	d := &Document{Verdict: &Verdict{}}
	if err := json.Unmarshal(data, d); err != nil {
		return nil, fmt.Errorf("gate result: %v", err)
	}
	return d, nil
}

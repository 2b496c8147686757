package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/internal/table"
)

// A GateResult is a gate's verdict as the report shows it: the outcome
// and the gate's own Page, so that the two cannot differ in a figure.
type GateResult struct {
	Passed  bool        `json:"passed"`
	Summary string      `json:"summary"`
	Page    *table.Page `json:"page"`
}

// ReadGate reads what certbench gate --format json writes, refusing
// anything else.
func ReadGate(r io.Reader) (*GateResult, error) {
	var g struct {
		Schema string `json:"schema"`
		Passed *bool  `json:"passed"`
		GateResult
	}
	dec := json.NewDecoder(io.LimitReader(r, 64<<20))
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("not a gate result (certbench gate --format json): %v", err)
	}
	switch {
	case g.Schema == "":
		return nil, errors.New("not a gate result (certbench gate --format json): no \"schema\"")
	case g.Schema != gate.JSONSchema:
		return nil, fmt.Errorf("gate result of schema %q, want %q (gate it again with this certbench)", g.Schema, gate.JSONSchema)
	case g.Passed == nil || g.Page == nil:
		return nil, errors.New("gate result without \"passed\" or \"page\"")
	}
	g.GateResult.Passed = *g.Passed
	return &g.GateResult, nil
}

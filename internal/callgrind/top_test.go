package callgrind_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/callgrind"
)

func TestSummarize(t *testing.T) {
	p := parseOne(t, "testdata/small.callgrind")
	top, err := callgrind.Summarize(p, callgrind.Instructions, 2)
	if err != nil {
		t.Fatal(err)
	}
	if top.Ops != 1 || top.Total != 1020 || len(top.Self) != 2 || len(top.Inclusive) != 2 {
		t.Fatalf("top %+v", top)
	}
	if top.Self[0].Function != "github.com/certbench/certbench/stores/optimized.(*Store).Update" || top.Self[0].Cost != 400 || !top.Self[0].Store {
		t.Errorf("first by own cost: %+v", top.Self[0])
	}
	if top.Inclusive[0].Function != "github.com/certbench/certbench/bench.apply" || top.Inclusive[0].Cost != 1120 {
		t.Errorf("first by inclusive cost: %+v", top.Inclusive[0])
	}
	for _, format := range []string{"text", "markdown", "json"} {
		var b bytes.Buffer
		if err := callgrind.WriteTops(&b, format, []*callgrind.Top{top}); err != nil {
			t.Fatal(err)
		}
		// Markdown escapes the function's * (it renders as written).
		if !strings.Contains(strings.ReplaceAll(b.String(), `\*`, "*"), "optimized.(*Store).Update") {
			t.Errorf("%s: %s", format, b.String())
		}
		if format == "json" && !json.Valid(b.Bytes()) {
			t.Errorf("invalid JSON: %s", b.String())
		}
		if format == "text" && !strings.Contains(b.String(), "1,020.0 instructions per op") && !strings.Contains(b.String(), "1,020 instructions per op") {
			t.Errorf("text: %s", b.String())
		}
	}
	if err := callgrind.WriteTops(&bytes.Buffer{}, "xml", nil); err == nil {
		t.Error("unknown format accepted")
	}
}

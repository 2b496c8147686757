package gate_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/cost"
)

// listSites is a SiteFinder that names the same sites for every
// benchmark.
type listSites []cost.Site

func (l listSites) GrownSites(scenario, store, unit string, n int) ([]cost.Site, error) {
	return l[:min(n, len(l))], nil
}

// AddSites attaches the finder's sites to each allocation regression,
// leaving out sites whose growth is under 2% of the regression.
func TestAddSitesThroughTheVerdict(t *testing.T) {
	v := evaluate(t, "base.txt", "alloc1.txt", gate.DefaultPolicy())
	v.AddSites(listSites{{Function: "main.g", Base: 0, Head: 1}, {Function: "main.h", Base: 5, Head: 5.01}}, 3)
	f := find(t, v, "rotate-10-of-100", "allocs/op")
	if len(f.Sites) != 1 || f.Sites[0].Function != "main.g" || f.Sites[0].Growth() != 1 {
		t.Errorf("sites %+v, want main.g +1 per op alone", f.Sites)
	}
}

// A site that is a store line renders with its file:line, and its
// library callees on indented lines below it, in every format.
func TestStoreLineSitesRender(t *testing.T) {
	v := evaluate(t, "base.txt", "alloc1.txt", gate.DefaultPolicy())
	v.AddSites(listSites{{
		Function: "stores/optimized.(*Store).Update", File: "/src/stores/optimized/update.go", Line: 47, Base: 0, Head: 1,
		Callees: []cost.Site{{Function: "fmt.Sprintf", Base: 0, Head: 1}},
	}}, 3)
	var text, md, js bytes.Buffer
	if err := writeText(v, &text); err != nil {
		t.Fatal(err)
	}
	if err := writeMarkdown(v, &md); err != nil {
		t.Fatal(err)
	}
	if err := writeJSON(v, &js); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text.String(), "\n")
	at := -1
	for i, l := range lines {
		if strings.HasSuffix(l, " stores/optimized.(*Store).Update (update.go:47)") && strings.Contains(l, "+1") {
			at = i
		}
	}
	if at < 0 || at+1 == len(lines) || !strings.HasSuffix(lines[at+1], "  ↳ fmt.Sprintf") || !strings.Contains(lines[at+1], "+1") {
		t.Errorf("text: no Update (update.go:47) line with fmt.Sprintf indented below it:\n%s", text.String())
	}
	if !strings.Contains(md.String(), "| +1 | 0 | 1 | stores/optimized.(\\*Store).Update (update.go:47) |\n| +1 | 0 | 1 |   ↳ fmt.Sprintf |") {
		t.Errorf("markdown: no Update row with fmt.Sprintf below it:\n%s", md.String())
	}
	var out struct {
		Findings []struct {
			Sites []struct {
				Function string
				File     string
				Line     int64
				Callees  []struct{ Function string }
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range out.Findings {
		for _, s := range f.Sites {
			found = found || (s.Line == 47 && s.File == "/src/stores/optimized/update.go" && len(s.Callees) == 1 && s.Callees[0].Function == "fmt.Sprintf")
		}
	}
	if !found {
		t.Errorf("JSON: no site with line 47 and the fmt.Sprintf callee:\n%s", js.String())
	}
}

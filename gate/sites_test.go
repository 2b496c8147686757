package gate_test

import (
	"testing"

	"github.com/certbench/certbench/gate"
)

// listSites is a SiteFinder that names the same sites for every
// benchmark.
type listSites []gate.Site

func (l listSites) GrownSites(scenario, store, unit string, n int) ([]gate.Site, error) {
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

package conformance

import (
	"strings"
	"testing"
)

// The fuzz bodies against the test stores: seeds pass on a correct store.
func FuzzUpdateDiffStore(f *testing.F) { FuzzUpdate(f, diffFactory(bugNone)) }
func FuzzMatchDiffStore(f *testing.F)  { FuzzMatch(f, diffFactory(bugNone)) }

// TestFuzzMatchFindsBugs shows FuzzMatch's check finding a bug from one
// input and reporting it shrunk, as the differential pass does.
func TestFuzzMatchFindsBugs(t *testing.T) {
	for _, tc := range []struct {
		bug       diffBug
		spec, sni string
	}{
		{bugWildcardWins, "a.t,x.y\n;*.t,b.c", "A.t"},
		{bugLastOnTie, "CN.t;a.t\nb.t,a.t", "a.t"},
		{bugNoV6Compression, ";ip:2001:db8::1,c.d", "2001:DB8:0::1"},
	} {
		d, err := matchDivergence(diffFactory(tc.bug), tc.spec, tc.sni)
		if err != nil || d == nil {
			t.Fatalf("bug %d, %q %q: divergence %v, error %v", tc.bug, tc.spec, tc.sni, d, err)
		}
		if n := countCerts(&d.Case); !d.Shrunk || n > 3 {
			t.Errorf("bug %d: not shrunk (%d certificates):\n%s", tc.bug, n, d.Report())
		}
		if !strings.Contains(d.Report(), "conformance.CheckCase(t, newStore, conformance.Case{") {
			t.Errorf("bug %d: the report has no Go test:\n%s", tc.bug, d.Report())
		}
		if ok, err := matchDivergence(diffFactory(bugNone), tc.spec, tc.sni); ok != nil || err != nil {
			t.Errorf("a correct store diverges on %q %q: %v, %v", tc.spec, tc.sni, ok, err)
		}
	}
}

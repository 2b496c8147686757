package cost

import (
	"strings"
	"testing"
)

// TestHeadlineSaysWhyMemStatsDiffer: where MemStats counts more objects
// than the profile, the headline says why; where they agree, nothing.
func TestHeadlineSaysWhyMemStatsDiffer(t *testing.T) {
	const why = "tiny allocation"
	s := &Summary{Info: Info{Ops: 10, MemBytes: 414000, MemObjects: 5618},
		Totals: []Sum{{SampleType: AllocObjects, Value: 541.8}, {SampleType: AllocSpace, Value: 41400}}}
	if h := s.headline(); !strings.Contains(h, "541.8 objects/op (MemStats: 40.4 KiB, 561.8 objects") || !strings.Contains(h, why) {
		t.Errorf("objects differ, headline %q does not say why", h)
	}
	s.Totals[0].Value = 561.8
	if h := s.headline(); strings.Contains(h, why) {
		t.Errorf("objects agree, headline %q explains a difference", h)
	}
}

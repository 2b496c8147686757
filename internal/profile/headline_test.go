package profile

import (
	"strings"
	"testing"
)

// TestHeadlineSaysWhyMemStatsDiffer: where MemStats counts more objects
// than the profile, the headline says why; where they agree, nothing.
func TestHeadlineSaysWhyMemStatsDiffer(t *testing.T) {
	const why = "tiny allocation"
	s := &Summary{Info: Info{Ops: 10, MemBytes: 414000, MemObjects: 5618}, AllocBytes: 41400, AllocObjects: 541.8}
	if h := s.headline(); !strings.Contains(h, "541.8 objects/op (MemStats: 40.4 KiB, 561.8 objects") || !strings.Contains(h, why) {
		t.Errorf("objects differ, headline %q does not say why", h)
	}
	s.AllocObjects = 561.8
	if h := s.headline(); strings.Contains(h, why) {
		t.Errorf("objects agree, headline %q explains a difference", h)
	}
}

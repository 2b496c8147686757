package bench

import (
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/cost"
)

// The harness is this package, whatever its import path.
func TestHarnessPackage(t *testing.T) {
	if !cost.IsHarness(funcName(Apply)) || !cost.IsHarness(captureName) || cost.IsHarness(strings.Replace(captureName, ".captureHeap", "_test.bloat", 1)) {
		t.Errorf("the harness is not %s", captureName)
	}
}

package certstore_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsNothingOfTheModule fails when the contract depends on any
// other package of certbench, directly or not: a store imports certstore
// and must not pull in the harness (the runner, the simulated CPU).
func TestImportsNothingOfTheModule(t *testing.T) {
	const module = "github.com/certbench/certbench"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, path := range strings.Fields(string(out)) {
		if path != module+"/certstore" && (path == module || strings.HasPrefix(path, module+"/")) {
			t.Errorf("certstore depends on %s", path)
		}
	}
}

package peercheck

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// fakeConformance is a certbench stand-in for the conformance runs: the
// first run (both stores) has the head break Stable and Varies, which the
// base keeps; in later runs (the base alone) the base breaks Varies in
// its second run only.
const fakeConformance = `#!/bin/sh
n=$(cat "$0.n" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$0.n"
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out=$a; prev=$a; done
case $n in
1) echo '{"stores":["b","h"],"rules":[
  {"rule":"Stable","results":{"b":{"result":"pass"},"h":{"result":"FAIL","output":["broken"]}}},
  {"rule":"Varies","results":{"b":{"result":"pass"},"h":{"result":"FAIL","output":["broken"]}}},
  {"rule":"Kept","results":{"b":{"result":"pass"},"h":{"result":"pass"}}}]}' > "$out"; exit 1 ;;
2) v=pass ;;
3) v=FAIL ;;
*) v=pass ;;
esac
echo '{"stores":["b"],"rules":[
  {"rule":"Stable","results":{"b":{"result":"pass"}}},
  {"rule":"Varies","results":{"b":{"result":"'$v'"}}},
  {"rule":"Kept","results":{"b":{"result":"pass"}}}]}' > "$out"
[ $v = FAIL ] && exit 1
exit 0
`

// TestConformanceConfirmsTheBase checks that a rule the head breaks is
// counted against it only if the base keeps it in every confirmation run.
func TestConformanceConfirmsTheBase(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "certbench")
	if err := os.WriteFile(bin, []byte(fakeConformance), 0o755); err != nil {
		t.Fatal(err)
	}
	p := &peer{bin: bin, out: dir}
	c, err := p.conformance(context.Background(), "b", "h", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c.Regressed, []string{"Stable"}) || !slices.Equal(c.BaseVaries, []string{"Varies"}) {
		t.Errorf("regressed %v, base varies %v; want [Stable], [Varies]", c.Regressed, c.BaseVaries)
	}
	if c.BaseRuns != 1+baseConfirmations {
		t.Errorf("base runs %d, want %d", c.BaseRuns, 1+baseConfirmations)
	}
	if _, ok := c.Messages["Varies"]; ok || len(c.Messages["Stable"]) == 0 {
		t.Errorf("messages %v: want Stable's only", c.Messages)
	}
	if !slices.Equal(c.HeadFails, []string{"Stable", "Varies"}) {
		t.Errorf("head fails %v", c.HeadFails)
	}
}

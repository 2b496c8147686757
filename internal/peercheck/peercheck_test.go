package peercheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/internal/golden"
	"github.com/certbench/certbench/internal/peerbuild"
)

// roundFiles writes n round files as one certbench run per round writes
// them (both stores, base first in odd rounds), with the allocations per
// op of each store.
func roundFiles(t *testing.T, dir string, n int, allocs map[string]float64) []string {
	t.Helper()
	var files []string
	for r := 1; r <= n; r++ {
		stores := []string{"traefik@base", "traefik@head"}
		if r%2 == 0 {
			stores[0], stores[1] = stores[1], stores[0]
		}
		var b strings.Builder
		fmt.Fprintf(&b, "goos: linux\ngoarch: amd64\nround: %d\n", r)
		for _, st := range stores {
			fmt.Fprintf(&b, "BenchmarkChurn/scenario=lookup-1000/store=%s-2 20000 %d ns/op %g allocs/op\n", st, 400000+r*1000, allocs[st])
		}
		b.WriteString("Unit allocs/op assume=exact\n")
		f := filepath.Join(dir, fmt.Sprintf("round.%d.txt", r))
		if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

func TestSplitSides(t *testing.T) {
	dir := t.TempDir()
	files := roundFiles(t, dir, 2, map[string]float64{"traefik@base": 1989, "traefik@head": 748})
	base, head := filepath.Join(dir, "base.txt"), filepath.Join(dir, "head.txt")
	if err := splitSides(files, map[string]string{"traefik@base": base, "traefik@head": head}, "traefik"); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{base: "1989 allocs/op", head: "748 allocs/op"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if strings.Count(s, "BenchmarkChurn/scenario=lookup-1000/store=traefik-2 ") != 2 || strings.Count(s, want) != 2 {
			t.Errorf("%s: want 2 samples of store=traefik with %s:\n%s", path, want, s)
		}
		if !strings.Contains(s, "round: 1\n") || !strings.Contains(s, "round: 2\n") || !strings.Contains(s, "Unit allocs/op assume=exact") {
			t.Errorf("%s: rounds or unit line missing:\n%s", path, s)
		}
		if strings.Contains(s, "@") {
			t.Errorf("%s: a side's store name is left:\n%s", path, s)
		}
	}
}

func TestRenameStore(t *testing.T) {
	for _, c := range [][3]string{
		{"Churn/scenario=x/store=traefik@base-2", "traefik@base", "Churn/scenario=x/store=traefik-2"},
		{"Churn/scenario=x/store=traefik@base/n=1", "traefik@base", "Churn/scenario=x/store=traefik/n=1"},
		{"Churn/scenario=x/store=traefik@basex-2", "traefik@base", "Churn/scenario=x/store=traefik@basex-2"},
	} {
		if got := string(renameStore([]byte(c[0]), c[1], "traefik")); got != c[2] {
			t.Errorf("renameStore(%q) = %q, want %q", c[0], got, c[2])
		}
	}
}

// TestComment renders a report whose gate saw lookup-1000 allocations
// fall from 1,989 to 748 per op, whose behaviour diff found a change and
// whose conformance shows a rule newly broken.
func TestComment(t *testing.T) {
	dir := t.TempDir()
	files := roundFiles(t, dir, 4, map[string]float64{"traefik@base": 1989, "traefik@head": 748})
	base, head := filepath.Join(dir, "base.txt"), filepath.Join(dir, "head.txt")
	if err := splitSides(files, map[string]string{"traefik@base": base, "traefik@head": head}, "traefik"); err != nil {
		t.Fatal(err)
	}
	policy, err := gate.ResolvePolicy(gate.PolicyFlags{NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	v, err := gateFiles(base, head, policy)
	if err != nil {
		t.Fatal(err)
	}
	v.Base, v.Head = "base.txt", "head.txt"
	rep := &Report{
		Kind: peerbuild.Kinds[0], Base: "traefik@base", Head: "traefik@head",
		Labels: [2]string{"main@1111111", "HEAD@2222222"},
		Conformance: &Conformance{Rules: 106, HeadFails: []string{"Lookup/ChainAndKey", "Lookup/FirstInConfigExact", "Reject/NoNames"},
			Regressed: []string{"Lookup/FirstInConfigExact"}, BaseVaries: []string{"Lookup/ChainAndKey"}, BaseRuns: 4,
			Messages: map[string][]string{"Lookup/FirstInConfigExact": {`lookup.go:30: Store.Certificate("default", "dup.example.org"): got dup2; want dup1`}}},
		Diff: &Diff{Differs: true, Output: "**Behaviour `traefik@base` -> `traefik@head`**: 1 change(s) (12 iterations, 4000 lookups, seed 0x5eedce27).\n\n" +
			"| # | change | what | seen |\n|--:|---|---|--:|\n" +
			"| 1 | tie-break: varies between runs -&gt; fixed | Store.Certificate(\"default\", \"a.a\") on the generation of configuration 0 of 1: traefik@base served certificate 1 or certificate 0 (varies over 32 runs), traefik@head serves certificate 0 | 16 |\n"},
		Gate:    v,
		Skipped: map[string]string{"gobench": "no benchmarks at both base and head in ./pkg/tls/..."},
		Count:   4, Elapsed: 95 * time.Second,
		Phases: []Phase{{"build", 40 * time.Second}, {"conformance", 10 * time.Second}, {"behaviour diff", 20 * time.Second}, {"scenarios", 25 * time.Second}},
	}
	if rep.Passed() {
		t.Error("Passed() with a behaviour change and a rule newly broken")
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{Marker + "\n### ❌", "lookup-1000/traefik allocs/op 1,989 → 748 (-62.4%)", "#### Behaviour changes", "traefik@base served certificate 1 or certificate 0", "(build 40s, conformance 10s, behaviour diff 20s, scenarios 25s)",
		"which the base keeps (in 4 runs)", "broke in one of 3 more (its answers vary between runs), not counted against the head: `Lookup/ChainAndKey`"} {
		if !strings.Contains(out, want) {
			t.Errorf("comment lacks %q", want)
		}
	}
	if i, j := strings.Index(out, "#### Behaviour changes"), strings.Index(out, "#### Costs"); i < 0 || j < i {
		t.Error("behaviour changes do not come before costs")
	}
	golden.Check(t, "testdata/comment.md", b.Bytes())
}

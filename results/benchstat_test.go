package results_test

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
)

// ciArtifact writes one side of scripts/certbench-ci.sh's output, as the
// script makes it: per round, one `certbench run --round N` file per
// scenario (each with its own scenario-hash line and the side's build),
// merged into one file by the real writer.
func ciArtifact(t *testing.T, dir, side, revision string, rounds int, scenarios, stores []string, scale float64) string {
	t.Helper()
	var paths []string
	for round := 1; round <= rounds; round++ {
		for i, sc := range scenarios {
			var buf bytes.Buffer
			w := results.NewWriter(&buf, results.VersionKey, revision[:12], results.RevisionKey, revision,
				results.RoundKey, fmt.Sprint(round), results.ScenarioHashKey(sc), fmt.Sprintf("%012x", 0x5d0c1e2f3a4b+i))
			for j, st := range stores {
				drift := 1 + 0.01*float64((round*7+j*3)%5)
				s := sample{scenario: sc, store: st, ops: 10, ns: scale * drift * float64(1000*(i+1)*(j+1)),
					bytes: 86332, allocs: 1184, retained: 51200, retainedPerCert: 512}
				if err := w.Write(s); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, writeFile(t, dir, fmt.Sprintf("%s-%d-%s.txt", side, round, sc), buf.String()))
		}
	}
	var merged bytes.Buffer
	if _, err := results.Merge(&merged, paths...); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, side+".txt", merged.String())
}

// TestBenchstatReadsCIArtifacts runs `go tool benchstat base.txt
// head.txt` on merged CI artifacts, base and head built from different
// revisions: one table per unit, one row per benchmark with every round's
// sample (benchstat used to print a table per sample, split by the round,
// scenario-hash and version lines).
func TestBenchstatReadsCIArtifacts(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to run benchstat:", err)
	}
	const rounds = 6
	dir := t.TempDir()
	scenarios, stores := []string{"rotate-10-of-100", "renew-1-of-1000"}, []string{"naive", "optimized"}
	base := ciArtifact(t, dir, "base", "1111111111111111111111111111111111111111", rounds, scenarios, stores, 1)
	head := ciArtifact(t, dir, "head", "2222222222222222222222222222222222222222", rounds, scenarios, stores, 1.2)

	cmd := exec.Command(goTool, "tool", "benchstat", base, head)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go tool benchstat: %v\n%s", err, stderr.String())
	}
	text := string(out)
	t.Logf("go tool benchstat base.txt head.txt:\n%s", text)

	// A table's header names the two files; one per unit.
	header := regexp.MustCompile(`(?m)^\s+│ ` + regexp.QuoteMeta(base))
	units := []string{"sec/op", "B/op", "allocs/op", "retained-B", "retained-B/cert", "goroutines"}
	if n := len(header.FindAllString(text, -1)); n != len(units) {
		t.Errorf("%d tables, want %d (one per unit)", n, len(units))
	}
	// Each benchmark once per table, with all rounds on both sides.
	for _, sc := range scenarios {
		for _, st := range stores {
			name := results.ChurnName(sc, st)
			row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `-\d+ .*$`)
			rows := row.FindAllString(text, -1)
			if len(rows) != len(units) {
				t.Errorf("%s: %d rows, want one per unit", name, len(rows))
			}
			for _, r := range rows {
				if !strings.Contains(r, fmt.Sprintf("n=%d", rounds)) {
					t.Errorf("row without n=%d: %s", rounds, r)
				}
			}
		}
	}
	for _, split := range []string{"round:", "scenario-hash", "certbench-revision", "certbench-version", "n=1)"} {
		if strings.Contains(text, split) {
			t.Errorf("benchstat output shows %q", split)
		}
	}
	// The sec/op slowdown of 20% is seen.
	if !strings.Contains(text, "+20.00%") {
		t.Errorf("no +20.00%% change in the sec/op table")
	}

	// certbench reads the pairing information back.
	rs, err := results.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rs.Series {
		if len(s.Rounds) != rounds || s.Rounds[rounds-1] != fmt.Sprint(rounds) {
			t.Errorf("%s: rounds %v", s.Name, s.Rounds)
		}
	}
	if len(rs.Series) != len(scenarios)*len(stores) || len(rs.Warnings) != 0 {
		t.Errorf("%d series, warnings %v", len(rs.Series), rs.Warnings)
	}
}

package ab

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
)

// fakeRounds is a certbench stand-in for list and run: store a, scenario
// s; the head (a name ending in "head") allocates 12 per op where the
// base allocates 10, and takes 30% longer, in every round.
const fakeRounds = `#!/bin/sh
[ "$1" = list ] && { echo '{"stores":[{"name":"a"}],"scenarios":[{"name":"s","default":true}]}'; exit 0; }
[ "$1" = profile ] && { echo "no profiles here" >&2; exit 1; }
out=""; round=""; prev=""
for a in "$@"; do
  case $prev in -o) out=$a ;; --round) round=$a ;; esac
  prev=$a
done
ns=$((5000 + 100 * round)); allocs=10
case $0 in *head) ns=$((ns * 13 / 10)); allocs=12 ;; esac
printf 'goos: linux\nround: %s\nBenchmarkChurn/scenario=s/store=a-2 100 %s ns/op %s allocs/op\n' "$round" "$ns" "$allocs" > "$out"
`

// TestRunCachedBase runs ab twice with one cache: the second run takes
// the base's binary and results from the cache, decides the same on the
// exact count, and claims no build, interleaving or pairing it did not do.
func TestRunCachedBase(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	repo, cache := t.TempDir(), t.TempDir()
	fake := filepath.Join(t.TempDir(), "fake")
	if err := os.WriteFile(fake, []byte(fakeRounds), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "base"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = repo
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	t.Chdir(repo)
	type outcome struct {
		log, summary, gate string
		allocs             gate.Status
	}
	run := func() outcome {
		var log bytes.Buffer
		rep, err := Run(context.Background(), RunOptions{Build: "cp " + fake + ` "$CERTBENCH_BIN"`, BaseRef: "main", Count: 6,
			Policy: gate.PolicyFlags{NoConfig: true}, Out: filepath.Join(repo, "out"), Cache: cache, Log: &log})
		if err != nil {
			t.Fatalf("Run: %v\n%s", err, log.String())
		}
		o := outcome{log: log.String(), summary: string(rep.Summary)}
		b, _ := os.ReadFile(filepath.Join(repo, "out", "gate.txt"))
		o.gate = string(b)
		for _, f := range rep.Wall.Verdict.Findings {
			if f.Unit == "allocs/op" {
				o.allocs = f.Status
			}
		}
		return o
	}
	first, second := run(), run()
	for _, want := range []string{"ab: building base", "6 interleaved rounds (ABBA)"} {
		if !strings.Contains(first.log, want) {
			t.Errorf("first run's log lacks %q:\n%s", want, first.log)
		}
	}
	if !strings.Contains(first.summary, "base and head in 6 interleaved rounds") || !strings.Contains(first.gate, "signed-rank") {
		t.Errorf("first run: want interleaved rounds in the summary and a paired test in the gate:\n%s\n%s", first.summary, first.gate)
	}
	if first.allocs != gate.Regressed || second.allocs != first.allocs {
		t.Errorf("allocs/op: %v then %v, want regressed both times", first.allocs, second.allocs)
	}
	for name, text := range map[string]string{"log": second.log, "summary": second.summary, "gate.txt": second.gate} {
		for _, claim := range []string{"building base", "ABBA", "interleaved rounds;", "signed-rank", "pairs="} {
			if strings.Contains(text, claim) {
				t.Errorf("second run's %s claims %q, but the base came from the cache:\n%s", name, claim, text)
			}
		}
	}
	for name, text := range map[string]string{"summary": second.summary, "gate.txt": second.gate} {
		if !strings.Contains(text, "base results from the cache") || !strings.Contains(text, "nothing is paired by round") {
			t.Errorf("second run's %s does not say the base came from the cache, unpaired:\n%s", name, text)
		}
	}
	if !strings.Contains(second.log, "binary from the cache") || !strings.Contains(second.log, "the head alone in 6 rounds") {
		t.Errorf("second run's log does not say what it took from the cache:\n%s", second.log)
	}
	if !strings.Contains(first.summary, "module at the repository's root") {
		t.Errorf("summary's footer does not name the module:\n%s", first.summary)
	}
	if want := "output in " + filepath.Join(repo, "out"); !strings.Contains(first.log, want) {
		t.Errorf("log does not say where the output goes (%q):\n%s", want, first.log)
	}
}

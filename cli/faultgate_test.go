package cli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// writeSide writes one result file per round, as scripts/certbench-ci.sh
// does, each with a sample of optimized and one of boom, or, in the
// rounds failed names, boom's failure instead (as certbench run records a
// store that panicked); then merges them with certbench merge into
// side.txt and returns its path.
func writeSide(t *testing.T, dir, side string, rounds int, failed map[int]bool) string {
	t.Helper()
	var files []string
	for i := 1; i <= rounds; i++ {
		var buf bytes.Buffer
		w := results.NewWriter(&buf, "round", fmt.Sprint(i))
		for _, store := range []string{"optimized", "boom"} {
			if store == "boom" && failed[i] {
				if err := w.WriteFailure("Churn/scenario=rotate-10-of-100/store=boom", "panic in Update (configuration 4 of 6)"); err != nil {
					t.Fatal(err)
				}
				continue
			}
			s := bench.Sample{Scenario: "rotate-10-of-100", Store: store, Ops: 6, NsPerOp: 300000 + float64(i%3)*1000,
				BytesPerOp: 1000, AllocsPerOp: 10, RetainedBytes: 5000, RetainedPerCert: 50}
			if err := w.Write(s); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("%s.%d.txt", side, i))
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	merged := filepath.Join(dir, side+".txt")
	if code, _, errOut := run(t, append([]string{"merge", "-o", merged}, files...)...); code != cli.ExitOK {
		t.Fatalf("merge %s: exit %d\n%s", side, code, errOut)
	}
	return merged
}

// A store recorded as failed (certbench run's "--- FAIL: Benchmark..."
// lines) survives merge, is ignored by a benchfmt reader (benchstat), and
// fails the gate when it failed at head and not at base, named in the
// summary; failed at base only, it is a warning. Its samples are not
// compared either way.
func TestGateStoreFailed(t *testing.T) {
	dir := t.TempDir()
	base := writeSide(t, dir, "base", 6, nil)
	head := writeSide(t, dir, "head", 6, map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true})
	data, err := os.ReadFile(head)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "--- FAIL: BenchmarkChurn/scenario=rotate-10-of-100/store=boom"); n != 6 {
		t.Errorf("merged head holds %d failures of boom, want 6:\n%s", n, data)
	}
	r := benchfmt.NewReader(bytes.NewReader(data), "head.txt")
	read := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		case *benchfmt.Result:
			read++
		}
	}
	if read != 6 {
		t.Errorf("benchfmt reads %d results of the merged head, want optimized's 6", read)
	}

	code, out, errOut := runGate(t, "--config=", base, head)
	if code != cli.ExitRegression {
		t.Fatalf("gate: exit %d, want %d\n%s%s", code, cli.ExitRegression, out, errOut)
	}
	want := "store boom in scenario rotate-10-of-100 failed at head, not at base: panic in Update (configuration 4 of 6); 6 failures"
	if !strings.Contains(out, "FAIL: "+want) {
		t.Errorf("the summary does not name the failed store (%q):\n%s", want, out)
	}
	if strings.Contains(out, "missing") {
		t.Errorf("the failed store is also reported missing:\n%s", out)
	}

	// compare warns, naming file and line.
	code, _, errOut = run(t, "compare", base, head)
	if code != cli.ExitOK || !strings.Contains(errOut, "certbench: warning: "+head+":") ||
		!strings.Contains(errOut, "store boom in scenario rotate-10-of-100 failed (panic in Update (configuration 4 of 6))") {
		t.Errorf("compare: exit %d, stderr:\n%s", code, errOut)
	}

	// Failed at base only: not a regression of the change.
	code, out, errOut = runGate(t, "--config=", head, base)
	if code != cli.ExitOK || !strings.Contains(out, "store boom in scenario rotate-10-of-100 failed at base, not at head") {
		t.Errorf("gate with the failure at base: exit %d, want %d with a warning\n%s%s", code, cli.ExitOK, out, errOut)
	}

	// A head whose only store failed at its first sample has no result
	// (only the failure, after the configuration lines).
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	if err := w.WriteFailure("Churn/scenario=rotate-10-of-100/store=boom", "Update (configuration 4 of 6) did not return within 10m0s"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	only := filepath.Join(dir, "only.txt")
	if err := os.WriteFile(only, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runGate(t, "--config=", base, only)
	if code != cli.ExitRegression || !strings.Contains(out, "FAIL: store boom in scenario rotate-10-of-100 failed at head, not at base: Update (configuration 4 of 6) did not return within 10m0s") ||
		!strings.Contains(out, "1 benchmark(s) of base missing in head: store optimized in scenario rotate-10-of-100") {
		t.Errorf("gate with no result at head: exit %d\n%s%s", code, out, errOut)
	}
}

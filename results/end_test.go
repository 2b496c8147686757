package results_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
)

// written returns a file of n samples written by a Writer, closed.
func written(t *testing.T, n int, kv ...string) string {
	t.Helper()
	var buf bytes.Buffer
	w := results.NewWriter(&buf, kv...)
	for i := range n {
		if err := w.Write(sample{scenario: "s", store: fmt.Sprint("store", i%2), ops: 10, ns: float64(100 + i), bytes: 10}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// endWarnings returns the warnings about closing lines of reading text.
func endWarnings(t *testing.T, text string) []error {
	t.Helper()
	rs, err := results.Read(strings.NewReader(text), "in.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []error
	for _, w := range rs.Warnings {
		var me *results.MissingEndWarning
		var ce *results.EndCountWarning
		if errors.As(w, &me) || errors.As(w, &ce) {
			out = append(out, w)
		}
	}
	return out
}

// TestClosingLine: a closed Writer ends its file with the closing line; a
// file cut at any line boundary after its first result reads with a
// warning that it looks truncated, the whole file without one.
func TestClosingLine(t *testing.T) {
	text := written(t, 4)
	if !strings.HasSuffix(text, "\n"+results.EndLine(4)) || strings.Count(text, results.CommentPrefix+results.EndKey) != 1 {
		t.Fatalf("no single closing line at the end:\n%s", text)
	}
	if w := endWarnings(t, text); len(w) != 0 {
		t.Errorf("complete file: warnings %v", w)
	}
	lines := strings.SplitAfter(text, "\n")
	first := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "Benchmark") && first < 0 {
			first = i
		}
	}
	for cut := first + 1; cut < len(lines)-1; cut++ {
		part := strings.Join(lines[:cut], "")
		w := endWarnings(t, part)
		var me *results.MissingEndWarning
		if len(w) != 1 || !errors.As(w[0], &me) || !strings.Contains(w[0].Error(), "in.txt: no closing \"# certbench-end\" line") ||
			!strings.Contains(w[0].Error(), "truncated") {
			t.Errorf("cut after line %d: warnings %v, want one about the missing closing line", cut, w)
		}
	}

	// Files that another writer wrote (go test -bench, certbench before
	// closing lines) need none.
	for _, old := range []string{
		"goos: linux\nBenchmarkX-2 10 5 ns/op\n",
		"certbench-version: v0.1.0\nBenchmarkChurn/scenario=a/store=b-2 10 5 ns/op\n",
	} {
		if w := endWarnings(t, old); len(w) != 0 {
			t.Errorf("%q: warnings %v", old, w)
		}
	}
}

// TestClosingLineCounts: a closing line counts the results since the last
// one, so concatenated complete files read clean, and a file that lost or
// gained results before its closing line does not.
func TestClosingLineCounts(t *testing.T) {
	a, b := written(t, 3), written(t, 2)
	if w := endWarnings(t, a+b); len(w) != 0 {
		t.Errorf("cat of two complete files: warnings %v", w)
	}
	if w := endWarnings(t, b+a[:strings.LastIndex(a, "# certbench-end")]); len(w) != 1 {
		t.Errorf("cat of a complete and a cut file: warnings %v, want one", w)
	}
	lines := strings.SplitAfter(a, "\n")
	var lost []string
	dropped := false
	for _, l := range lines {
		if strings.HasPrefix(l, "Benchmark") && !dropped {
			dropped = true
			continue
		}
		lost = append(lost, l)
	}
	w := endWarnings(t, strings.Join(lost, ""))
	var ce *results.EndCountWarning
	if len(w) != 1 || !errors.As(w[0], &ce) || ce.Results != 2 || !strings.Contains(w[0].Error(), `"3 results"`) {
		t.Errorf("a result lost: warnings %v, want one counting 2 of 3", w)
	}
}

// TestMergeKeepsOneClosingLine: merged files end with one closing line
// counting every result, whether the inputs had theirs or not.
func TestMergeKeepsOneClosingLine(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.txt", written(t, 3))
	b := writeFile(t, dir, "b.txt", "goos: linux\nBenchmarkChurn/scenario=s/store=x-2 10 5 ns/op\n")
	c := writeFile(t, dir, "c.txt", written(t, 2))
	var out bytes.Buffer
	if _, err := results.Merge(&out, a, b, c); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if strings.Count(text, "# certbench-end") != 1 || !strings.HasSuffix(text, results.EndLine(6)) {
		t.Errorf("merged file does not end with one closing line for 6 results:\n%s", text)
	}
	if w := endWarnings(t, text); len(w) != 0 {
		t.Errorf("merged file: warnings %v", w)
	}
	// Merging a file cut short leaves a whole file: the merge is what
	// closes it (the cut input's own warning is for its readers).
	cut := writeFile(t, dir, "cut.txt", strings.TrimSuffix(written(t, 2), results.EndLine(2)))
	out.Reset()
	if _, err := results.Merge(&out, cut); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), results.EndLine(2)) {
		t.Errorf("merged cut file:\n%s", out.String())
	}
}

// TestCommentLines: the keys that tell samples or builds apart are
// written as comment lines, read back as configuration (round as each
// sample's round); files with the older configuration lines read the
// same.
func TestCommentLines(t *testing.T) {
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	for round := 1; round <= 3; round++ {
		cfg := config("goos", "linux", results.VersionKey, "v0.2.0", results.RevisionKey, "abc123",
			results.RoundKey, fmt.Sprint(round), results.ScenarioHashKey("s"), "5d0c1e2f3a4b")
		for _, store := range []string{"a", "b"} {
			s := sample{scenario: "s", store: store, ops: 10, ns: float64(100 * round), bytes: 10}
			if err := w.WriteResult(s.Result(cfg, 2)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"\n# round: 2\n", "# certbench-version: v0.2.0\n", "# certbench-revision: abc123\n", "# scenario-hash.s: 5d0c1e2f3a4b\n", "goos: linux\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if strings.Count(text, "goos:") != 1 || strings.Count(text, "certbench-version") != 1 {
		t.Errorf("unchanged lines written again:\n%s", text)
	}
	old := strings.NewReplacer("# round:", "round:", "# certbench-version:", "certbench-version:",
		"# certbench-revision:", "certbench-revision:", "# scenario-hash.", "scenario-hash.").Replace(text)
	for name, in := range map[string]string{"new": text, "old": old} {
		rs, err := results.Read(strings.NewReader(in), name)
		if err != nil {
			t.Fatal(err)
		}
		if len(rs.Series) != 2 {
			t.Fatalf("%s: %d series, want one per store (rounds do not split them)", name, len(rs.Series))
		}
		for _, s := range rs.Series {
			if got := strings.Join(s.Rounds, ","); got != "1,2,3" || s.N != 3 {
				t.Errorf("%s: %s: rounds %s of %d samples, want 1,2,3", name, s.Name, got, s.N)
			}
			for k, v := range map[string]string{results.VersionKey: "v0.2.0", results.RevisionKey: "abc123",
				results.ScenarioHashKey("s"): "5d0c1e2f3a4b", "goos": "linux", results.RoundKey: ""} {
				if got := s.GetConfig(k); got != v {
					t.Errorf("%s: %s: %s %q, want %q", name, s.Name, k, got, v)
				}
			}
			if m := s.Metric("ns/op"); m == nil || len(m.Values) != 3 || math.Round(m.Values[2]*1e9) != 300 {
				t.Errorf("%s: %s: sec/op %v", name, s.Name, m)
			}
		}
	}
	// A comment line with another key is not configuration.
	rs, err := results.Read(strings.NewReader("# note: hello\n# round 3\nBenchmarkX 1 5 ns/op\n"), "c")
	if err != nil || rs.Series[0].GetConfig("note") != "" || rs.Series[0].Rounds != nil {
		t.Errorf("other comments: %v, %+v", err, rs.Series[0])
	}
}

// TestMergeConvertsRoundLines: merging files of a certbench that wrote
// rounds as configuration lines (a CI base binary built before comment
// lines) writes them as comment lines, each sample keeping its round.
func TestMergeConvertsRoundLines(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for round := 1; round <= 3; round++ {
		paths = append(paths, writeFile(t, dir, fmt.Sprintf("r%d.txt", round), fmt.Sprintf(
			"goos: linux\ncertbench-version: 0123abcd\nround: %d\nscenario-hash.s: 5d0c1e2f3a4b\n\nBenchmarkChurn/scenario=s/store=a-2 10 %d ns/op\nUnit B/op assume=exact\n", round, 100*round)))
	}
	var out bytes.Buffer
	if _, err := results.Merge(&out, paths...); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	if strings.Contains(text, "\nround:") || strings.Contains(text, "\ncertbench-version:") || strings.Count(text, "# round: ") != 3 {
		t.Errorf("merged:\n%s", text)
	}
	rs, err := results.Read(strings.NewReader(text), "merged")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Series) != 1 || strings.Join(rs.Series[0].Rounds, ",") != "1,2,3" || len(rs.Warnings) != 0 {
		t.Errorf("read back: %d series, rounds %v, warnings %v", len(rs.Series), rs.Series[0].Rounds, rs.Warnings)
	}
}

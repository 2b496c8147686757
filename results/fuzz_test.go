package results_test

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/certbench/certbench/results"
)

// FuzzRead reads arbitrary bytes as a result file: no panic, no hang, no
// non-finite value in what it accepts, series that hold together, and
// what it accepts written again by the Writer (as merge does) reads back
// with the same samples.
func FuzzRead(f *testing.F) {
	const line = "BenchmarkChurn/scenario=rotate-10-of-100/store=optimized \t10\t546296 ns/op\t86332 B/op\t1184 allocs/op\t0 goroutines\n"
	f.Add([]byte("goos: linux\n" + line + line))
	f.Add([]byte(line + "BenchmarkChurn/scenario=rotate-10-of-100/store=naive \t10\t546296 ns/op\t86332 B/op\t1184 al"))
	f.Add([]byte("BenchmarkLookup-2 \t1000\t12.5 ns/op\nBenchmarkLookup-2 \t1000\t13.5 ns/op\n"))
	f.Add([]byte("goos: linux\n# certbench-version: v1\n# round: 1\n" + line + "# round: 2\n# scenario-hash.x: ab\n" + line + "Unit B/op assume=exact\n# certbench-end: 2 results\n"))
	f.Add([]byte("round: 1\n" + line + "round: 2\n" + line + "round:\n" + line + "# certbench-end: 9 results\n"))
	f.Add([]byte("BenchmarkX 1 5 ns/op 6 ns/op 7 widgets\nBenchmarkX 1 8 widgets\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			t.Skip("input too large")
		}
		rs, err := results.Read(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return
		}
		counts := check(t, rs)

		var out bytes.Buffer
		w := results.NewWriter(&out)
		if _, err := w.Append(bytes.NewReader(data), "fuzz.txt"); err != nil {
			t.Fatalf("Read accepted what Append refuses: %v", err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := results.Read(bytes.NewReader(out.Bytes()), "written.txt")
		if err != nil {
			t.Fatalf("written again, it does not read: %v\n%s", err, out.Bytes())
		}
		if again.Samples() != rs.Samples() {
			t.Fatalf("written again: %d samples, read %d", again.Samples(), rs.Samples())
		}
		for unit, n := range check(t, again) {
			if counts[unit] != n {
				t.Fatalf("written again: %d values of %s, read %d", n, unit, counts[unit])
			}
		}
		for _, w := range again.Warnings {
			if _, ok := w.(*results.MissingEndWarning); ok {
				t.Fatalf("written again: %v", w)
			}
		}
	})
}

// check fails t if a series of rs does not hold together, and returns the
// number of values of each unit.
func check(t *testing.T, rs *results.Set) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, s := range rs.Series {
		if s.N < 1 || (s.Rounds != nil && len(s.Rounds) != s.N) {
			t.Fatalf("%s: %d samples, %d rounds", s.Name, s.N, len(s.Rounds))
		}
		for _, m := range s.Metrics {
			if len(m.Samples) != len(m.Values) || !slices.IsSorted(m.Values) {
				t.Fatalf("%s %s: %d values, %d sample indexes, sorted %v", s.Name, m.Unit, len(m.Values), len(m.Samples), slices.IsSorted(m.Values))
			}
			for i, v := range m.Values {
				if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
					t.Fatalf("Read accepted %s %v %s", s.Name, v, m.Unit)
				}
				if j := m.Sample(i); j < 0 || j >= s.N {
					t.Fatalf("%s %s: value %d of sample %d of %d", s.Name, m.Unit, i, j, s.N)
				}
			}
			counts[m.Unit] += len(m.Values)
		}
	}
	return counts
}

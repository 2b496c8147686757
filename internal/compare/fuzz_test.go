package compare_test

import (
	"bytes"
	"math"
	"testing"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/results"
)

// FuzzReadBuild reads arbitrary bytes as a result file and builds both
// kinds of comparison from what it accepts: no panic, no hang, and no
// non-finite value gets past Read into Build.
func FuzzReadBuild(f *testing.F) {
	const line = "BenchmarkChurn/scenario=rotate-10-of-100/store=optimized \t10\t546296 ns/op\t86332 B/op\t1184 allocs/op\t0 goroutines\n"
	f.Add([]byte("goos: linux\n" + line + line))
	f.Add([]byte(line + "BenchmarkChurn/scenario=rotate-10-of-100/store=naive \t10\t546296 ns/op\t86332 B/op\t1184 al"))
	f.Add([]byte("BenchmarkLookup-2 \t1000\t12.5 ns/op\nBenchmarkLookup-2 \t1000\t13.5 ns/op\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			t.Skip("input too large")
		}
		rs, err := results.Read(bytes.NewReader(data), "fuzz.txt")
		if err != nil {
			return
		}
		for _, s := range rs.Series {
			for _, m := range s.Metrics {
				for _, v := range m.Values {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("Read accepted %s %v %s: Build would see a non-finite value", s.Name, v, m.Unit)
					}
				}
			}
		}
		for _, opts := range []compare.Options{{}, compare.FileOptions()} {
			// An error (nothing in common, a bad projection) is fine;
			// a panic or a hang is not.
			_, _ = compare.Build(rs, opts)
		}
	})
}

package results_test

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
)

// scan feeds data to a FailureScanner in chunks of n bytes.
func scan(data []byte, n int) []results.Failure {
	var s results.FailureScanner
	for len(data) > 0 {
		k := min(n, len(data))
		s.Write(data[:k])
		data = data[k:]
	}
	s.Close()
	return s.Failures
}

func TestFailureScanner(t *testing.T) {
	var file bytes.Buffer
	file.WriteString("goos: linux\nBenchmarkChurn/scenario=a/store=x-2 10 100 ns/op\n")
	if err := results.WriteFailure(&file, "Churn/scenario=a/store=boom-2", "panic in Update\n(configuration 4 of 6)"); err != nil {
		t.Fatal(err)
	}
	// go test's own: a failed benchmark, its log lines indented.
	file.WriteString("--- FAIL: BenchmarkLookup/exact-2\r\n    lookup_test.go:12: no certificate\r\n    more\r\n")
	file.WriteString("--- FAIL: BenchmarkNoReason\nPASS\n")
	file.WriteString("    --- FAIL: BenchmarkNotAtLineStart\n")
	file.WriteString("--- FAIL: BenchmarkLast\n    cut") // no final newline
	want := []results.Failure{
		{Name: "Churn/scenario=a/store=boom-2", Reason: "panic in Update (configuration 4 of 6)", Line: 3},
		{Name: "Lookup/exact-2", Reason: "lookup_test.go:12: no certificate", Line: 5},
		{Name: "NoReason", Line: 8},
		{Name: "Last", Reason: "cut", Line: 11},
	}
	for _, n := range []int{1, 3, 7, 4096} {
		if got := scan(file.Bytes(), n); !reflect.DeepEqual(got, want) {
			t.Errorf("in chunks of %d:\n got %+v\nwant %+v", n, got, want)
		}
	}
	if f := want[0]; f.Value(results.ScenarioKey) != "a" || f.Value(results.StoreKey) != "boom" {
		t.Errorf("Value: scenario %q, store %q", f.Value(results.ScenarioKey), f.Value(results.StoreKey))
	}
}

// A line longer than the scanner keeps is not taken for a failure, and
// costs bounded memory.
func TestFailureScannerLongLine(t *testing.T) {
	long := results.FailPrefix + strings.Repeat("x", 1<<20) + "\n    reason\n--- FAIL: BenchmarkAfter\n"
	got := scan([]byte(long), 1000)
	if len(got) != 1 || got[0].Name != "After" || got[0].Line != 3 {
		t.Errorf("got %+v, want only BenchmarkAfter at line 3", got)
	}
}

// FuzzFailureScanner: the failures found do not depend on how the input
// is split into writes.
func FuzzFailureScanner(f *testing.F) {
	f.Add([]byte("--- FAIL: BenchmarkA-2\n    panic in Update\nBenchmarkB 1 2 ns/op\n"), 3)
	f.Add([]byte("--- FAIL: BenchmarkA\r\n\r\n--- FAIL: BenchmarkB x\n\tr"), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if n < 1 {
			n = 1
		}
		whole := scan(data, len(data)+1)
		if got := scan(data, n); !reflect.DeepEqual(got, whole) {
			t.Errorf("chunks of %d: %+v, whole: %+v", n, got, whole)
		}
	})
}

func ExampleWriteFailure() {
	results.WriteFailure(os.Stdout, results.ChurnName("rotate-10-of-100", "mystore")+"-2", "panic in Update (configuration 4 of 6)")
	var s results.FailureScanner
	results.WriteFailure(&s, "Churn/scenario=rotate-10-of-100/store=mystore-2", "panic in Update (configuration 4 of 6)")
	s.Close()
	f := s.Failures[0]
	fmt.Printf("store %s failed at line %d: %s\n", f.Value(results.StoreKey), f.Line, f.Reason)
	// Output:
	// --- FAIL: BenchmarkChurn/scenario=rotate-10-of-100/store=mystore-2
	//     panic in Update (configuration 4 of 6)
	// store mystore failed at line 1: panic in Update (configuration 4 of 6)
}

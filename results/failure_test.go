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

// failures reads data as a result file and returns its failures.
func failures(t *testing.T, data []byte) []results.Failure {
	t.Helper()
	set, err := results.Read(bytes.NewReader(data), "f.txt")
	if err != nil {
		t.Fatal(err)
	}
	for i := range set.Failures {
		set.Failures[i].File = ""
	}
	return set.Failures
}

func TestFailures(t *testing.T) {
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
	if got := failures(t, file.Bytes()); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if f := want[0]; f.Value(results.ScenarioKey) != "a" || f.Value(results.StoreKey) != "boom" {
		t.Errorf("Value: scenario %q, store %q", f.Value(results.ScenarioKey), f.Value(results.StoreKey))
	}
}

// A FAIL line longer than a failure's is not taken for one.
func TestFailuresLongLine(t *testing.T) {
	long := results.FailPrefix + strings.Repeat("x", 8<<10) + "\n    reason\n--- FAIL: BenchmarkAfter\n"
	got := failures(t, []byte(long))
	if len(got) != 1 || got[0].Name != "After" || got[0].Line != 3 {
		t.Errorf("got %+v, want only BenchmarkAfter at line 3", got)
	}
}

// FuzzFailures: Read finds the failures a reading of the whole file line
// by line finds.
func FuzzFailures(f *testing.F) {
	f.Add([]byte("--- FAIL: BenchmarkA-2\n    panic in Update\nBenchmarkB 1 2 ns/op\n"))
	f.Add([]byte("--- FAIL: BenchmarkA\r\n\r\n--- FAIL: BenchmarkB x\n\tr"))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := results.Read(bytes.NewReader(data), "f.txt")
		if err != nil || len(data) > 32<<10 {
			return
		}
		var want []results.Failure
		reason := false
		for i, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			switch {
			case reason && line != "" && (line[0] == ' ' || line[0] == '\t'):
				want[len(want)-1].Reason = strings.TrimSpace(line)
				reason = false
			case strings.HasPrefix(line, results.FailPrefix) && len(line) <= 4096:
				name, _, _ := strings.Cut(line[len(results.FailPrefix):], " ")
				want = append(want, results.Failure{Name: name, Line: i + 1, File: "f.txt"})
				reason = true
			default:
				reason = false
			}
		}
		if !reflect.DeepEqual(set.Failures, want) && (len(set.Failures) > 0 || len(want) > 0) {
			t.Errorf("Read: %+v, line by line: %+v", set.Failures, want)
		}
	})
}

func ExampleWriteFailure() {
	results.WriteFailure(os.Stdout, results.ChurnName("rotate-10-of-100", "mystore")+"-2", "panic in Update (configuration 4 of 6)")
	var b bytes.Buffer
	results.WriteFailure(&b, "Churn/scenario=rotate-10-of-100/store=mystore-2", "panic in Update (configuration 4 of 6)")
	set, _ := results.Read(&b, "failures.txt")
	f := set.Failures[0]
	fmt.Printf("store %s failed at line %d: %s\n", f.Value(results.StoreKey), f.Line, f.Reason)
	// Output:
	// --- FAIL: BenchmarkChurn/scenario=rotate-10-of-100/store=mystore-2
	//     panic in Update (configuration 4 of 6)
	// store mystore failed at line 1: panic in Update (configuration 4 of 6)
}

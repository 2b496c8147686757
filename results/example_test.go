package results_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// Write two rounds of one benchmark, then close the file.
func ExampleWriter() {
	w := results.NewWriter(os.Stdout)
	for round, ns := range []float64{1250000, 1190000} {
		res := &benchfmt.Result{
			Config: []benchfmt.Config{
				{Key: "goos", Value: []byte("linux"), File: true},
				{Key: results.RoundKey, Value: []byte(fmt.Sprint(round + 1)), File: true},
			},
			Name:  benchfmt.Name(results.ChurnName("rotate-10-of-100", "optimized")),
			Iters: 10,
			Values: []benchfmt.Value{
				{Value: ns, Unit: results.UnitNsPerOp},
				{Value: 1184, Unit: results.UnitAllocs},
			},
		}
		if err := w.WriteResult(res); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// goos: linux
	// # round: 1
	//
	// BenchmarkChurn/scenario=rotate-10-of-100/store=optimized 10 1250000 ns/op 1184 allocs/op
	//
	// # round: 2
	//
	// BenchmarkChurn/scenario=rotate-10-of-100/store=optimized 10 1190000 ns/op 1184 allocs/op
	// Unit allocs/op assume=exact
	// # certbench-end: 2 results
}

// Read a file: one series per benchmark and configuration, its values
// sorted, each with its sample and that sample's round.
func ExampleRead() {
	const file = `goos: linux
# round: 1
BenchmarkChurn/scenario=a/store=naive-2 10 1250000 ns/op
# round: 2
BenchmarkChurn/scenario=a/store=naive-2 10 1190000 ns/op
# certbench-end: 2 results
`
	set, err := results.Read(strings.NewReader(file), "r.txt")
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range set.Series {
		m := s.Metric(results.UnitSec)
		for i, v := range m.Values {
			fmt.Printf("%s goos=%s round %s: %s\n", s.Name, s.GetConfig("goos"), s.Round(m.Sample(i)), results.Format(v, m.Unit))
		}
	}
	// Output:
	// Churn/scenario=a/store=naive-2 goos=linux round 2: 1.19 ms
	// Churn/scenario=a/store=naive-2 goos=linux round 1: 1.25 ms
}

// A file certbench wrote that lost its end (the run was killed, or the
// file was cut at a line boundary) still reads, with a warning naming the
// file; a plain go test -bench file, which has no closing line, reads
// without one.
func ExampleRead_truncated() {
	const cut = `# certbench-version: v0.1.0
BenchmarkChurn/scenario=a/store=naive-2 10 1250000 ns/op
`
	set, err := results.Read(strings.NewReader(cut), "cut.txt")
	if err != nil {
		log.Fatal(err)
	}
	for _, w := range set.Warnings {
		var missing *results.MissingEndWarning
		if errors.As(w, &missing) {
			fmt.Printf("%s: %d result, no closing line\n", missing.File, missing.Results)
		}
	}
	plain, err := results.Read(strings.NewReader("BenchmarkX-2 10 100 ns/op\n"), "plain.txt")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("plain go test file:", len(plain.Warnings), "warnings")
	// Output:
	// cut.txt: 1 result, no closing line
	// plain go test file: 0 warnings
}

// A bad value is an error naming the file and line.
func ExampleRead_error() {
	_, err := results.Read(strings.NewReader("BenchmarkX-2 10 NaN ns/op\n"), "bad.txt")
	fmt.Println(err != nil)
	fmt.Println(strings.HasPrefix(err.Error(), "bad.txt:1:"))
	// Output:
	// true
	// true
}

// Format scales each value on its own: a table cell keeps three
// significant digits of a time or size, four of a count, however far
// apart the values of its row are.
func ExampleFormat() {
	for _, c := range []struct {
		v    float64
		unit string
	}{
		{49243500, results.UnitNsPerOp},
		{197, results.UnitNsPerOp},
		{15851934, results.UnitBytes},
		{0, results.UnitBytes},
		{748.5, results.UnitAllocs},
		{149597.4, results.UnitAllocs},
	} {
		fmt.Printf("%s %s\n", results.Format(c.v, c.unit), c.unit)
	}
	// Output:
	// 49.2 ms ns/op
	// 197 ns ns/op
	// 15.1 MiB B/op
	// 0 B B/op
	// 748.5 allocs/op
	// 149.6k allocs/op
}

// Join two rounds, each a file with its own closing line and unit
// metadata, into one: the unit line is decided from both rounds'
// samples, and one closing line counts them all.
func ExampleWriter_Append() {
	round1 := `# round: 1
BenchmarkChurn/scenario=a/store=naive-2 10 1250000 ns/op 1184 allocs/op
Unit allocs/op assume=exact
# certbench-end: 1 results
`
	round2 := `# round: 2
BenchmarkChurn/scenario=a/store=naive-2 10 1190000 ns/op 1184 allocs/op
Unit allocs/op assume=exact
# certbench-end: 1 results
`
	w := results.NewWriter(os.Stdout)
	for i, f := range []string{round1, round2} {
		if _, err := w.Append(strings.NewReader(f), fmt.Sprintf("round%d.txt", i+1)); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// # round: 1
	//
	// BenchmarkChurn/scenario=a/store=naive-2 10 1250000 ns/op 1184 allocs/op
	//
	// # round: 2
	//
	// BenchmarkChurn/scenario=a/store=naive-2 10 1190000 ns/op 1184 allocs/op
	// Unit allocs/op assume=exact
	// # certbench-end: 2 results
}

// FormatPair keeps a base and a head that differ from reading alike.
func ExampleFormatPair() {
	base, head := results.FormatPair(1328.65, 1329.05, results.UnitAllocs)
	fmt.Println(base, "->", head)
	// Output: 1,328.7 -> 1,329
}

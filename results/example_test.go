package results_test

import (
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

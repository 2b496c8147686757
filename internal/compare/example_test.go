package compare_test

import (
	"log"
	"os"

	"github.com/certbench/certbench/internal/compare"
	"github.com/certbench/certbench/internal/table"
	"github.com/certbench/certbench/results"
)

// Compare the stores of one run on time per operation.
func Example() {
	set, err := results.Load("testdata/stores.txt")
	if err != nil {
		log.Fatal(err)
	}
	report, err := compare.Build(set, compare.Options{Filter: ".unit:sec/op"})
	if err != nil {
		log.Fatal(err)
	}
	if err := table.WriteText(os.Stdout, report.Page()); err != nil {
		log.Fatal(err)
	}
	// Output:
	// goos: linux
	// goarch: amd64
	// cpu: Intel(R) Xeon(R) CPU @ 2.20GHz
	// go: go1.26.0
	// certbench-version: v0.1.0
	// gomaxprocs: 2
	//
	// sec/op
	//                   │    naive     │              optimized              │
	// scenario          │    sec/op    │    sec/op     vs base               │
	// rotate-10-of-100     190 ms ± 2%   12.5 ms ± 4%  -93.42% (p=0.002 n=6)
	// rotate-50-of-1000     2.1 s ± 3%   60.8 ms ± 5%  -97.10% (p=0.002 n=6)
	// lookup-1000         3.41 ms ± 2%   3.29 ms ± 3%   -3.61% (p=0.004 n=6)
	// geomean              111 ms        13.6 ms       -87.75%
	// note: cells: median ± 95% confidence interval (exact units: the value); changes vs naive: shown if significant (Mann-Whitney U test, p < 0.05; exact units: any difference), ~ otherwise
	// note: each change is tested on its own (no correction for multiple comparisons, as benchstat); certbench gate applies Holm's correction per metric, so it can call unchanged a change shown here
}

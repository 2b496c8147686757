package compare_test

import (
	"log"
	"os"

	"github.com/certbench/certbench/internal/compare"
)

// Compare the stores of one run on time per operation.
func Example() {
	results, err := compare.Load("testdata/stores.txt")
	if err != nil {
		log.Fatal(err)
	}
	report, err := compare.Build(results, compare.Options{Filter: ".unit:sec/op"})
	if err != nil {
		log.Fatal(err)
	}
	if err := report.WriteText(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// goos: linux
	// goarch: amd64
	// cpu: Intel(R) Xeon(R) CPU @ 2.20GHz
	// go: go1.26.0
	// certbench-version: v0.1.0
	// gomaxprocs: 2
	//                   │     naive     │             optimized              │
	//                   │    sec/op     │   sec/op     vs base               │
	// rotate-10-of-100     189.52m ± 2%   12.47m ± 4%  -93.42% (p=0.002 n=6)
	// rotate-50-of-1000   2096.36m ± 3%   60.75m ± 5%  -97.10% (p=0.002 n=6)
	// lookup-1000           3.409m ± 2%   3.286m ± 3%   -3.61% (p=0.004 n=6)
	// geomean               110.6m        13.55m       -87.75%
	// note: each change is tested on its own (no correction for multiple comparisons, as benchstat); certbench gate applies Holm's correction per metric, so it can call unchanged a change shown here
}

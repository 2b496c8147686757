package scenarios_test

import (
	"fmt"

	"github.com/certbench/certbench/scenarios"
)

// A scenario becomes a workload: every configuration it applies, built
// before anything is timed.
func ExampleScenario_Build() {
	sc, err := scenarios.ByName("rotate-10-of-100")
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := sc[0].Build(3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(w.Configs), "configurations of", len(w.Configs[1].Certificates), "certificates")
	// Output: 4 configurations of 10 certificates
}

package certgen_test

import (
	"fmt"

	"github.com/certbench/certbench/certgen"
)

// Pools are deterministic: the same spec gives the same certificates on any
// machine, so base and head runs measure identical inputs.
func ExampleNewPool() {
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 1, Count: 5, MaxSANs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range pool.Certs {
		fmt.Println(f.Index, f.Names)
	}
	// Output:
	// 0 [svc-000000.example.test alt1.svc-000000.example.test]
	// 1 [svc-000001.example.test alt1.svc-000001.example.test]
	// 2 [svc-000002.example.test alt1.svc-000002.example.test]
	// 3 [svc-000003.example.test]
	// 4 [svc-000004.example.test alt1.svc-000004.example.test *.wild-000004.example.test]
}

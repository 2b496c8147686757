package rendezvous_test

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/certbench/certbench/internal/rendezvous"
)

// Two parties (here goroutines; in certbench, a base and a head process)
// start each measurement together.
func Example() {
	dir, err := os.MkdirTemp("", "rendezvous")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	var wg sync.WaitGroup
	for _, side := range []string{"base", "head"} {
		d, err := rendezvous.Open(dir, 2, 0)
		if err != nil {
			fmt.Println(err)
			return
		}
		wg.Go(func() {
			for sample := 1; sample <= 3; sample++ {
				if err := d.Wait(context.Background(), fmt.Sprintf("rotate-10-of-100/%d", sample)); err != nil {
					fmt.Println(side, err)
					return
				}
				// ... the timed ops of this sample ...
			}
		})
	}
	wg.Wait()
	fmt.Println("both sides measured 3 samples, each started together")
	// Output: both sides measured 3 samples, each started together
}

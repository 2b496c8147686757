// Command bigresults writes a large result file shaped like a merged CI
// artifact, to measure the memory the readers need:
//
//	go run ./internal/bigresults -size 100M -o /tmp/big.txt
//	/usr/bin/time -v certbench gate /tmp/big.txt /tmp/big.txt
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

func main() {
	size := flag.String("size", "100M", "approximate `bytes` to write (suffix K, M or G)")
	out := flag.String("o", "", "the `file` to write (default stdout)")
	seed := flag.Uint64("seed", 1, "random `seed` of the values")
	scenarios := flag.Int("scenarios", 40, "`number` of scenarios")
	stores := flag.String("stores", "naive,optimized,traefik,certmagic", "comma-separated store `names`")
	flag.Parse()
	n, err := parseSize(*size)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bigresults:", err)
		os.Exit(2)
	}
	w := io.Writer(os.Stdout)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bigresults:", err)
			os.Exit(2)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := write(bw, n, *seed, *scenarios, strings.Split(*stores, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "bigresults:", err)
		os.Exit(1)
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "bigresults:", err)
		os.Exit(1)
	}
}

// parseSize reads "100M", "64K", "1G" or a plain number of bytes.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("-size %q: want a positive number of bytes, with K, M or G", s)
	}
	return n * mult, nil
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// write writes rounds of every scenario on every store until about size
// bytes are written.
func write(w io.Writer, size int64, seed uint64, nScenarios int, stores []string) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	cw := &counter{w: w}
	merged := results.NewWriter(cw)
	type base struct{ ns, bytes, allocs, retained float64 }
	bases := map[string]base{}
	for s := range nScenarios {
		for _, st := range stores {
			bases[fmt.Sprint(s, st)] = base{
				ns:       1e4 * float64(1+rng.IntN(10000)),
				bytes:    float64(1000 + rng.IntN(1_000_000)),
				allocs:   float64(10 + rng.IntN(10000)),
				retained: float64(10000 + rng.IntN(10_000_000)),
			}
		}
	}
	var buf bytes.Buffer
	for round := 1; cw.n < size; round++ {
		for s := range nScenarios {
			scenario := fmt.Sprintf("scenario-%02d-of-%d", s, 100*(s+1))
			buf.Reset()
			pw := results.NewWriter(&buf, results.RoundKey, strconv.Itoa(round),
				results.ScenarioHashKey(scenario), fmt.Sprintf("%012x", 0x5d0c1e2f3a4b+s))
			for _, st := range stores {
				b := bases[fmt.Sprint(s, st)]
				noise := func(v float64) float64 { return v * (0.9 + 0.2*rng.Float64()) }
				smp := bench.Sample{
					Scenario: scenario, Store: st, Ops: 10 + rng.IntN(1000),
					NsPerOp:         noise(b.ns),
					BytesPerOp:      b.bytes + float64(rng.IntN(3))/10,
					AllocsPerOp:     b.allocs + float64(rng.IntN(3))/10,
					RetainedBytes:   noise(b.retained),
					RetainedPerCert: noise(b.retained) / 100,
					Extra: []benchfmt.Value{
						{Value: noise(b.ns), Unit: results.UnitCPUNsPerOp},
						{Value: noise(b.ns / 100), Unit: results.UnitGCCPU},
						{Value: rng.Float64() / 10, Unit: results.UnitGCFraction},
						{Value: float64(rng.IntN(10)) / 10, Unit: results.UnitGCCycles},
						{Value: noise(b.bytes), Unit: results.UnitPeak},
						{Value: noise(b.bytes / 100), Unit: results.UnitPeakPerCert},
					},
				}
				if err := pw.Write(smp); err != nil {
					return err
				}
			}
			if err := pw.Close(); err != nil {
				return err
			}
			if _, err := merged.Append(&buf, fmt.Sprintf("round-%d-%s.txt", round, scenario)); err != nil {
				return err
			}
		}
	}
	return merged.Close()
}

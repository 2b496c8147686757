package gate

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/golden"
)

// The crafted result files under testdata are written by this file (values
// are chosen, not measured); TestFixturesUpToDate fails when a committed
// file differs from what it generates, and `go test -run Fixtures -update`
// rewrites them.

// fixtureNoise and fixtureNoise2 are multipliers of a timed metric for six
// samples: two different draws of the same noise.
var (
	fixtureNoise  = []float64{1.000, 1.012, 0.991, 1.006, 0.995, 1.017}
	fixtureNoise2 = []float64{1.004, 0.989, 1.010, 0.998, 1.015, 0.993}
)

// fixtureBench describes one benchmark of a crafted file. A field with
// several values gives sample i the value i modulo its length.
type fixtureBench struct {
	scenario, store string
	iters           int
	sec             []float64
	bytes, allocs   []int
	retained        float64
	certs           int
	noise           []float64
}

func (b fixtureBench) with(f func(*fixtureBench)) fixtureBench {
	f(&b)
	return b
}

func pick[T any](vs []T, i int) T { return vs[i%len(vs)] }

// fixtureFile is one crafted file: its benchmarks, samples, cpu and version.
type fixtureFile struct {
	name    string
	benches []fixtureBench
	samples int
	cpu     string
	version string
}

// render writes the file in the Go benchmark format. Values are printed
// with %g as an outside tool might (e.g. 1.012e+06 ns/op), which the
// readers must accept.
func (f fixtureFile) render() []byte {
	cpu, version, n := "AMD EPYC", "v0.1.0", 6
	if f.cpu != "" {
		cpu = f.cpu
	}
	if f.version != "" {
		version = f.version
	}
	if f.samples != 0 {
		n = f.samples
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "goos: linux\ngoarch: amd64\ncpu: %s\ngo: go1.26.8\ncertbench-version: %s\ngomaxprocs: 2\n\n", cpu, version)
	for i := range n {
		for _, b := range f.benches {
			store := b.store
			if store == "" {
				store = "optimized"
			}
			noise := fixtureNoise
			if b.noise != nil {
				noise = b.noise
			}
			retained := b.retained * math.Pow(fixtureNoise[i%6], 0.01)
			fmt.Fprintf(&sb, "BenchmarkChurn/scenario=%s/store=%s-2 %d %.6g ns/op %d B/op %d allocs/op %.8g retained-B %.8g retained-B/cert 0 goroutines\n",
				b.scenario, store, b.iters, pick(b.sec, i)*1e9*noise[i%6], pick(b.bytes, i), pick(b.allocs, i),
				retained, retained/float64(b.certs))
		}
	}
	return []byte(sb.String())
}

func fixtureFiles() []fixtureFile {
	rot := fixtureBench{scenario: "rotate-10-of-100", iters: 10, sec: []float64{1.0e-3}, bytes: []int{84744}, allocs: []int{1191}, retained: 16248, certs: 10}
	look := fixtureBench{scenario: "lookup-1000", iters: 20000, sec: []float64{100e-9}, bytes: []int{0}, allocs: []int{0}, retained: 1370000, certs: 1000}
	noop := fixtureBench{scenario: "noop-10000", iters: 3, sec: []float64{15e-3}, bytes: []int{163840}, allocs: []int{1}, retained: 13945616, certs: 10000}
	n2 := func(b *fixtureBench) { b.noise = fixtureNoise2 }
	rot2, look2 := rot.with(n2), look.with(n2)
	return []fixtureFile{
		{name: "base.txt", benches: []fixtureBench{rot, look}},
		// Same code, different noise: must pass.
		{name: "same.txt", benches: []fixtureBench{rot2, look2}},
		// One more allocation per op, and 16 more bytes (+0.02%, within +2%).
		{name: "alloc1.txt", benches: []fixtureBench{rot2.with(func(b *fixtureBench) { b.allocs, b.bytes = []int{1192}, []int{84760} }), look2}},
		// Timing noise: medians 3% apart, samples interleaved: not significant.
		{name: "timenoise.txt", benches: []fixtureBench{rot.with(func(b *fixtureBench) {
			b.sec, b.noise = []float64{1.03e-3}, []float64{0.975, 1.0, 0.96, 1.01, 0.985, 0.97}
		}), look2}},
		// Significantly slower (samples fully separated), but only by 5%: within +10%.
		{name: "timesmall.txt", benches: []fixtureBench{rot2.with(func(b *fixtureBench) { b.sec = []float64{1.05e-3} }), look2}},
		// 25% slower, fully separated: a regression.
		{name: "timeslow.txt", benches: []fixtureBench{rot2.with(func(b *fixtureBench) { b.sec = []float64{1.25e-3} }), look2}},
		// Only 3 samples: timings cannot be decided; exact counts can.
		{name: "few.txt", benches: []fixtureBench{rot, look}, samples: 3},
		// A benchmark of base is missing.
		{name: "missing.txt", benches: []fixtureBench{rot2}},
		// An extra benchmark only in head.
		{name: "extra.txt", benches: []fixtureBench{rot2, look2, noop}},
		// Another machine.
		{name: "othercpu.txt", benches: []fixtureBench{rot2, look2}, cpu: "Intel(R) Xeon(R) CPU @ 2.20GHz"},
		// Fewer allocations and bytes, faster lookups: improvements.
		{name: "improved.txt", benches: []fixtureBench{
			rot2.with(func(b *fixtureBench) { b.allocs, b.bytes = []int{1100}, []int{76000} }),
			look2.with(func(b *fixtureBench) { b.sec = []float64{70e-9} }),
		}},
		// Allocation counts that vary by one on both sides (not exact): U test.
		{name: "noisyallocs-base.txt", benches: []fixtureBench{rot.with(func(b *fixtureBench) { b.allocs = []int{1191, 1192, 1191, 1191, 1192, 1191} })}},
		{name: "noisyallocs-head.txt", benches: []fixtureBench{rot2.with(func(b *fixtureBench) { b.allocs = []int{1191, 1191, 1192, 1191, 1191, 1192} })}},
		// Counts that drift by more than noise on every sample (not exact, shifted).
		{name: "noisyallocs-up.txt", benches: []fixtureBench{rot2.with(func(b *fixtureBench) { b.allocs = []int{1201, 1202, 1201, 1202, 1201, 1202} })}},
		// The golden report: an exact allocation regression, a timing
		// regression, an improvement, a missing metric's benchmark, a new
		// benchmark, another certbench version (not a machine key) and
		// another CPU (a warning).
		{name: "golden-head.txt", benches: []fixtureBench{
			rot2.with(func(b *fixtureBench) { b.allocs, b.bytes, b.sec = []int{1201}, []int{89000}, []float64{1.25e-3} }),
			look2.with(func(b *fixtureBench) { b.sec = []float64{70e-9} }),
			noop,
		}, cpu: "Intel(R) Xeon(R) CPU @ 2.20GHz", version: "v0.2.0"},
		// Four samples a side: a U test alone can reach p = 0.029, but not
		// after Holm's correction for the two benchmarks tested per metric
		// (0.057).
		{name: "four-base.txt", benches: []fixtureBench{rot, look}, samples: 4},
		{name: "four-head.txt", benches: []fixtureBench{rot.with(func(b *fixtureBench) { b.sec = []float64{1.25e-3} }).with(n2), look2}, samples: 4},
	}
}

func TestFixturesUpToDate(t *testing.T) {
	for _, f := range fixtureFiles() {
		golden.Check(t, filepath.Join("testdata", f.name), f.render())
	}
}

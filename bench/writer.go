package bench

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"

	"golang.org/x/perf/benchfmt"
)

// BenchmarkName is the base name of every benchmark certbench writes.
const BenchmarkName = "BenchmarkChurn"

// The units certbench records beyond the testing package's.
const (
	UnitRetained        = "retained-B"
	UnitRetainedPerCert = "retained-B/cert"
	UnitGoroutines      = "goroutines"
)

// Writer writes samples in the Go benchmark format, with the machine's
// configuration lines first.
type Writer struct {
	w      *benchfmt.Writer
	config []benchfmt.Config
	procs  int
	extra  map[string]bool // units of Sample.Extra seen
}

// NewWriter returns a Writer to w. Its configuration lines record goos,
// goarch, cpu, the Go version, the certbench version and GOMAXPROCS, plus
// extra key/value pairs (in order).
func NewWriter(w io.Writer, extra ...string) *Writer {
	procs := runtime.GOMAXPROCS(0)
	kv := []string{
		"goos", runtime.GOOS,
		"goarch", runtime.GOARCH,
		"cpu", CPUName(),
		"go", runtime.Version(),
		"certbench-version", Version(),
		"gomaxprocs", strconv.Itoa(procs),
	}
	kv = append(kv, extra...)
	var cfg []benchfmt.Config
	for i := 0; i+1 < len(kv); i += 2 {
		cfg = append(cfg, benchfmt.Config{Key: kv[i], Value: []byte(kv[i+1]), File: true})
	}
	return &Writer{w: benchfmt.NewWriter(w), config: cfg, procs: procs}
}

// WriteUnits writes the unit metadata lines: goroutines are exact, and so
// are B/op and allocs/op when exactAllocs is set (every sample of a
// benchmark had the same counts); the extra units of the samples written
// (latency percentiles, refreshes/s) get their direction ("better=lower"
// or "better=higher").
func (w *Writer) WriteUnits(exactAllocs bool) error {
	units := []string{UnitGoroutines}
	if exactAllocs {
		units = append(units, "B/op", "allocs/op")
	}
	for _, u := range units {
		m := &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u, Key: "assume"}, OrigUnit: u, Value: "exact"}
		if err := w.w.Write(m); err != nil {
			return err
		}
	}
	for _, u := range extraUnits {
		if !w.extra[u.unit] {
			continue
		}
		m := &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u.unit, Key: "better"}, OrigUnit: u.unit, Value: u.better}
		if err := w.w.Write(m); err != nil {
			return err
		}
	}
	return nil
}

// Write writes one sample as a benchmark result line.
func (w *Writer) Write(s Sample) error {
	for _, v := range s.Extra {
		if w.extra == nil {
			w.extra = make(map[string]bool)
		}
		w.extra[v.Unit] = true
	}
	return w.w.Write(s.Result(w.config, w.procs))
}

// Result returns the sample as a benchfmt result with the given file
// configuration.
func (s Sample) Result(config []benchfmt.Config, procs int) *benchfmt.Result {
	name := fmt.Sprintf("%s/scenario=%s/store=%s", BenchmarkName[len("Benchmark"):], s.Scenario, s.Store)
	if s.Name != "" {
		name = s.Name
	}
	if procs > 1 {
		name += "-" + strconv.Itoa(procs)
	}
	res := &benchfmt.Result{
		Config: config,
		Name:   benchfmt.Name(name),
		Iters:  s.Ops,
		Values: []benchfmt.Value{
			{Value: s.NsPerOp, Unit: "ns/op"},
			{Value: float64(s.BytesPerOp), Unit: "B/op"},
			{Value: float64(s.AllocsPerOp), Unit: "allocs/op"},
			{Value: s.RetainedBytes, Unit: UnitRetained},
			{Value: s.RetainedPerCert, Unit: UnitRetainedPerCert},
			{Value: float64(s.Goroutines), Unit: UnitGoroutines},
		},
	}
	res.Values = append(res.Values, s.Extra...)
	return res
}

// Version returns certbench's version: the main module's version, or its
// VCS revision when built from a checkout, or "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "-dirty"
		}
		return rev
	}
	return "devel"
}

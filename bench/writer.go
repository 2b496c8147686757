package bench

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"

	"github.com/certbench/certbench/results"
	"golang.org/x/perf/benchfmt"
)

// ExactUnits are the units a Writer declares "assume=exact" when their
// samples show them to be exact: counts (results.IsCount), which a
// deterministic store on a fixed op count repeats exactly.
var ExactUnits = []string{results.UnitGoroutines, results.UnitBytes, results.UnitAllocs}

// Writer writes samples in the Go benchmark format, with the machine's
// configuration lines first, and keeps what it needs to write the unit
// metadata lines that describe what it wrote (see WriteUnits).
//
// Values are formatted by FormatValue (plain decimals, never an
// exponent), not by benchfmt.Writer, whose %v formatting writes large
// values with exponents; configuration lines are benchfmt.Writer's.
type Writer struct {
	out    io.Writer
	cfg    *benchfmt.Writer // writes configuration lines into buf
	buf    bytes.Buffer
	config []benchfmt.Config
	procs  int

	n        int                             // results written
	failures int                             // failures written
	units    map[string]map[string]*valueRun // written unit -> benchmark name -> its values
	meta     []*benchfmt.UnitMetadata        // metadata declared by merged inputs, in order
}

// valueRun summarizes the values one benchmark had in one unit: how many,
// and whether all were written the same.
type valueRun struct {
	first string
	n     int
	same  bool
}

// NewWriter returns a Writer to w. Its configuration lines record goos,
// goarch, cpu, the Go version, the certbench version and GOMAXPROCS, the
// certbench revision when it is known (see Revision), plus extra key/value
// pairs (in order).
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
	if rev := Revision(); rev != "" {
		kv = append(kv, "certbench-revision", rev)
	}
	kv = append(kv, extra...)
	var cfg []benchfmt.Config
	for i := 0; i+1 < len(kv); i += 2 {
		cfg = append(cfg, benchfmt.Config{Key: kv[i], Value: []byte(kv[i+1]), File: true})
	}
	wr := &Writer{out: w, config: cfg, procs: procs, units: map[string]map[string]*valueRun{}}
	wr.cfg = benchfmt.NewWriter(&wr.buf)
	return wr
}

// Write writes one sample as a benchmark result line, with the Writer's
// configuration.
func (w *Writer) Write(s Sample) error {
	return w.WriteResult(s.Result(w.config, w.procs))
}

// WriteResult writes res as a benchmark result line, preceded by the
// configuration lines that changed since the last result (res's own
// configuration, not the Writer's: this is how Merge keeps each input's).
// It fails on a value that is not a finite number.
func (w *Writer) WriteResult(res *benchfmt.Result) error {
	line, err := formatResult(res)
	if err != nil {
		return err
	}
	// benchfmt.Writer writes the configuration lines, then its own
	// rendering of the result line, which is replaced.
	w.buf.Reset()
	if err := w.cfg.Write(res); err != nil {
		return err
	}
	b := w.buf.Bytes()
	b = b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1]
	b = append(b, line...)
	if _, err := w.out.Write(b); err != nil {
		return err
	}
	w.n++
	name := string(res.Name)
	for _, v := range res.Values {
		val, unit := writtenValue(v)
		runs := w.units[unit]
		if runs == nil {
			runs = map[string]*valueRun{}
			w.units[unit] = runs
		}
		text := FormatValue(val)
		if r := runs[name]; r == nil {
			runs[name] = &valueRun{first: text, n: 1, same: true}
		} else {
			r.n++
			r.same = r.same && r.first == text
		}
	}
	return nil
}

// Samples returns the number of result lines written.
func (w *Writer) Samples() int { return w.n }

// WriteFailure records that benchmark name (as Sample.Name: no
// "Benchmark" prefix, no -GOMAXPROCS suffix, which WriteFailure adds as
// Write does) failed, for reason (one line), in the lines go test writes
// for a failed benchmark (see results.WriteFailure), which benchstat
// ignores.
//
// Before the first result, the Writer's configuration lines are written
// first, as they are before a result: a file whose every sample failed
// still says where it was measured.
func (w *Writer) WriteFailure(name, reason string) error {
	if w.procs > 1 {
		name += "-" + strconv.Itoa(w.procs)
	}
	// benchfmt.Writer writes the configuration lines that changed, then
	// the result line, which is dropped.
	w.buf.Reset()
	if err := w.cfg.Write(&benchfmt.Result{Config: w.config, Name: benchfmt.Name(name), Iters: 1}); err != nil {
		return err
	}
	b := w.buf.Bytes()
	if _, err := w.out.Write(b[:bytes.LastIndexByte(b[:len(b)-1], '\n')+1]); err != nil {
		return err
	}
	return w.writeFailure(name, reason)
}

// writeFailure writes a failure whose name is complete.
func (w *Writer) writeFailure(name, reason string) error {
	if err := results.WriteFailure(w.out, name, reason); err != nil {
		return err
	}
	w.failures++
	return nil
}

// Failures returns the number of failures written.
func (w *Writer) Failures() int { return w.failures }

// Exact reports whether unit is exact in what the Writer wrote: every
// benchmark written with that unit has at least MinExactSamples samples,
// all with the same value.
func (w *Writer) Exact(unit string) bool {
	runs := w.units[unit]
	if len(runs) == 0 {
		return false
	}
	for _, r := range runs {
		if r.n < results.MinExactSamples || !r.same {
			return false
		}
	}
	return true
}

// DeclareUnit records unit metadata read from an input (a "Unit ..."
// line), to be written by WriteUnits. It fails if the input contradicts
// metadata declared before for the same unit and key. "assume=exact" is
// not taken on trust: WriteUnits writes it only if the samples written
// are exact.
func (w *Writer) DeclareUnit(m *benchfmt.UnitMetadata) error {
	unit := metaUnit(m)
	for _, have := range w.meta {
		if metaUnit(have) == unit && have.Key == m.Key {
			if have.Value != m.Value {
				f, l := m.Pos()
				hf, hl := have.Pos()
				return fmt.Errorf("bench: %s:%d: unit %s: %s=%s conflicts with %s=%s at %s:%d", f, l, unit, m.Key, m.Value, have.Key, have.Value, hf, hl)
			}
			return nil
		}
	}
	c := *m
	w.meta = append(w.meta, &c)
	return nil
}

// metaUnit is the unit of a metadata line as written.
func metaUnit(m *benchfmt.UnitMetadata) string {
	if m.OrigUnit != "" {
		return m.OrigUnit
	}
	return m.Unit
}

// declared returns the value declared for unit and key, if any.
func (w *Writer) declared(unit, key string) (string, bool) {
	for _, m := range w.meta {
		if metaUnit(m) == unit && m.Key == key {
			return m.Value, true
		}
	}
	return "", false
}

// WriteUnits writes the unit metadata lines, once, after the last result.
// Each of ExactUnits, and any unit an input declared exact, is declared
// "assume=exact" if and only if it is exact in what was written (see
// Exact): decided from the samples, never from a single one, and for
// merged files from all the merged samples. Other metadata declared by
// inputs is passed on; the extra units of HandshakeUnderChurn samples
// (latency percentiles, refreshes/s) get their direction ("better=lower"
// or "better=higher") unless an input declared one.
func (w *Writer) WriteUnits() error {
	var lines []*benchfmt.UnitMetadata
	add := func(unit, key, value string) {
		lines = append(lines, &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: unit, Key: key}, OrigUnit: unit, Value: value})
	}
	candidates := slices.Clone(ExactUnits)
	for _, m := range w.meta {
		if u := metaUnit(m); m.Key == "assume" && m.Value == "exact" && !slices.Contains(candidates, u) {
			candidates = append(candidates, u)
		}
	}
	for _, u := range candidates {
		if v, ok := w.declared(u, "assume"); ok && v != "exact" {
			continue // an input declared another assumption: passed on below
		}
		if w.Exact(u) {
			add(u, "assume", "exact")
		}
	}
	for _, m := range w.meta {
		if m.Key == "assume" && m.Value == "exact" {
			continue // decided above
		}
		lines = append(lines, m)
	}
	for _, u := range append(slices.Clone(extraUnits), operatorUnits...) {
		if _, ok := w.declared(u, "better"); !ok && len(w.units[u]) > 0 {
			add(u, "better", results.BetterName(u))
		}
	}
	for _, m := range lines {
		if _, err := fmt.Fprintf(w.out, "Unit %s %s=%s\n", metaUnit(m), m.Key, m.Value); err != nil {
			return err
		}
	}
	return nil
}

// Result returns the sample as a benchfmt result with the given file
// configuration.
func (s Sample) Result(config []benchfmt.Config, procs int) *benchfmt.Result {
	name := results.ChurnName(s.Scenario, s.Store)
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
			{Value: s.NsPerOp, Unit: results.UnitNsPerOp},
			{Value: s.BytesPerOp, Unit: results.UnitBytes},
			{Value: s.AllocsPerOp, Unit: results.UnitAllocs},
			{Value: s.RetainedBytes, Unit: results.UnitRetained},
			{Value: s.RetainedPerCert, Unit: results.UnitRetainedPerCert},
			{Value: float64(s.Goroutines), Unit: results.UnitGoroutines},
		},
	}
	if s.Instrument == Simulate {
		res.Values = res.Values[1:] // no clock figure: see Simulate
	}
	res.Values = append(res.Values, s.Extra...)
	return res
}

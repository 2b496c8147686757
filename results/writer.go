package results

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"

	"golang.org/x/perf/benchfmt"
)

// exactUnits are the counts a Writer declares "assume=exact" when their
// samples show them exact.
var exactUnits = []string{UnitGoroutines, UnitBytes, UnitAllocs}

// directedUnits are the units benchfmt knows no direction for: a Writer
// declares "better=" for them.
var directedUnits = []string{
	UnitP50, UnitP99, UnitP999, UnitRefreshRate,
	UnitCPUNsPerOp,
	UnitInstructions, UnitEstCycles,
	UnitHandshakes,
	UnitHandshakeP50, UnitHandshakeP90, UnitHandshakeP99,
	UnitHandshakeP999, UnitHandshakeMax,
	UnitErrors,
	UnitCalmHandshakes, UnitCalmP99,
	UnitP50ChurnRatio, UnitP99ChurnRatio, UnitP999ChurnRatio,
	UnitThroughputChurnRatio,
	UnitPeak, UnitPeakPerCert, UnitMaxRSS,
	UnitGCCPU, UnitGCFraction, UnitGCCycles,
	UnitGCPauseP99, UnitGCPauseMax,
}

// A Sample is one measurement a Writer writes (bench.Sample). Result
// returns its line with config, named "-procs" when procs > 1.
type Sample interface {
	Result(config []benchfmt.Config, procs int) *benchfmt.Result
}

// Writer writes results in the Go benchmark format: configuration and
// comment lines (isCommentKey), result lines in plain decimals
// (formatValue; benchfmt.Writer writes exponents), then on Close unit
// metadata and a closing line.
type Writer struct {
	out    io.Writer
	buf    []byte
	config []benchfmt.Config // the Writer's own, for Write
	procs  int

	written  []benchfmt.Config // configuration and comment lines in effect, in order
	anyLines bool              // a result line was written
	closed   bool

	n        int                             // results written
	failures int                             // failures written
	units    map[string]map[string]*valueRun // written unit -> benchmark name -> its values
	meta     []*benchfmt.UnitMetadata        // metadata declared by merged inputs, in order
}

// valueRun is how many values one benchmark had in a unit, and whether
// all were the same.
type valueRun struct {
	first string
	n     int
	same  bool
}

// machineConfig is a Writer's default configuration, as key/value pairs.
func machineConfig() []string {
	kv := []string{
		"goos", runtime.GOOS,
		"goarch", runtime.GOARCH,
		"cpu", CPUName(),
		"go", runtime.Version(),
		"gomaxprocs", strconv.Itoa(runtime.GOMAXPROCS(0)),
		VersionKey, Version(),
	}
	if rev := Revision(); rev != "" {
		kv = append(kv, RevisionKey, rev)
	}
	return kv
}

// NewWriter returns a Writer to w whose configuration is the machine's
// followed by the extra key/value pairs; an extra key the machine's has
// replaces its value.
func NewWriter(w io.Writer, extra ...string) *Writer {
	kv := machineConfig()
	for i := 0; i+1 < len(extra); i += 2 {
		if j := slices.Index(kv, extra[i]); j >= 0 && j%2 == 0 {
			kv[j+1] = extra[i+1]
			continue
		}
		kv = append(kv, extra[i], extra[i+1])
	}
	var cfg []benchfmt.Config
	for i := 0; i+1 < len(kv); i += 2 {
		cfg = append(cfg, benchfmt.Config{Key: kv[i], Value: []byte(kv[i+1]), File: true})
	}
	return &Writer{out: w, config: cfg, procs: runtime.GOMAXPROCS(0), units: map[string]map[string]*valueRun{}}
}

// Write writes one sample with the Writer's configuration.
func (w *Writer) Write(s Sample) error {
	return w.WriteResult(s.Result(w.config, w.procs))
}

// WriteResult writes res with its own configuration (so Merge keeps each
// input's), preceded by the lines that changed; internal keys are not
// written. It fails on a non-finite value, a name or unit the format
// cannot hold, and after Close.
func (w *Writer) WriteResult(res *benchfmt.Result) error {
	if w.closed {
		return fmt.Errorf("results: %s: written after Close", res.Name)
	}
	line, err := formatResult(res)
	if err != nil {
		return err
	}
	b := w.configLines(w.buf[:0], res.Config)
	b = append(b, line...)
	w.buf = b[:0]
	if _, err := w.out.Write(b); err != nil {
		return err
	}
	w.anyLines = true
	w.n++
	name := string(res.Name)
	for _, v := range res.Values {
		val, unit := writtenValue(v)
		runs := w.units[unit]
		if runs == nil {
			runs = map[string]*valueRun{}
			w.units[unit] = runs
		}
		text := formatValue(val)
		if r := runs[name]; r == nil {
			runs[name] = &valueRun{first: text, n: 1, same: true}
		} else {
			r.n++
			r.same = r.same && r.first == text
		}
	}
	return nil
}

// configLines appends the lines that take the configuration in effect to
// config: keys gone (empty value), then keys new or changed; plain lines
// before comment lines, set off by blank lines as benchfmt.Writer does.
func (w *Writer) configLines(b []byte, config []benchfmt.Config) []byte {
	var plain, comments []byte
	add := func(key string, value []byte) {
		dst := &plain
		if isCommentKey(key) {
			dst = &comments
			*dst = append(*dst, CommentPrefix...)
		}
		*dst = append(*dst, key...)
		*dst = append(*dst, ':')
		if len(value) > 0 {
			*dst = append(*dst, ' ')
			*dst = append(*dst, value...)
		}
		*dst = append(*dst, '\n')
	}
	w.written = slices.DeleteFunc(w.written, func(have benchfmt.Config) bool {
		gone := !slices.ContainsFunc(config, func(c benchfmt.Config) bool { return c.Key == have.Key && c.File })
		if gone {
			add(have.Key, nil)
		}
		return gone
	})
	for _, c := range config {
		if !c.File {
			continue
		}
		i := slices.IndexFunc(w.written, func(h benchfmt.Config) bool { return h.Key == c.Key })
		switch {
		case i < 0:
			w.written = append(w.written, benchfmt.Config{Key: c.Key, Value: slices.Clone(c.Value), File: true})
		case bytes.Equal(w.written[i].Value, c.Value):
			continue
		default:
			w.written[i].Value = append(w.written[i].Value[:0], c.Value...)
		}
		add(c.Key, c.Value)
	}
	if len(plain) == 0 && len(comments) == 0 {
		return b
	}
	if w.anyLines {
		b = append(b, '\n')
	}
	b = append(b, plain...)
	b = append(b, comments...)
	return append(b, '\n')
}

// Samples returns the number of result lines written.
func (w *Writer) Samples() int { return w.n }

// WriteFailure records that benchmark name (as a Sample names it) failed
// for reason, as go test writes it ("--- FAIL: BenchmarkNAME-2", the
// reason indented), which benchstat ignores. The configuration lines go
// first, so a file of failures still says where it was measured.
func (w *Writer) WriteFailure(name, reason string) error {
	if w.closed {
		return fmt.Errorf("results: failure of %s written after Close", name)
	}
	if w.procs > 1 {
		name += "-" + strconv.Itoa(w.procs)
	}
	if b := w.configLines(w.buf[:0], w.config); len(b) > 0 {
		w.buf = b[:0]
		if _, err := w.out.Write(b); err != nil {
			return err
		}
		w.anyLines = true
	}
	return w.writeFailure(name, reason)
}

// writeFailure writes a failure whose name is complete.
func (w *Writer) writeFailure(name, reason string) error {
	if err := writeFailure(w.out, name, reason); err != nil {
		return err
	}
	w.failures++
	return nil
}

// exact reports whether every benchmark written in unit has at least
// MinExactSamples samples, all the same.
func (w *Writer) exact(unit string) bool {
	runs := w.units[unit]
	if len(runs) == 0 {
		return false
	}
	for _, r := range runs {
		if r.n < MinExactSamples || !r.same {
			return false
		}
	}
	return true
}

// declareUnit records an input's unit metadata for Close, failing on a
// conflict; "assume=exact" is not taken on trust (see Close).
func (w *Writer) declareUnit(m *benchfmt.UnitMetadata) error {
	unit := metaUnit(m)
	for _, have := range w.meta {
		if metaUnit(have) == unit && have.Key == m.Key {
			if have.Value != m.Value {
				return fmt.Errorf("results: %w", metaConflict(m, have))
			}
			return nil
		}
	}
	c := *m
	w.meta = append(w.meta, &c)
	return nil
}

// metaConflict says that m's value conflicts with have's, at their lines.
func metaConflict(m, have *benchfmt.UnitMetadata) error {
	f, l := m.Pos()
	hf, hl := have.Pos()
	return fmt.Errorf("%s:%d: unit %s: %s=%s conflicts with %s=%s at %s:%d", f, l, metaUnit(m), m.Key, m.Value, have.Key, have.Value, hf, hl)
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
	if i := slices.IndexFunc(w.meta, func(m *benchfmt.UnitMetadata) bool { return metaUnit(m) == unit && m.Key == key }); i >= 0 {
		return w.meta[i].Value, true
	}
	return "", false
}

// Close writes the unit metadata lines and the closing line (EndKey). A
// count, or a unit an input declared exact, is "assume=exact" if and only
// if the samples written are exact; inputs' other metadata passes on;
// directedUnits get their "better=" unless declared. It does not close
// the io.Writer; a second call does nothing.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	var lines []*benchfmt.UnitMetadata
	add := func(unit, key, value string) {
		lines = append(lines, &benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: unit, Key: key}, OrigUnit: unit, Value: value})
	}
	candidates := slices.Clone(exactUnits)
	for _, m := range w.meta {
		if u := metaUnit(m); m.Key == "assume" && m.Value == "exact" && !slices.Contains(candidates, u) {
			candidates = append(candidates, u)
		}
	}
	for _, u := range candidates {
		if v, ok := w.declared(u, "assume"); ok && v != "exact" {
			continue // an input declared another assumption: passed on below
		}
		if w.exact(u) {
			add(u, "assume", "exact")
		}
	}
	for _, m := range w.meta {
		if m.Key == "assume" && m.Value == "exact" {
			continue // decided above
		}
		lines = append(lines, m)
	}
	for _, u := range directedUnits {
		if _, ok := w.declared(u, "better"); !ok && len(w.units[u]) > 0 {
			add(u, "better", betterName(u))
		}
	}
	var b []byte
	for _, m := range lines {
		b = fmt.Appendf(b, "Unit %s %s=%s\n", metaUnit(m), m.Key, m.Value)
	}
	b = append(b, endLine(w.n)...)
	_, err := w.out.Write(b)
	return err
}

// endLine returns the closing line after n results.
func endLine(n int) string {
	return CommentPrefix + EndKey + ": " + strconv.Itoa(n) + " results\n"
}

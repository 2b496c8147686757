package results

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// FileKey is the internal configuration key holding each series' input
// label, usable in benchproc projections and filters.
const FileKey = ".file"

const (
	stdinArg  = "-"       // makes Load read standard input, as benchfmt.Files does
	stdinName = "<stdin>" // names standard input in errors
)

// A Set is the results of one or more inputs, aggregated as they are read
// into a Series per benchmark and configuration: values, never the lines,
// so a Set holds less memory than its text.
type Set struct {
	// Series are by benchmark and configuration, in first-seen order.
	Series []*Series
	// Units is the unit metadata merged from all inputs.
	Units benchfmt.UnitMetadataMap
	// Files lists the input labels in input order.
	Files []string
	// Failures are the benchmarks the inputs record as failed ("--- FAIL:
	// Benchmark" lines), in input order; a failed sample has no result.
	Failures []Failure
	// Warnings are problems that do not stop reading, each naming file
	// and line (unknown units, a file cut short); callers show them.
	Warnings []error
}

// A Series is the samples of one benchmark under one configuration of one
// input; sample i is its i-th line. It is read-only: Sets and statistics
// share it (see Relabel).
type Series struct {
	// Name is the benchmark name without "Benchmark".
	Name benchfmt.Name
	// Config is the samples' file configuration, comment keys included
	// (RoundKey excepted: see Rounds), and the input's label under
	// FileKey; series of one configuration share it.
	Config []benchfmt.Config
	// Metrics holds the values of each unit, in first-seen order.
	Metrics []*Metric
	// Rounds holds each sample's round, "" for none; nil when none has one.
	Rounds []string
	// N is the number of samples.
	N int

	proto *benchfmt.Result // Config with its index built, shared by the series of a configuration
}

// A Metric is the values of one unit in a Series, sorted, so that a
// statistic (benchmath.Sample) uses Values without a copy.
type Metric struct {
	// Unit is as benchfmt reads it ("sec/op"); OrigUnit as written, if it
	// differs.
	Unit, OrigUnit string
	// Values are in Unit, ascending.
	Values []float64
	// Samples holds the sample (line in the series) of each value.
	Samples []int32
}

// Sample returns the index of the sample value i belongs to.
func (m *Metric) Sample(i int) int { return int(m.Samples[i]) }

// Round returns the round of sample i, or "".
func (s *Series) Round(i int) string {
	if s.Rounds == nil {
		return ""
	}
	return s.Rounds[i]
}

// Metric returns the values of unit (as read or as written), or nil.
func (s *Series) Metric(unit string) *Metric {
	i := slices.IndexFunc(s.Metrics, func(m *Metric) bool { return m.Unit == unit || (m.OrigUnit != "" && m.OrigUnit == unit) })
	if i < 0 {
		return nil
	}
	return s.Metrics[i]
}

// GetConfig returns the value of a configuration key, or "".
func (s *Series) GetConfig(key string) string {
	if s.proto != nil {
		return s.proto.GetConfig(key)
	}
	for _, c := range s.Config {
		if c.Key == key {
			return string(c.Value)
		}
	}
	return ""
}

// Result returns the series as a benchfmt.Result for benchproc: Name,
// Config (shared: read-only) and one zero Value per metric.
func (s *Series) Result() *benchfmt.Result {
	var r benchfmt.Result
	if s.proto != nil {
		r = *s.proto // shares the configuration index
	} else {
		r.Config = s.Config
	}
	r.Name = s.Name
	r.Iters = s.N
	r.Values = make([]benchfmt.Value, len(s.Metrics))
	for i, m := range s.Metrics {
		r.Values[i] = benchfmt.Value{Unit: m.Unit, OrigUnit: m.OrigUnit}
	}
	return &r
}

// Samples returns the number of result lines read.
func (set *Set) Samples() int {
	n := 0
	for _, s := range set.Series {
		n += s.N
	}
	return n
}

// NameValues returns the distinct values of the sub-benchmark key (such
// as StoreKey) in the series' names, in first-seen order.
func (set *Set) NameValues(key string) []string {
	var vals []string
	seen := map[string]bool{}
	for _, s := range set.Series {
		if v, ok := NameValue(s.Name, key); ok && !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	return vals
}

// Relabel returns the set with label as its only input label (FileKey),
// to join two sets into one comparison; the series share set's values.
func (set *Set) Relabel(label string) *Set {
	out := &Set{Units: set.Units, Files: []string{label}, Series: make([]*Series, 0, len(set.Series))}
	protos := map[*benchfmt.Result]*benchfmt.Result{}
	for _, s := range set.Series {
		p, ok := protos[s.proto]
		if !ok || s.proto == nil {
			cfg := slices.Clone(s.Config)
			i := slices.IndexFunc(cfg, func(c benchfmt.Config) bool { return c.Key == FileKey })
			if i < 0 {
				i, cfg = len(cfg), append(cfg, benchfmt.Config{Key: FileKey})
			}
			cfg[i].Value = []byte(label)
			p = newProto(cfg)
			protos[s.proto] = p
		}
		c := *s
		c.Config, c.proto = p.Config, p
		out.Series = append(out.Series, &c)
	}
	return out
}

// newProto returns a result holding config, its index built, to share.
func newProto(config []benchfmt.Config) *benchfmt.Result {
	p := &benchfmt.Result{Config: config[:len(config):len(config)]}
	p.ConfigIndex("") // builds the index while no one shares it
	return p
}

// Load reads the named files in the Go benchmark format, in order, into
// one Set. A file is labelled with its path, or LABEL for "LABEL=PATH"
// (unless a file has the whole name); a repeated label gets "#1", "#2";
// "-" is standard input, once. Comment lines ("# round: 3") read as
// configuration.
//
// It fails, naming FILE:LINE, on an unreadable file or a directory, a
// malformed line (wrapping *benchfmt.SyntaxError), a value that is not
// finite or is negative, an iteration count below one, a truncated last
// line, no results, or unit metadata conflicting with an earlier file.
// Unknown units and a missing closing line are Set.Warnings.
func Load(paths ...string) (*Set, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input files")
	}
	// Not benchfmt.Files: it gives neither an input's bytes nor its end,
	// so a truncated line, an empty input or a directory could not be
	// told; and it labels repeats "a#0" and splits "a=b.txt" at "=".
	set := &Set{Units: make(benchfmt.UnitMetadataMap)}
	seen := make(map[string]int)
	stdin := false
	for _, arg := range paths {
		label, path := arg, arg
		if i := strings.Index(arg, "="); i > 0 {
			if _, err := os.Stat(arg); err != nil {
				label, path = arg[:i], arg[i+1:]
			}
		}
		seen[label]++
		if n := seen[label] - 1; n > 0 {
			label = fmt.Sprintf("%s#%d", label, n)
		}
		var err error
		switch {
		case path == stdinArg && stdin:
			return nil, fmt.Errorf("%s: standard input given twice", arg)
		case path == stdinArg:
			stdin = true
			err = set.read(os.Stdin, stdinName, label)
		default:
			err = set.readFile(path, label)
		}
		if err != nil {
			return nil, err
		}
	}
	return set, nil
}

func (set *Set) readFile(path, label string) error {
	f, err := os.Open(path)
	if err != nil {
		return err // *fs.PathError: "open PATH: ..."
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: is a directory, want a result file", path)
	}
	return set.read(f, path, label)
}

// Read reads results from r as Load does a file; name is its label.
func Read(r io.Reader, name string) (*Set, error) {
	set := &Set{Units: make(benchfmt.UnitMetadataMap)}
	if err := set.read(r, name, name); err != nil {
		return nil, err
	}
	return set, nil
}

// read appends one input to set, or nothing if it has an error.
func (set *Set) read(r io.Reader, path, label string) error {
	sc := newScanner(r, path, FileKey, label)
	var (
		agg      = aggregator{snaps: map[string]*snapshot{}}
		units    = unitWarnings{file: path}
		newUnits = make(benchfmt.UnitMetadataMap)
		last     lastResult
	)
	for sc.Scan() {
		switch rec := sc.Record().(type) {
		case *benchfmt.SyntaxError:
			if sc.feed.lastUnterminated(rec.Line) {
				return fmt.Errorf("%w (last line, without a newline: the file looks truncated)", rec)
			}
			return rec
		case *benchfmt.Result:
			if err := CheckResult(rec); err != nil {
				return err
			}
			tidyZeros(rec)
			_, last.line = rec.Pos()
			last.unknown = ""
			for _, v := range rec.Values {
				if _, unit := writtenValue(v); !IsKnownUnit(v.Unit) {
					units.add(last.line, unit)
					last.unknown = cmp.Or(last.unknown, unit)
				}
			}
			agg.add(sc, rec)
		case *benchfmt.UnitMetadata:
			have, ok := set.Units[rec.UnitMetadataKey]
			if !ok {
				have, ok = newUnits[rec.UnitMetadataKey]
			}
			if ok {
				if have.Value != rec.Value {
					return metaConflict(rec, have)
				}
				continue
			}
			newUnits[rec.UnitMetadataKey] = rec
		}
	}
	if err := sc.Err(); err != nil {
		return err // "PATH:LINE: ..."
	}
	if err := checkLastLine(&sc.feed, path, last); err != nil {
		return err
	}
	if agg.results == 0 && len(sc.fails.Failures) == 0 {
		return fmt.Errorf("%s: no benchmark results", path)
	}
	agg.finish()
	for _, f := range sc.fails.Failures {
		f.File = label
		set.Failures = append(set.Failures, f)
	}
	set.Series = append(set.Series, agg.series...)
	maps.Copy(set.Units, newUnits)
	set.Warnings = append(set.Warnings, units.errors()...)
	set.Warnings = append(set.Warnings, sc.finish(agg.results)...)
	set.Files = append(set.Files, label)
	return nil
}

type lastResult struct {
	line    int    // its line, 0 if none
	unknown string // its first unit certbench does not know, as written
}

// checkLastLine reports an unterminated last benchmark line that is not a
// whole result in known units: a file cut while written ("... 1184 al").
func checkLastLine(f *lineFeed, path string, last lastResult) error {
	line := f.lines
	if !f.lastUnterminated(line) || !bytes.HasPrefix(f.head[:f.headLen], benchmarkPrefix) {
		return nil
	}
	if last.line == line {
		if last.unknown != "" {
			return fmt.Errorf("%s:%d: last line, without a newline, ends in unit %q, which certbench does not know: the file looks truncated",
				path, line, last.unknown)
		}
		return nil
	}
	return fmt.Errorf("%s:%d: last line, without a newline, is not a complete benchmark result: the file looks truncated", path, line)
}

type aggregator struct {
	snap    *snapshot            // the configuration in effect
	snaps   map[string]*snapshot // by canonical text
	series  []*Series
	round   string            // the round in effect
	rounds  map[string]string // interned rounds
	scratch []benchfmt.Config
	key     []byte // a configuration's canonical text
	results int
}

// A snapshot is one configuration of an input and its series.
type snapshot struct {
	proto  *benchfmt.Result
	series map[string]*Series // by name
	last   *Series
}

const maxRounds = 1 << 14

func (a *aggregator) add(sc *scanner, rec *benchfmt.Result) {
	a.results++
	if sc.changed || a.snap == nil {
		sc.changed = false
		a.configure(sc, rec)
	}
	sn := a.snap
	s := sn.last
	if s == nil || string(s.Name) != string(rec.Name) {
		s = sn.series[string(rec.Name)]
		if s == nil {
			s = &Series{Name: bytes.Clone(rec.Name), Config: sn.proto.Config, proto: sn.proto}
			sn.series[string(s.Name)] = s
			a.series = append(a.series, s)
		}
		sn.last = s
	}
	i := s.N
	s.N++
	if a.round != "" || s.Rounds != nil {
		if s.Rounds == nil {
			s.Rounds = make([]string, i, i+1)
		}
		s.Rounds = append(s.Rounds, a.round)
	}
	for j, v := range rec.Values {
		m := s.metric(j, v)
		m.Values = append(m.Values, v.Value)
		m.Samples = append(m.Samples, int32(min(i, math.MaxInt32)))
	}
}

func (a *aggregator) finish() {
	for _, s := range a.series {
		for _, m := range s.Metrics {
			sort.Sort(byValue{m})
			if cap(m.Values) > len(m.Values)+len(m.Values)/8 {
				m.Values, m.Samples = slices.Clone(m.Values), slices.Clone(m.Samples)
			}
		}
		if cap(s.Rounds) > len(s.Rounds)+len(s.Rounds)/8 {
			s.Rounds = slices.Clone(s.Rounds)
		}
	}
}

type byValue struct{ *Metric }

func (m byValue) Len() int { return len(m.Values) }
func (m byValue) Less(i, j int) bool {
	return m.Values[i] < m.Values[j] || (m.Values[i] == m.Values[j] && m.Samples[i] < m.Samples[j])
}
func (m byValue) Swap(i, j int) {
	m.Values[i], m.Values[j] = m.Values[j], m.Values[i]
	m.Samples[i], m.Samples[j] = m.Samples[j], m.Samples[i]
}

func (a *aggregator) configure(sc *scanner, rec *benchfmt.Result) {
	cfg := sc.config(a.scratch[:0], rec)
	a.scratch = cfg
	round := ""
	kept := cfg[:0]
	for _, c := range cfg {
		if c.Key == RoundKey {
			round = string(c.Value) // a comment wins over an older file's configuration line
			continue
		}
		kept = append(kept, c)
	}
	cfg = kept
	if v, ok := sc.comment(RoundKey); ok {
		round = v
	}
	a.round = a.intern(round)
	if a.snap != nil && sameConfig(a.snap.proto.Config, cfg) {
		return
	}
	key := a.key[:0]
	for _, c := range cfg {
		key = fmt.Appendf(key, "%d:%s%d:%s%t", len(c.Key), c.Key, len(c.Value), c.Value, c.File)
	}
	a.key = key
	if sn := a.snaps[string(key)]; sn != nil {
		a.snap = sn
		return
	}
	size := 0
	for _, c := range cfg {
		size += len(c.Value)
	}
	buf := make([]byte, 0, size)
	out := make([]benchfmt.Config, len(cfg))
	for i, c := range cfg {
		start := len(buf)
		buf = append(buf, c.Value...)
		out[i] = benchfmt.Config{Key: c.Key, Value: buf[start:len(buf):len(buf)], File: c.File}
	}
	a.snap = &snapshot{proto: newProto(out), series: map[string]*Series{}}
	a.snaps[string(key)] = a.snap
}

// intern returns s, sharing the storage of an equal round read before.
func (a *aggregator) intern(s string) string {
	if r, ok := a.rounds[s]; ok || s == "" {
		return r
	}
	if a.rounds == nil {
		a.rounds = map[string]string{}
	}
	if len(a.rounds) < maxRounds {
		a.rounds[s] = s
	}
	return s
}

func sameConfig(a, b []benchfmt.Config) bool {
	return slices.EqualFunc(a, b, func(x, y benchfmt.Config) bool {
		return x.Key == y.Key && x.File == y.File && bytes.Equal(x.Value, y.Value)
	})
}

// metric returns the metric of v's unit, made if new; j is where it
// usually is.
func (s *Series) metric(j int, v benchfmt.Value) *Metric {
	if j < len(s.Metrics) && s.Metrics[j].Unit == v.Unit {
		return s.Metrics[j]
	}
	if k := slices.IndexFunc(s.Metrics, func(m *Metric) bool { return m.Unit == v.Unit }); k >= 0 {
		return s.Metrics[k]
	}
	m := &Metric{Unit: v.Unit, OrigUnit: v.OrigUnit}
	s.Metrics = append(s.Metrics, m)
	return m
}

// tidyZeros tidies zero values' units too: benchfmt leaves "0 ns/op" in
// ns/op, which would split a unit over two tables.
func tidyZeros(r *benchfmt.Result) {
	for i := range r.Values {
		v := &r.Values[i]
		if v.Value != 0 || v.OrigUnit != "" {
			continue
		}
		if _, unit := benchunit.Tidy(1, v.Unit); unit != v.Unit {
			v.OrigUnit, v.OrigValue, v.Unit = v.Unit, 0, unit
		}
	}
}

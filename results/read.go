package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"
)

// FileKey is the internal configuration key that Load and Read give every
// series. Its value is the input's label, so ".file" can be used in
// benchproc projections and filters like any other key.
const FileKey = ".file"

// stdinArg is the argument that makes Load read standard input, as
// benchfmt.Files reads it ("compare -", "gate base.txt -"). Its label is
// "-", or the label of "label=-"; errors name it stdinName.
const stdinArg = "-"

// stdinName names standard input in the errors and warnings of Load.
const stdinName = "<stdin>"

// A Set is the benchmark results of one or more inputs, aggregated as
// they are read: for each benchmark and configuration a Series of
// float64 values per unit, never the result lines themselves, so that a
// Set holds less memory than the text it was read from.
type Set struct {
	// Series holds the results by benchmark and configuration, in the
	// order each was first seen.
	Series []*Series

	// Units is the unit metadata ("Unit allocs/op assume=exact" lines)
	// merged from all inputs.
	Units benchfmt.UnitMetadataMap

	// Files lists the input labels in input order.
	Files []string

	// Failures are the benchmarks the inputs record as failed ("--- FAIL:
	// Benchmark" lines: certbench run writes one for a sample its store ended, go
	// test for a benchmark that failed), in input order. A failed sample
	// has no result line.
	Failures []Failure

	// Warnings are problems with the inputs that do not stop them being
	// read, each naming file and line: a unit certbench does not know
	// and a file cut short (*MissingEndWarning, or a closing line that
	// counts other results). Callers should show them (the certbench command
	// prints them to stderr).
	Warnings []error
}

// A Series is the samples of one benchmark read with one configuration:
// the result lines of one name under the same configuration and comment
// lines of one input. Sample i is the i-th such line. A Series is
// read-only: several Sets, and the statistics made of them, may share it
// (see Relabel).
type Series struct {
	// Name is the benchmark name without "Benchmark", as in
	// benchfmt.Result.
	Name benchfmt.Name

	// Config is the file configuration of the samples, comment keys
	// included (RoundKey excepted: it is in Rounds), and the input's
	// label under FileKey. Series of one configuration share it.
	Config []benchfmt.Config

	// Metrics holds the values of each unit, in the order first seen.
	Metrics []*Metric

	// Rounds holds the round of each sample (RoundKey), "" for a sample
	// without one; nil when no sample has one.
	Rounds []string

	// N is the number of samples.
	N int

	proto *benchfmt.Result // Config with its index built, shared by the series of a configuration
}

// A Metric is the values of one unit in a Series, sorted, as statistics
// want them (benchmath.Sample): a statistic can use Values as they are,
// without a copy.
type Metric struct {
	// Unit is the unit as benchfmt reads it ("sec/op" for "ns/op"), and
	// OrigUnit as the input wrote it, if that differs.
	Unit, OrigUnit string

	// Values are the values in Unit, in ascending order.
	Values []float64

	// Samples holds the sample each value belongs to (its index in the
	// series: its line among the series' lines), as long as Values.
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
	for _, m := range s.Metrics {
		if m.Unit == unit || (m.OrigUnit != "" && m.OrigUnit == unit) {
			return m
		}
	}
	return nil
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

// Result returns the series as a benchfmt.Result for benchproc's
// projections and filters: its Name and Config (shared: read-only) and
// one Value per metric, with its units and a Value of 0.
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
// as StoreKey, "store") in the names of the set's series, in the order
// first seen. Series without the key are skipped, so a plain go test
// -bench file has no stores.
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

// Relabel returns the set with label as its only input label (under
// FileKey), as for joining two sets into one comparison. The series share
// their names and values with set's, and series that shared a
// configuration share the relabelled one.
func (set *Set) Relabel(label string) *Set {
	out := &Set{Units: set.Units, Files: []string{label}, Series: make([]*Series, 0, len(set.Series))}
	protos := map[*benchfmt.Result]*benchfmt.Result{}
	for _, s := range set.Series {
		p, ok := protos[s.proto]
		if !ok || s.proto == nil {
			cfg := make([]benchfmt.Config, 0, len(s.Config)+1)
			labelled := false
			for _, c := range s.Config {
				if c.Key == FileKey {
					c.Value, labelled = []byte(label), true
				}
				cfg = append(cfg, c)
			}
			if !labelled {
				cfg = append(cfg, benchfmt.Config{Key: FileKey, Value: []byte(label)})
			}
			p = newProto(cfg)
			protos[s.proto] = p
		}
		c := *s
		c.Config, c.proto = p.Config, p
		out.Series = append(out.Series, &c)
	}
	return out
}

// newProto returns a result holding config, with its configuration index
// built, for series to share.
func newProto(config []benchfmt.Config) *benchfmt.Result {
	p := &benchfmt.Result{Config: config[:len(config):len(config)]}
	p.ConfigIndex("") // builds the index while no one shares it
	return p
}

// Load reads benchmark results in the Go benchmark format from the named
// files, in order, and returns them as one Set.
//
// Each file is labelled with its path as given. An argument of the form
// "label=path" (when no file is literally named by the whole argument)
// labels the file at path with label instead, for example "base=old.txt".
// A path given twice gets "#1", "#2", ... appended to its later labels.
// The path "-" is standard input, which can be given once.
//
// Load reads as it goes, keeping per benchmark and configuration the
// values and the round of each sample (see Set): memory grows with the
// number of values, not with the text. Comment lines ("# round: 3") are
// read as configuration lines.
//
// Load checks every measurement before any statistics are computed. It
// fails, with an error naming the file (and line, as "FILE:LINE: ..."),
// if a file cannot be read or is a directory, contains a malformed
// benchmark or unit line (the error wraps the *benchfmt.SyntaxError), a
// value that is not a finite number or is negative, an iteration count
// below one, a last line without its
// newline that is not a complete result in known units (a truncated
// file), no benchmark results, or unit metadata that conflicts with an
// earlier file. Units certbench does not know, and a certbench file
// without its closing line, are read with a warning in Set.Warnings.
func Load(paths ...string) (*Set, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input files")
	}
	// Not benchfmt.Files, though "-" and "label=path" mean here what
	// they mean there: Files opens the inputs itself and gives neither
	// their bytes nor where one input ends, so Load could not tell a
	// truncated last line, an input with no results or a directory.
	// Files also labels a repeated path "a#0", "a#1" (Load: "a", "a#1")
	// and splits at "=" even a file named "a=b.txt".
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
		if n := seen[label]; n > 0 {
			seen[label]++
			label = fmt.Sprintf("%s#%d", label, n)
		} else {
			seen[label] = 1
		}
		if path == stdinArg {
			if stdin {
				return nil, fmt.Errorf("%s: standard input given twice", arg)
			}
			stdin = true
			if err := set.read(os.Stdin, stdinName, label); err != nil {
				return nil, err
			}
			continue
		}
		if err := set.readFile(path, label); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// readFile appends the results of the file at path to set.
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

// Read reads benchmark results in the Go benchmark format from r, as Load
// does for a file, with the same checks. name is used in error messages
// and as the input's label.
func Read(r io.Reader, name string) (*Set, error) {
	set := &Set{Units: make(benchfmt.UnitMetadataMap)}
	if err := set.read(r, name, name); err != nil {
		return nil, err
	}
	return set, nil
}

// read appends the results of one input to set. path names the input in
// error messages; label is stored under FileKey. Nothing is appended if
// the input has an error.
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
				if !IsKnownUnit(v.Unit) {
					units.add(last.line, origUnit(v))
					if last.unknown == "" {
						last.unknown = origUnit(v)
					}
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
					hf, hl := have.Pos()
					f, l := rec.Pos()
					return fmt.Errorf("%s:%d: unit %s: %s=%s conflicts with %s=%s at %s:%d",
						f, l, rec.OrigUnit, rec.Key, rec.Value, have.Key, have.Value, hf, hl)
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
	sc.fails.Close()
	if agg.results == 0 && len(sc.fails.Failures) == 0 {
		return fmt.Errorf("%s: no benchmark results", path)
	}
	agg.finish()
	for _, f := range sc.fails.Failures {
		f.File = label
		set.Failures = append(set.Failures, f)
	}
	set.Series = append(set.Series, agg.series...)
	for k, m := range newUnits {
		set.Units[k] = m
	}
	set.Warnings = append(set.Warnings, units.errors()...)
	set.Warnings = append(set.Warnings, sc.finish(agg.results)...)
	set.Files = append(set.Files, label)
	return nil
}

// lastResult is what the truncation check needs of the last result read.
type lastResult struct {
	line    int    // its line, 0 if none
	unknown string // its first unit certbench does not know, as written
}

// checkLastLine reports a last line without its newline that looks like
// a benchmark line but is not a whole result in known units: the file was
// cut while being written (for example "BenchmarkX 10 1184 al", the end
// of "allocs/op" missing).
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

// aggregator adds the results of one input to series as they are read.
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

// maxRounds bounds the distinct rounds an aggregator interns.
const maxRounds = 1 << 14

// add adds rec, the scanner's current result, checked.
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

// finish sorts the values of every series read, and gives back the room
// that appending left at the end of the slices.
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

// byValue sorts a metric's values, and its samples with them, by value,
// then sample.
type byValue struct{ *Metric }

func (m byValue) Len() int { return len(m.Values) }
func (m byValue) Less(i, j int) bool {
	return m.Values[i] < m.Values[j] || (m.Values[i] == m.Values[j] && m.Samples[i] < m.Samples[j])
}
func (m byValue) Swap(i, j int) {
	m.Values[i], m.Values[j] = m.Values[j], m.Values[i]
	m.Samples[i], m.Samples[j] = m.Samples[j], m.Samples[i]
}

// configure makes the snapshot and round of the configuration in effect.
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
		key = strconv.AppendInt(key, int64(len(c.Key)), 10)
		key = append(key, ':')
		key = append(key, c.Key...)
		key = strconv.AppendInt(key, int64(len(c.Value)), 10)
		key = append(key, ':')
		key = append(key, c.Value...)
		key = strconv.AppendBool(key, c.File)
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
	if s == "" {
		return ""
	}
	if r, ok := a.rounds[s]; ok {
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
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].File != b[i].File || !bytes.Equal(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

// metric returns the metric of v's unit, made if new; j, v's position in
// its result line, is where it usually is.
func (s *Series) metric(j int, v benchfmt.Value) *Metric {
	if j < len(s.Metrics) && s.Metrics[j].Unit == v.Unit {
		return s.Metrics[j]
	}
	for _, m := range s.Metrics {
		if m.Unit == v.Unit {
			return m
		}
	}
	m := &Metric{Unit: v.Unit, OrigUnit: v.OrigUnit}
	s.Metrics = append(s.Metrics, m)
	return m
}

// tidyZeros gives zero values the tidied unit their other values get:
// benchfmt tidies a value only when tidying changes it, so "0 ns/op" stays
// ns/op while "12 ns/op" becomes sec/op, and a unit whose samples are
// sometimes 0 (gc-cpu-ns/op of a store that allocates nothing) would be
// split over two tables.
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

package cost

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// The sample types of a profile read from a callgrind file.
const (
	Instructions = "instructions" // Ir (unit "count")
	// EstCycles is Ir plus L1MissCycles per first-level miss (I1mr, D1mr,
	// D1mw) and LLMissCycles per last-level one (ILmr, DLmr, DLmw), with
	// the cache simulation only.
	EstCycles = "est_cycles"
)

// Weights of EstCycles: what a first-level and (more) a last-level cache
// miss cost beyond the instruction, in cycles, as in callgrind's own
// cycle estimation.
const (
	L1MissCycles = 10
	LLMissCycles = 100
)

// Limits of what ReadCallgrind accepts, so that a corrupt or hostile file
// gives an error instead of unbounded memory.
const (
	MaxLine   = 1 << 20 // the longest line
	MaxEvents = 64      // event types a file may declare
	MaxNames  = 1 << 20 // distinct compressed names of a part
)

// A Part is one part of a callgrind output file: the costs collected
// between two dumps, as a profile whose stacks are callgrind's call
// contexts (run with --separate-callers=N for stacks N deep; without it
// a stack is one function).
type Part struct {
	Number int    // the dump's number in the run, from 1
	Cmd    string // the program's command line
	// Trigger is "Program termination", or "dump LABEL" for a part
	// written by a client request or monitor command with that label.
	Trigger string
	Profile *profile.Profile
	// Calls are what each function's calls of another cost with what
	// they called, by caller and callee function (all their contexts),
	// per sample type of Profile.
	Calls map[[2]string][]int64
}

// Label returns the label of a part written by a dump with one, and
// whether it has one.
func (p *Part) Label() (string, bool) { return strings.CutPrefix(p.Trigger, "dump ") }

// AddCalls adds the calls of another part (another thread's) to p's.
func (p *Part) AddCalls(calls map[[2]string][]int64) {
	for k, v := range calls {
		addTo(p.Calls, k, slices.Clone(v))
	}
}

// A SyntaxError is a line of a callgrind file that ReadCallgrind cannot
// read.
type SyntaxError struct {
	File string // as given to the caller; "" for a reader
	Line int    // from 1
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// ErrFormat is wrapped by every error about the content of a callgrind
// file: it is not callgrind's format, or not as callgrind writes it.
var ErrFormat = errors.New("not a callgrind output file")

func (e *SyntaxError) Unwrap() error { return ErrFormat }

// ReadCallgrind reads a callgrind output file (format version 1, names
// compressed or not) and returns its parts, those of one dump's threads
// (--separate-threads=yes: the same number and trigger, one after the
// other) merged into one. A part's samples are its functions' own costs
// per source line, each with the stack of its call context; a caller's
// line is the line of its costliest call of that context. Lines in a
// file other than the function's own (inlined code) are line 0. Errors
// about the content are *SyntaxErrors wrapping ErrFormat.
func ReadCallgrind(r io.Reader) ([]*Part, error) {
	c := &cgReader{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	for sc.Scan() {
		c.line++
		if err := c.read(sc.Text()); err != nil {
			return nil, &SyntaxError{Line: c.line, Msg: err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &SyntaxError{Line: c.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", MaxLine)}
		}
		return nil, err
	}
	if err := c.endPart(); err != nil {
		return nil, &SyntaxError{Line: c.line, Msg: err.Error()}
	}
	if len(c.parts) == 0 {
		return nil, &SyntaxError{Line: c.line, Msg: "no costs (empty file?)"}
	}
	var out []*Part
	for _, p := range c.parts {
		if n := len(out); n > 0 && out[n-1].Number == p.Number && out[n-1].Trigger == p.Trigger {
			m, err := profile.Merge([]*profile.Profile{out[n-1].Profile, p.Profile})
			if err != nil {
				return nil, fmt.Errorf("callgrind: merging the threads of part %d: %w", p.Number, err)
			}
			out[n-1].Profile = m
			out[n-1].AddCalls(p.Calls)
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

// cgReader is ReadCallgrind's state.
type cgReader struct {
	line   int
	parts  []*Part
	events []string // of the file (a later part may declare its own)
	lineAt int      // the index of the line column among the positions, or -1
	pos    []int64  // the last value of each position column

	// The part being read.
	cur     *cgPart
	body    bool              // cur has an fn= or cost line
	names   [3]map[int]string // compressed objects, files and functions
	nnames  int
	fn      int32  // the function (context) of the cost lines that follow, -1 for none
	fnFile  string // its file
	file    string // the file of the cost lines that follow (fi=, fe=)
	cfn     int32  // the callee of the next calls= line, -1 for none
	calls   bool   // a calls= line was read: the next cost line is the call's
	jump    bool   // a jump line was read: the next line is its source position
	number  int
	trigger string
	cmd     string
}

// cgPart is what a part holds until it becomes a profile. Contexts are
// numbered in the order they are met.
type cgPart struct {
	contexts []string         // by number
	number   map[string]int32 // context -> number
	self     map[cgSite][]int64
	files    map[string]string    // function -> its file
	caller   map[int32]cgCall     // context -> the costliest call of it
	edges    map[[2]int32][]int64 // caller and callee context -> the calls' costs
}

// cgSite is a context and a line of its function's file.
type cgSite struct {
	context int32
	line    int64
}

type cgCall struct {
	from int32 // the caller's context
	line int64
	ir   int64 // the call's inclusive instructions (the first event)
}

// context returns the number of a context.
func (p *cgPart) context(name string) int32 {
	n, ok := p.number[name]
	if !ok {
		n = int32(len(p.contexts))
		p.number[name] = n
		p.contexts = append(p.contexts, name)
	}
	return n
}

// read reads one line: a cost line, a header line ("key: value") or a
// body line ("key=value").
func (c *cgReader) read(s string) error {
	if s == "" || s[0] == '#' {
		return nil
	}
	if ch := s[0]; ch >= '0' && ch <= '9' || ch == '+' || ch == '-' || ch == '*' {
		return c.costLine(s)
	}
	i := strings.IndexFunc(s, func(r rune) bool { return r < 'a' || r > 'z' })
	if i <= 0 || (s[i] != '=' && s[i] != ':') {
		return fmt.Errorf("unknown line %q", clip(s))
	}
	key, val := s[:i], strings.TrimSpace(s[i+1:])
	c.part()
	if c.jump {
		return fmt.Errorf("%s line where the source position of a jump must be", key)
	}
	if c.calls && key != "cob" && key != "cfi" && key != "cfl" {
		return fmt.Errorf("%s line where the cost line of a call must be", key)
	}
	switch key {
	case "version":
		if val != "1" {
			return fmt.Errorf("version %q: only version 1 is known", clip(val))
		}
	case "part":
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 {
			return fmt.Errorf("part %q: not a number", clip(val))
		}
		if c.body {
			if err := c.endPart(); err != nil {
				return err
			}
			c.part()
		}
		c.number = n
	case "desc":
		if t, ok := strings.CutPrefix(val, "Trigger: "); ok {
			c.trigger = t
		}
	case "cmd":
		c.cmd = val
	case "events":
		f := strings.Fields(val)
		if len(f) == 0 || len(f) > MaxEvents {
			return fmt.Errorf("events: want 1 to %d event names, have %d", MaxEvents, len(f))
		}
		if c.body {
			return errors.New("events: after cost lines")
		}
		c.events = f
	case "positions":
		f := strings.Fields(val)
		if len(f) == 0 || len(f) > 2 || slices.ContainsFunc(f, func(x string) bool { return x != "line" && x != "instr" }) {
			return fmt.Errorf("positions %q: want line, instr or instr line", clip(val))
		}
		if c.body {
			return errors.New("positions: after cost lines")
		}
		c.pos, c.lineAt = make([]int64, len(f)), slices.Index(f, "line")
	case "ob", "cob":
		_, err := c.name(0, val)
		return err
	case "fl", "fi", "fe", "cfi", "cfl":
		name, err := c.name(1, val)
		switch key {
		case "fl":
			c.fnFile, c.file = name, name
		case "fi", "fe":
			c.file = name
		}
		return err
	case "fn", "cfn":
		name, err := c.name(2, val)
		if err != nil {
			return err
		}
		if key == "cfn" {
			c.cfn = c.cur.context(name)
			return nil
		}
		c.fn, c.file, c.body = c.cur.context(name), c.fnFile, true
		if fs := contextFrames(name); len(fs) > 0 {
			c.cur.files[fs[0]] = c.fnFile
		}
	case "calls":
		if c.fn < 0 || c.cfn < 0 {
			return errors.New("calls= before fn= and cfn=")
		}
		c.calls = true
	case "jump", "jcnd":
		c.jump = true
	}
	// Other lines (creator, pid, cmd, totals, summary, thread, event, ...)
	// are not needed; later formats' header lines are skipped, as the
	// format says readers should.
	return nil
}

// part returns the part being read, starting one at its first line.
func (c *cgReader) part() *cgPart {
	if c.cur == nil {
		c.cur = &cgPart{number: map[string]int32{}, self: map[cgSite][]int64{}, files: map[string]string{}, caller: map[int32]cgCall{},
			edges: map[[2]int32][]int64{}}
		c.names = [3]map[int]string{{}, {}, {}}
		c.nnames, c.body, c.fn, c.cfn = 0, false, -1, -1
		if c.pos == nil {
			c.pos, c.lineAt = make([]int64, 1), 0
		}
		clear(c.pos)
	}
	return c.cur
}

// name reads a possibly compressed name, "(id) name", "(id)" or "name",
// of one of the three kinds (objects, files, functions).
func (c *cgReader) name(kind int, val string) (string, error) {
	c.part()
	if !strings.HasPrefix(val, "(") {
		if val == "" {
			return "", errors.New("empty name")
		}
		return val, nil
	}
	end := strings.IndexByte(val, ')')
	id, err := strconv.Atoi(val[1:max(end, 1)])
	if end < 0 || err != nil || id < 0 {
		return "", fmt.Errorf("%q: bad id", clip(val))
	}
	rest := strings.TrimSpace(val[end+1:])
	have, defined := c.names[kind][id]
	switch {
	case rest == "" && !defined:
		return "", fmt.Errorf("(%d) used before it is defined", id)
	case rest == "":
		return have, nil
	case !defined:
		if c.nnames++; c.nnames > MaxNames {
			return "", fmt.Errorf("more than %d names", MaxNames)
		}
	}
	c.names[kind][id] = rest
	return rest, nil
}

func (c *cgReader) costLine(s string) error {
	p := c.part()
	c.body = true
	f := strings.Fields(s)
	if len(f) < len(c.pos) {
		return fmt.Errorf("cost line %q: want %d position(s)", clip(s), len(c.pos))
	}
	for i := range c.pos {
		v, err := position(c.pos[i], f[i])
		if err != nil {
			return fmt.Errorf("cost line %q: %v", clip(s), err)
		}
		c.pos[i] = v
	}
	if c.jump {
		c.jump = false
		return nil
	}
	if len(c.events) == 0 {
		return errors.New("cost line before the events: line")
	}
	if c.fn < 0 {
		return errors.New("cost line before any fn= line")
	}
	costs := f[len(c.pos):]
	if len(costs) > len(c.events) {
		return fmt.Errorf("cost line %q: %d costs for %d events", clip(s), len(costs), len(c.events))
	}
	v := make([]int64, len(c.events))
	for i, x := range costs {
		n, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return fmt.Errorf("cost %q: not a count", clip(x))
		}
		v[i] = int64(n) // callgrind's own unsigned arithmetic can wrap below zero
	}
	var line int64
	if c.lineAt >= 0 && c.file == c.fnFile {
		line = c.pos[c.lineAt]
	}
	if c.calls {
		c.calls = false
		if old, ok := p.caller[c.cfn]; !ok || v[0] > old.ir {
			p.caller[c.cfn] = cgCall{from: c.fn, line: line, ir: v[0]}
		}
		addTo(p.edges, [2]int32{c.fn, c.cfn}, v)
		return nil
	}
	addTo(p.self, cgSite{c.fn, line}, v)
	return nil
}

// position reads a position column: a number (decimal or 0x hex), "+N" or
// "-N" relative to the previous one, or "*" for the same.
func position(last int64, s string) (int64, error) {
	switch {
	case s == "*":
		return last, nil
	case s[0] == '+' || s[0] == '-':
		d, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("position %q: not a number", clip(s))
		}
		return last + d, nil
	}
	v, err := strconv.ParseUint(s, 0, 64) // instruction addresses may use all 64 bits
	if err != nil {
		return 0, fmt.Errorf("position %q: not a number", clip(s))
	}
	return int64(v), nil
}

// endPart turns the part read so far into a profile.
func (c *cgReader) endPart() error {
	p := c.cur
	if p == nil {
		return nil
	}
	if c.calls {
		return errors.New("calls= line without the cost line that must follow it")
	}
	c.cur, c.fnFile, c.file = nil, "", ""
	if len(c.events) == 0 {
		return errors.New("no events: line")
	}
	prof, calls, err := p.profile(c.events)
	if err != nil {
		return err
	}
	part := &Part{Number: c.number, Cmd: c.cmd, Trigger: c.trigger, Profile: prof, Calls: calls}
	if label, ok := part.Label(); ok {
		SetInfo(prof, infoOfLabel(label))
	}
	prof.Comments = append(prof.Comments, "callgrind part "+strconv.Itoa(c.number)+": "+c.trigger)
	c.parts = append(c.parts, part)
	return nil
}

// profile builds the part's profile, a sample per context and line, and
// its calls by function.
func (p *cgPart) profile(events []string) (*profile.Profile, map[[2]string][]int64, error) {
	value, types, err := sampleValues(events)
	if err != nil {
		return nil, nil, err
	}
	calls := map[[2]string][]int64{}
	for e, v := range p.edges {
		var k [2]string
		for i, ctx := range e {
			if fs := contextFrames(p.contexts[ctx]); len(fs) > 0 {
				k[i] = fs[0]
			}
		}
		addTo(calls, k, value(v))
	}
	b := newBuilder(types)
	sites := slices.SortedFunc(maps.Keys(p.self), func(x, y cgSite) int {
		if c := strings.Compare(p.contexts[x.context], p.contexts[y.context]); c != 0 {
			return c
		}
		return cmp.Compare(x.line, y.line)
	})
	// The callers of a context are the same for each of its lines.
	callers := make([][]*profile.Location, len(p.contexts))
	leaf := make([]string, len(p.contexts))
	for _, k := range sites {
		if callers[k.context] == nil {
			frames := contextFrames(p.contexts[k.context])
			if len(frames) == 0 {
				continue
			}
			leaf[k.context] = frames[0]
			ctx, tail := k.context, []*profile.Location{}
			for _, fr := range frames[1:] {
				var line int64
				if call, ok := p.caller[ctx]; ok {
					line, ctx = call.line, call.from
				} else {
					ctx = -1
				}
				tail = append(tail, b.location(fr, p.files[fr], line))
			}
			callers[k.context] = tail
		}
		loc := b.location(leaf[k.context], p.files[leaf[k.context]], k.line)
		b.p.Sample = append(b.p.Sample, &profile.Sample{Value: value(p.self[k]), Location: append([]*profile.Location{loc}, callers[k.context]...)})
	}
	return b.p, calls, nil
}

// sampleValues returns how a cost vector of events becomes sample values,
// and the sample types.
func sampleValues(events []string) (func([]int64) []int64, []*profile.ValueType, error) {
	at := func(name string) int { return slices.Index(events, name) }
	ir := at("Ir")
	if ir < 0 {
		return nil, nil, errors.New("no Ir event (instructions)")
	}
	count := func(t string) *profile.ValueType { return &profile.ValueType{Type: t, Unit: "count"} }
	l1 := []int{at("I1mr"), at("D1mr"), at("D1mw")}
	ll := []int{at("ILmr"), at("DLmr"), at("DLmw")}
	if slices.Contains(l1, -1) || slices.Contains(ll, -1) {
		return func(v []int64) []int64 { return []int64{v[ir]} }, []*profile.ValueType{count(Instructions)}, nil
	}
	return func(v []int64) []int64 {
		est := v[ir]
		for _, i := range l1 {
			est = addSat(est, L1MissCycles*v[i])
		}
		for _, i := range ll {
			est = addSat(est, LLMissCycles*v[i])
		}
		return []int64{v[ir], est}
	}, []*profile.ValueType{count(Instructions), count(EstCycles)}, nil
}

// contextFrames splits a callgrind call context ("f'g'h": f called by g,
// called by h) into its functions, innermost first, dropping recursion
// levels ("f'2").
func contextFrames(ctx string) []string {
	fs := strings.Split(ctx, "'")
	return slices.DeleteFunc(fs, func(f string) bool { return f == "" || strings.Trim(f, "0123456789") == "" })
}

// infoOfLabel reads a window label's key=value words ("scenario=x
// store=y sample=3 ops=10") as an Info.
func infoOfLabel(label string) Info {
	p := &profile.Profile{Comments: []string{infoComment + " " + label}}
	return InfoOf(p)
}

// addTo adds v to m[k] (addSat), or makes v m[k] if m has no k.
func addTo[K comparable](m map[K][]int64, k K, v []int64) {
	have := m[k]
	if have == nil {
		m[k] = v
		return
	}
	for i := range min(len(v), len(have)) {
		have[i] = addSat(have[i], v[i])
	}
}

// addSat adds b to a, at most math.MaxInt64.
func addSat(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func clip(s string) string {
	const n = 60
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// A builder makes a profile from stacks of function names, without
// addresses: one location per function and line.
type builder struct {
	p     *profile.Profile
	funcs map[[2]string]*profile.Function
	locs  map[locKey]*profile.Location
}

type locKey struct {
	fn   *profile.Function
	line int64
}

func newBuilder(types []*profile.ValueType) *builder {
	m := &profile.Mapping{ID: 1, HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
	return &builder{
		p: &profile.Profile{SampleType: types, PeriodType: &profile.ValueType{Type: types[0].Type, Unit: types[0].Unit}, Period: 1,
			Mapping: []*profile.Mapping{m}, DefaultSampleType: types[0].Type},
		funcs: map[[2]string]*profile.Function{},
		locs:  map[locKey]*profile.Location{},
	}
}

// location returns the location of a line of a function.
func (b *builder) location(name, file string, line int64) *profile.Location {
	fk := [2]string{name, file}
	fn := b.funcs[fk]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: name, SystemName: name, Filename: file}
		b.funcs[fk] = fn
		b.p.Function = append(b.p.Function, fn)
	}
	lk := locKey{fn, line}
	loc := b.locs[lk]
	if loc == nil {
		loc = &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: b.p.Mapping[0], Line: []profile.Line{{Function: fn, Line: line}}}
		b.locs[lk] = loc
		b.p.Location = append(b.p.Location, loc)
	}
	return loc
}

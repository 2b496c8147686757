package callgrind

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Limits of what Parse accepts, so that a corrupt or hostile file gives an
// error instead of unbounded memory.
const (
	MaxLine   = 1 << 20 // the longest line
	MaxEvents = 64      // event types a file may declare
	MaxNames  = 1 << 20 // distinct compressed names (objects, files, functions) of a part
)

// A Profile is one part of a callgrind output file: the costs collected
// between two dumps (or between the start and the first dump, or the last
// dump and the end of the program).
type Profile struct {
	Creator string // the tool ("callgrind-3.19.0")
	Cmd     string
	PID     int
	Part    int // the dump's number in the run, from 1
	// Trigger is "Program termination", or "dump LABEL" for a part
	// written by Dump(LABEL).
	Trigger string
	Desc    []string // the other "desc:" lines, without "desc: "
	Events  []string // the cost columns ("Ir", with the cache simulation "Dr", "I1mr", ...)
	// Totals are one per event: the "totals:" line, else "summary:", else
	// the sum of every function's self costs.
	Totals    []uint64
	Functions []*Function // every function with a cost or call, in file order
}

// A Function is what one function cost in a part.
type Function struct {
	Name, Object, File string   // symbol, binary, source file of its first cost line ("" if unknown)
	Self               []uint64 // its own instructions' cost, per event
	Calls              []*Call  // one per callee, in file order
}

// A Call is what a function's calls of one callee cost.
type Call struct {
	Callee *Function
	Count  uint64
	// Inclusive is the calls' cost with everything they called, per event;
	// recursion counts a cost once per frame it is under.
	Inclusive []uint64
}

// Label returns the label a part written by Dump(label) carries, and
// whether it has one.
func (p *Profile) Label() (string, bool) {
	return strings.CutPrefix(p.Trigger, dumpCmd)
}

// Event returns the index of the named event in p.Events, or -1.
func (p *Profile) Event(name string) int { return slices.Index(p.Events, name) }

// Total returns the total of the named event, and whether p has it.
func (p *Profile) Total(name string) (uint64, bool) {
	i := p.Event(name)
	if i < 0 || i >= len(p.Totals) {
		return 0, false
	}
	return p.Totals[i], true
}

// Inclusive returns the cost of f's own instructions and of every call
// it made, one per event.
func (f *Function) Inclusive() []uint64 {
	out := slices.Clone(f.Self)
	for _, c := range f.Calls {
		for i, v := range c.Inclusive {
			out[i] = addSat(out[i], v)
		}
	}
	return out
}

// A SyntaxError is a line of a callgrind file that Parse cannot read.
type SyntaxError struct {
	File string // as given to ParseFile; "" for a reader
	Line int    // from 1
	Msg  string
}

func (e *SyntaxError) Error() string {
	if e.File != "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// ErrFormat is wrapped by every error about the content of a file (not
// about reading it): it is not callgrind's format, or not as callgrind
// writes it.
var ErrFormat = errors.New("not a callgrind output file")

func (e *SyntaxError) Unwrap() error { return ErrFormat }

// ParseFile reads the callgrind output file name; errors name the file
// and line.
func ParseFile(name string) ([]*Profile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ps, err := Parse(f)
	var se *SyntaxError
	if errors.As(err, &se) {
		se.File = name
	}
	return ps, err
}

// Parse reads a callgrind output file (format version 1, compressed or
// not) and returns its parts (one, unless --combine-dumps=yes), costs
// summed per function; instruction positions and jump lines are ignored.
// Errors about the content are *SyntaxErrors wrapping ErrFormat.
func Parse(r io.Reader) ([]*Profile, error) {
	p := &parser{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLine)
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return nil, &SyntaxError{Line: p.line, Msg: err.Error()}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &SyntaxError{Line: p.line + 1, Msg: fmt.Sprintf("line longer than %d bytes", MaxLine)}
		}
		return nil, err
	}
	if p.line == 0 || p.cur == nil && len(p.out) == 0 {
		return nil, &SyntaxError{Line: p.line, Msg: "empty file"}
	}
	if p.cur != nil {
		if err := p.closePart(); err != nil {
			return nil, &SyntaxError{Line: p.line, Msg: err.Error()}
		}
		p.out = append(p.out, p.cur)
	}
	return mergeThreads(p.out), nil
}

// mergeThreads merges consecutive parts of one dump (one per thread with
// --separate-threads=yes: the same part number and trigger) into one:
// their functions listed one after the other, their totals summed.
func mergeThreads(ps []*Profile) []*Profile {
	out := ps[:0:0]
	for _, p := range ps {
		if n := len(out); n > 0 && out[n-1].Part == p.Part && out[n-1].Trigger == p.Trigger && slices.Equal(out[n-1].Events, p.Events) {
			last := *out[n-1]
			last.Functions = append(slices.Clip(last.Functions), p.Functions...)
			last.Totals = slices.Clone(last.Totals)
			for i, v := range p.Totals {
				last.Totals[i] = addSat(last.Totals[i], v)
			}
			out[n-1] = &last
			continue
		}
		out = append(out, p)
	}
	return out
}

type parser struct {
	line   int
	out    []*Profile
	cur    *Profile
	seenFn bool // a body line of cur has been read

	// Header fields carried from one part to the next (a combined file
	// writes them once).
	creator, cmd string
	pid          int
	positions    int      // number of position columns: 1 (line) or 2 (instr line)
	events       []string // the last events: line

	// Compressed names, per part: objects, files and functions.
	obs, files, fns map[int]string
	names           int

	// Context of the cost lines that follow.
	ob, fl string
	fn     *Function
	cfn    *Function
	cob    string
	calls  int64 // calls=N pending: the next cost line is the call's; -1 for none
	jump   bool  // a jump line pending: the next line is its source position
	byName map[[2]string]*Function
	pos    []int64 // last position of each column, for relative positions
	sum    []uint64
	hasTot bool
}

func (p *parser) newPart() {
	if p.cur != nil {
		p.out = append(p.out, p.cur)
	}
	n := max(p.positions, 1)
	*p = parser{line: p.line, out: p.out, creator: p.creator, cmd: p.cmd, pid: p.pid, positions: n, events: p.events,
		cur: &Profile{Creator: p.creator, Cmd: p.cmd, PID: p.pid, Events: p.events},
		obs: map[int]string{}, files: map[int]string{}, fns: map[int]string{},
		calls: -1, byName: map[[2]string]*Function{}, pos: make([]int64, n)}
}

// closePart fills Totals of the current part when the file gave none.
func (p *parser) closePart() error {
	if p.calls >= 0 {
		return errors.New("calls= line without the cost line that must follow it")
	}
	if len(p.cur.Events) == 0 {
		return errors.New("no events: line")
	}
	if !p.hasTot {
		p.cur.Totals = p.sum
		if p.cur.Totals == nil {
			p.cur.Totals = make([]uint64, len(p.cur.Events))
		}
	}
	return nil
}

// parseLine reads one line: a cost line, a header line ("key: value") or
// a body line ("key=value").
func (p *parser) parseLine(s string) error {
	if s == "" || s[0] == '#' {
		return nil
	}
	if p.cur == nil {
		p.newPart()
	}
	c := s[0]
	if c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*' {
		return p.costLine(s)
	}
	key, val, ok := cutKey(s)
	if !ok {
		return fmt.Errorf("unknown line %q", clip(s))
	}
	if p.jump && key != "" {
		return fmt.Errorf("%s= line where the source position of a jump must be", key)
	}
	switch key {
	case "version":
		if strings.TrimSpace(val) != "1" {
			return fmt.Errorf("version %q: only version 1 is known", clip(val))
		}
	case "creator":
		p.creator, p.cur.Creator = val, val
	case "cmd":
		p.cmd = strings.TrimSpace(val)
		p.cur.Cmd = p.cmd
	case "pid":
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || n < 0 {
			return fmt.Errorf("pid %q: not a process id", clip(val))
		}
		p.pid, p.cur.PID = n, n
	case "part":
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || n < 0 {
			return fmt.Errorf("part %q: not a number", clip(val))
		}
		if p.seenFn || p.hasTot {
			if err := p.closePart(); err != nil {
				return err
			}
			p.newPart()
		}
		p.cur.Part = n
	case "desc":
		if t, ok := strings.CutPrefix(val, "Trigger: "); ok {
			p.cur.Trigger = t
		} else {
			p.cur.Desc = append(p.cur.Desc, val)
		}
	case "positions", "events":
		f := strings.Fields(val)
		switch {
		case p.seenFn || len(p.cur.Functions) > 0:
			return fmt.Errorf("%s: after cost lines", key)
		case key == "events" && (len(f) == 0 || len(f) > MaxEvents):
			return fmt.Errorf("events: want 1 to %d event names, have %d", MaxEvents, len(f))
		case key == "events":
			p.cur.Events, p.events = f, f
		case len(f) == 0 || len(f) > 2:
			return fmt.Errorf("positions %q: want line, instr or instr line", clip(val))
		default:
			for _, x := range f {
				if x != "line" && x != "instr" {
					return fmt.Errorf("positions %q: unknown position %q", clip(val), clip(x))
				}
			}
			p.positions, p.pos = len(f), make([]int64, len(f))
		}
	case "summary", "totals":
		v, err := p.costs(strings.Fields(val))
		if err != nil {
			return fmt.Errorf("%s: %v", key, err)
		}
		if key == "totals" || !p.hasTot {
			p.cur.Totals, p.hasTot = v, true
		}
	case "ob", "cob", "fl", "fi", "fe", "cfl", "cfi": // only ob, cob and fl are kept; the others may define compressed names
		table := p.files
		if key == "ob" || key == "cob" {
			table = p.obs
		}
		name, err := p.name(table, val)
		if err != nil {
			return fmt.Errorf("%s=: %v", key, err)
		}
		switch key {
		case "ob":
			p.ob = name
		case "cob":
			p.cob = name
		case "fl":
			p.fl = name
		}
	case "fn", "cfn": // the function of the cost lines that follow, or the callee of the next calls= line
		name, err := p.name(p.fns, val)
		if err != nil {
			return fmt.Errorf("%s=: %v", key, err)
		}
		if key == "cfn" {
			p.cfn = p.function(cmp.Or(p.cob, p.ob), name)
			return nil
		}
		if p.calls >= 0 {
			return errors.New("fn= line where the cost line of a call must be")
		}
		p.fn = p.function(p.ob, name)
		if p.fn.File == "" {
			p.fn.File = p.fl
		}
		p.cob, p.cfn = "", nil
		p.seenFn = true
	case "calls": // the next cost line is that many calls from the current function to the current callee
		f := strings.Fields(val)
		if len(f) < 1 {
			return errors.New("calls=: no count")
		}
		n, err := strconv.ParseUint(f[0], 10, 63)
		if err != nil {
			return fmt.Errorf("calls=%q: not a count", clip(val))
		}
		if p.fn == nil || p.cfn == nil {
			return errors.New("calls= before fn= and cfn=")
		}
		p.calls = int64(n)
	case "jump", "jcnd":
		p.jump = true
	case "thread", "event":
		// A thread number, or an event's long name or formula ("event:
		// CEst = Ir + ..."): not needed.
	default:
		// Other header lines of later formats are skipped, as the
		// format says readers should.
		if p.seenFn {
			return fmt.Errorf("unknown line %q", clip(s))
		}
	}
	return nil
}

// cutKey splits "key: value" (header lines) or "key=value" (body
// lines); keys are lower-case letters.
func cutKey(s string) (key, val string, ok bool) {
	i := strings.IndexFunc(s, func(r rune) bool { return r < 'a' || r > 'z' })
	switch {
	case i > 0 && s[i] == '=':
		return s[:i], s[i+1:], true
	case i > 0 && s[i] == ':':
		return s[:i], strings.TrimPrefix(s[i+1:], " "), true
	}
	return "", "", false
}

// name reads a possibly compressed name, "(id) name", "(id)" or "name".
func (p *parser) name(table map[int]string, val string) (string, error) {
	val = strings.TrimSpace(val)
	if !strings.HasPrefix(val, "(") {
		if val == "" {
			return "", errors.New("empty name")
		}
		return val, nil
	}
	end := strings.IndexByte(val, ')')
	if end < 0 {
		return "", fmt.Errorf("%q: no ) after the id", clip(val))
	}
	id, err := strconv.Atoi(val[1:end])
	if err != nil || id < 0 {
		return "", fmt.Errorf("%q: bad id", clip(val))
	}
	rest := strings.TrimSpace(val[end+1:])
	have, defined := table[id]
	switch {
	case rest == "" && !defined:
		return "", fmt.Errorf("(%d) used before it is defined", id)
	case rest == "":
		return have, nil
	case !defined:
		if p.names++; p.names > MaxNames {
			return "", fmt.Errorf("more than %d names", MaxNames)
		}
	}
	table[id] = rest
	return rest, nil
}

func (p *parser) function(ob, name string) *Function {
	k := [2]string{ob, name}
	if f := p.byName[k]; f != nil {
		return f
	}
	f := &Function{Name: name, Object: ob, Self: make([]uint64, len(p.cur.Events))}
	p.byName[k] = f
	p.cur.Functions = append(p.cur.Functions, f)
	return f
}

func (p *parser) costLine(s string) error {
	f := strings.Fields(s)
	if len(f) < p.positions {
		return fmt.Errorf("cost line %q: want %d position(s)", clip(s), p.positions)
	}
	for i := 0; i < p.positions; i++ {
		v, err := p.position(i, f[i])
		if err != nil {
			return fmt.Errorf("cost line %q: %v", clip(s), err)
		}
		p.pos[i] = v
	}
	if p.jump {
		p.jump = false
		return nil
	}
	if len(p.cur.Events) == 0 {
		return errors.New("cost line before the events: line")
	}
	if p.fn == nil {
		return errors.New("cost line before any fn= line")
	}
	v, err := p.costs(f[p.positions:])
	if err != nil {
		return fmt.Errorf("cost line %q: %v", clip(s), err)
	}
	if p.calls >= 0 {
		p.addCall(v)
		return nil
	}
	if p.sum == nil {
		p.sum = make([]uint64, len(p.cur.Events))
	}
	for i, x := range v {
		p.fn.Self[i] = addSat(p.fn.Self[i], x)
		p.sum[i] = addSat(p.sum[i], x)
	}
	return nil
}

func (p *parser) addCall(v []uint64) {
	i := slices.IndexFunc(p.fn.Calls, func(c *Call) bool { return c.Callee == p.cfn })
	if i < 0 {
		i = len(p.fn.Calls)
		p.fn.Calls = append(p.fn.Calls, &Call{Callee: p.cfn, Inclusive: make([]uint64, len(p.cur.Events))})
	}
	c := p.fn.Calls[i]
	c.Count = addSat(c.Count, uint64(p.calls))
	for i, x := range v {
		c.Inclusive[i] = addSat(c.Inclusive[i], x)
	}
	p.calls = -1
	p.cob = "" // a called object is given for one call (callgrind repeats it)
}

// position reads position column i: a number (decimal or 0x hex), "+N" or
// "-N" relative to the previous one, or "*" for the same.
func (p *parser) position(i int, s string) (int64, error) {
	switch {
	case s == "*":
		return p.pos[i], nil
	case s[0] == '+' || s[0] == '-':
		d, err := strconv.ParseInt(s, 10, 64) // the sign is the direction
		if err != nil || d == math.MinInt64 {
			return 0, fmt.Errorf("position %q: not a number", clip(s))
		}
		return p.pos[i] + d, nil
	}
	v, err := strconv.ParseUint(s, 0, 64) // instruction addresses may use all 64 bits
	if err != nil {
		return 0, fmt.Errorf("position %q: not a number", clip(s))
	}
	return int64(v), nil
}

// costs reads up to one cost per event; missing trailing costs are 0.
func (p *parser) costs(f []string) ([]uint64, error) {
	n := len(p.cur.Events)
	if n == 0 {
		return nil, errors.New("costs before the events: line")
	}
	if len(f) > n {
		return nil, fmt.Errorf("%d costs for %d events", len(f), n)
	}
	v := make([]uint64, n)
	for i, s := range f {
		x, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("cost %q: not a count", clip(s))
		}
		v[i] = x
	}
	return v, nil
}

func addSat(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
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

// Weights of the cycle estimate (see EstCycles): what a first-level and
// (more) a last-level cache miss cost beyond the instruction, in cycles,
// as in callgrind's own cycle estimation.
const (
	L1MissCycles = 10
	LLMissCycles = 100
)

// EstCycles returns the part's cycle estimate from its totals: Ir, plus
// L1MissCycles per first-level miss (I1mr, D1mr, D1mw) and LLMissCycles
// more per last-level one (ILmr, DLmr, DLmw). It reports false without
// cache simulation events.
func (p *Profile) EstCycles() (float64, bool) {
	f, err := EstimatedCycles.of(p)
	if err != nil || len(p.Totals) < len(p.Events) {
		return 0, false
	}
	return f(p.Totals), true
}

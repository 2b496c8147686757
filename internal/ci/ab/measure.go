package ab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/results"
)

// An InputError is bad input (exit code 2).
type InputError struct{ Err error }

// Error returns the message.
func (e *InputError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *InputError) Unwrap() error { return e.Err }

func inputf(format string, args ...any) error { return &InputError{fmt.Errorf(format, args...)} }

// A Side is one certbench binary of a comparison.
type Side struct {
	Bin    string   // the certbench binary
	Stores []string // nil: Options.Stores
	// As, when set, names the side's one store in its merged results and
	// profiles (peer check gates traefik@base and traefik@head as traefik).
	As string
	// Normalize, when set, rewrites the names in the side's profiles.
	Normalize func(string) string
	// Measured, when set, is this side's results measured before (a
	// cached base): its rounds are not run.
	Measured string
}

// Options configure Measure.
type Options struct {
	Sides [2]Side
	// Stores and Scenarios are what to run; Count the rounds; Ops, when
	// positive, the ops per sample instead of each scenario's.
	Stores, Scenarios []string
	Count, Ops        int
	// ByRound runs one process per side and round with every scenario;
	// by default each scenario has its own process.
	ByRound bool
	// SimOps gives scenarios ops per sample of their own on the
	// simulated CPU (Simulate), over Ops: each such group of scenarios
	// runs in a process of its own.
	SimOps map[string]int
	// RunArgs are more arguments of certbench run.
	RunArgs []string
	// Policy is the gate's; Out the output directory; Log, when not nil,
	// gets a line per step.
	Policy gate.Policy
	Out    string
	Log    io.Writer
}

// A Result is what Measure measured and decided.
type Result struct {
	// Verdict is the gate's, with the allocation sites that grew.
	Verdict *gate.Verdict
	// Base and Head are the merged results.
	Base, Head string
	// Notes say what was left out and why; Dropped are the stores left
	// out of later rounds after they did not return.
	Notes   []string
	Dropped []string
}

// hangReason is in the reason of a sample whose store did not return.
const hangReason = "did not return within"

// Measure runs the sides' binaries in Rounds (run --count 1 --round N),
// merges each side's samples into Out/base.txt and Out/head.txt, gates
// them and, after an allocation regression, profiles both sides into
// Out/*-profiles to name the sites that grew. A store that did not
// return in a sample is left out of both sides' later rounds.
func Measure(ctx context.Context, o Options) (*Result, error) {
	raw := filepath.Join(o.Out, "raw")
	for _, old := range []string{raw, filepath.Join(o.Out, "base-profiles"), filepath.Join(o.Out, "head-profiles")} {
		os.RemoveAll(old) // an earlier run's
	}
	if err := os.MkdirAll(raw, 0o755); err != nil {
		return nil, err
	}
	groups := [][]string{o.Scenarios}
	if !o.ByRound {
		groups = nil
		for _, s := range o.Scenarios {
			groups = append(groups, []string{s})
		}
	}
	m := &measurer{o: o, raw: raw, hung: map[string]bool{}}
	err := Rounds(ctx, o.Count, len(groups), o.Log, func(ctx context.Context, s Sample) error {
		return m.sample(ctx, s, groups[s.Group])
	})
	if err != nil {
		return nil, err
	}
	res := &Result{Base: filepath.Join(o.Out, "base.txt"), Head: filepath.Join(o.Out, "head.txt"), Notes: m.notes, Dropped: m.dropped}
	for i, path := range []string{res.Base, res.Head} {
		if err := m.merge(i, path); err != nil {
			return nil, err
		}
	}
	hangs, _ := filepath.Glob(filepath.Join(raw, "*-hang-*.txt"))
	if stacks, _ := filepath.Glob(filepath.Join(raw, "*-panic-*.txt")); len(stacks)+len(hangs) > 0 {
		stacks = append(stacks, hangs...)
		for i := range stacks {
			stacks[i] = "raw/" + filepath.Base(stacks[i])
		}
		res.Notes = append(res.Notes, "stacks of the stores that failed, in the output directory: "+strings.Join(stacks, " "))
	}
	if res.Verdict, err = GateFiles(res.Base, res.Head, o.Policy); err != nil {
		return nil, err
	}
	m.profile(ctx, res.Verdict, false)
	return res, nil
}

type measurer struct {
	o       Options
	raw     string
	hung    map[string]bool // by the name in the merged results
	dropped []string
	notes   []string
	files   [2][]string
}

func (m *measurer) stores(side int) []string {
	if s := m.o.Sides[side].Stores; s != nil {
		return s
	}
	return m.o.Stores
}

// name is a side's store as the merged results name it.
func (m *measurer) name(side int, store string) string {
	if as := m.o.Sides[side].As; as != "" {
		return as
	}
	return store
}

// sample runs one sample and drops the stores that hung in it.
func (m *measurer) sample(ctx context.Context, s Sample, scenarios []string) error {
	side := m.o.Sides[s.Side]
	if side.Measured != "" {
		return nil
	}
	var stores []string
	for _, st := range m.stores(s.Side) {
		if !m.hung[m.name(s.Side, st)] {
			stores = append(stores, st)
		}
	}
	if len(stores) == 0 {
		return nil
	}
	file := filepath.Join(m.raw, s.Name())
	args := Options{Stores: stores, Scenarios: scenarios, Count: 1, Ops: m.o.Ops, RunArgs: m.o.RunArgs}.runArgs(file, s.Round, false)
	// 1: a store failed, recorded in the file (the gate decides).
	if code, stderr, err := Command(ctx, side.Bin, nil, args...); err != nil || code > 1 {
		return commandError("certbench run", code, stderr, err)
	}
	m.files[s.Side] = append(m.files[s.Side], file)
	set, err := results.Load(file)
	if err != nil {
		return &InputError{err}
	}
	for _, f := range set.Failures {
		if name := m.name(s.Side, f.Value(results.StoreKey)); strings.Contains(f.Reason, hangReason) && !m.hung[name] {
			m.hung[name] = true
			m.dropped = append(m.dropped, name)
			m.notes = append(m.notes, fmt.Sprintf("store %s did not return at %s in round %d: left out of the later rounds on both sides", name, Sides[s.Side], s.Round))
		}
	}
	return nil
}

// runArgs are the arguments of a child certbench run, the one place they
// are made: Count samples (with round, when positive, as their round; on
// the simulated CPU with simulate) of o's stores and scenarios (each when
// given; else run's defaults), Ops ops each when positive, and RunArgs,
// written to out.
func (o Options) runArgs(out string, round int, simulate bool) []string {
	args := []string{"run", "-q", "--count", strconv.Itoa(o.Count), "-o", out}
	if round > 0 {
		args = append(args, "--round", strconv.Itoa(round))
	}
	if simulate {
		args = append(args, "--simulate")
	}
	for _, f := range [2][2]string{{"--stores", strings.Join(o.Stores, ",")}, {"--scenarios", strings.Join(o.Scenarios, ",")}} {
		if f[1] != "" {
			args = append(args, f[:]...)
		}
	}
	return append(append(args, o.opsArgs()...), o.RunArgs...)
}

func (o Options) opsArgs() []string {
	if o.Ops > 0 {
		return []string{"--ops", strconv.Itoa(o.Ops)}
	}
	return nil
}

// merge writes side's merged samples to path, its store renamed to As.
func (m *measurer) merge(side int, path string) error {
	s := m.o.Sides[side]
	if s.Measured != "" {
		return copyFile(s.Measured, path)
	}
	var b bytes.Buffer
	if _, err := results.Merge(&b, m.files[side]...); err != nil {
		return &InputError{fmt.Errorf("merging the %s results: %w", Sides[side], err)}
	}
	out := b.Bytes()
	if s.As != "" {
		for _, st := range m.stores(side) {
			out = renameStore(out, st, s.As)
		}
	}
	return os.WriteFile(path, out, 0o644)
}

// renameStore renames a store in a results file's benchmark names.
func renameStore(file []byte, from, to string) []byte {
	old, repl := "/"+results.StoreKey+"="+from, "/"+results.StoreKey+"="+to
	r := strings.NewReplacer(old+"-", repl+"-", old+"/", repl+"/", old+" ", repl+" ", old+"\t", repl+"\t", old+"\n", repl+"\n")
	return []byte(r.Replace(string(file)))
}

// profile names the store lines behind v's regressions in allocations
// (heap profiles, in Out/SIDE-profiles) or, with simulated, on the
// simulated CPU (a window with stacks a scenario, at the ops it was
// measured with, in Out/sim-SIDE-profiles), from profiles of both sides,
// or adds a problem saying why not.
func (m *measurer) profile(ctx context.Context, v *gate.Verdict, simulated bool) {
	var stores, regressed []string
	for _, f := range v.Findings {
		if f.Status == gate.Regressed && gate.HasSites(f.Unit) && results.IsSimulated(f.Unit) == simulated {
			stores, regressed = appendNew(stores, f.Store), appendNew(regressed, f.Scenario)
		}
	}
	if len(regressed) == 0 {
		return
	}
	what, prefix, groups := "allocation", "", []simGroup{{regressed, m.o.Ops}}
	if simulated {
		what, prefix, groups = "simulated CPU", "sim-", nil
		for _, g := range m.o.simGroups() {
			if g.scenarios = slices.DeleteFunc(g.scenarios, func(sc string) bool { return !slices.Contains(regressed, sc) }); len(g.scenarios) > 0 {
				groups = append(groups, g)
			}
		}
	}
	logf(m.o.Log, "ab: %s regression: profiling %s on %s with both sides", what, strings.Join(stores, ","), strings.Join(regressed, ","))
	dirs := [2]string{filepath.Join(m.o.Out, prefix+"base-profiles"), filepath.Join(m.o.Out, prefix+"head-profiles")}
	for i, side := range m.o.Sides {
		for _, g := range groups {
			if err := m.profileSide(ctx, i, side, stores, g, dirs[i], simulated); err != nil {
				v.Problems = append(v.Problems, gate.Problem{Kind: gate.NoSites, Message: what + " sites not named: " + err.Error()})
				return
			}
		}
	}
	folders := cost.Folders{Base: dirs[0], Head: dirs[1]}
	v.AddSites(folders, 5)
	m.drawFlames(v, folders, prefix, simulated)
}

// drawFlames writes, for each benchmark whose regressions profile named,
// the differential flame graphs of their units into
// Out/PREFIXflame.<scenario>.<store>.html, and names the file in the
// findings.
func (m *measurer) drawFlames(v *gate.Verdict, folders cost.Folders, prefix string, simulated bool) {
	units := map[[2]string][]string{}
	var order [][2]string
	for _, f := range v.Findings {
		if f.Status != gate.Regressed || len(f.Sites) == 0 || results.IsSimulated(f.Unit) != simulated {
			continue
		}
		k := [2]string{f.Scenario, f.Store}
		if units[k] == nil {
			order = append(order, k)
		}
		units[k] = append(units[k], f.Unit)
	}
	for _, k := range order {
		name := prefix + "flame." + k[0] + "." + k[1] + ".html"
		if err := folders.WriteFlame(filepath.Join(m.o.Out, name), k[0], k[1], units[k]); err != nil {
			v.Problems = append(v.Problems, gate.Problem{Kind: gate.NoSites, Message: "no flame graph of " + k[0] + "/" + k[1] + ": " + err.Error()})
			continue
		}
		logf(m.o.Log, "ab: where the cost moved: %s", filepath.Join(m.o.Out, name))
		for _, f := range v.Findings {
			if f.Scenario == k[0] && f.Store == k[1] && slices.Contains(units[k], f.Unit) {
				f.Flame = name
			}
		}
	}
}

// profileSide profiles a side's stores on a group's scenarios into dir.
func (m *measurer) profileSide(ctx context.Context, i int, side Side, stores []string, g simGroup, dir string, simulated bool) error {
	var run []string
	for _, st := range m.stores(i) {
		if slices.Contains(stores, m.name(i, st)) {
			run = append(run, st)
		}
	}
	to := dir
	if side.As != "" {
		to = filepath.Join(m.raw, filepath.Base(dir)) // [sim-]SIDE-profiles
	}
	args := []string{"profile", "--all", "-q", "--stores", strings.Join(run, ","), "--scenarios", strings.Join(g.scenarios, ","), "--out", to}
	suffix := ".pb.gz" // the heap profile's, FileName; the simulated CPU's windows end .<n>.sim.pb.gz
	if simulated {
		args, suffix = append(args, "--simulate"), ".sim.pb.gz"
	}
	args = append(args, Options{Ops: g.ops}.opsArgs()...)
	if code, stderr, err := Command(ctx, side.Bin, io.Discard, args...); err != nil || code != 0 {
		return commandError("certbench profile ("+Sides[i]+")", code, stderr, err)
	}
	if side.As == "" {
		return nil
	}
	for _, sc := range g.scenarios {
		for _, st := range run {
			files, _ := filepath.Glob(filepath.Join(to, sc+"."+st+".*"))
			for _, from := range files {
				rest := strings.TrimPrefix(filepath.Base(from), sc+"."+st)
				if !strings.HasSuffix(rest, suffix) || simulated != strings.HasSuffix(rest, ".sim.pb.gz") {
					continue
				}
				if err := renameProfile(from, filepath.Join(dir, sc+"."+side.As+rest), st, side); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// renameProfile copies a profile, store renamed to side.As and names
// normalized, so that both sides' profiles name functions alike.
func renameProfile(from, to, store string, side Side) error {
	p, err := cost.Load(from)
	if err != nil {
		return err
	}
	if side.Normalize != nil {
		for _, fn := range p.Function {
			fn.Name, fn.SystemName, fn.Filename = side.Normalize(fn.Name), side.Normalize(fn.SystemName), side.Normalize(fn.Filename)
		}
	}
	for i, c := range p.Comments {
		p.Comments[i] = strings.ReplaceAll(c, store, side.As)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		return err
	}
	return os.WriteFile(to, b.Bytes(), 0o644)
}

// Simulate runs each side once on the simulated CPU, o.Count samples,
// both sides at once (instruction counts do not depend on what else
// runs), into Out/sim-base.txt and Out/sim-head.txt, gates them with
// o.Policy, and after a regression profiles both sides to name the store
// lines that grew (see profile).
func Simulate(ctx context.Context, o Options) (*Result, error) {
	logf(o.Log, "ab: simulated CPU: %d samples per side under callgrind, both sides at once", o.Count)
	m := &measurer{o: o, raw: filepath.Join(o.Out, "raw")}
	for _, old := range []string{filepath.Join(o.Out, "sim-base-profiles"), filepath.Join(o.Out, "sim-head-profiles")} {
		os.RemoveAll(old) // an earlier run's
	}
	res := &Result{Base: filepath.Join(o.Out, "sim-base.txt"), Head: filepath.Join(o.Out, "sim-head.txt")}
	if err := os.MkdirAll(m.raw, 0o755); err != nil {
		return nil, err
	}
	groups := o.simGroups()
	errs := make(chan error, 2)
	for i, side := range o.Sides {
		go func() {
			for k, g := range groups {
				part := filepath.Join(m.raw, fmt.Sprintf("sim-%s.%d.txt", Sides[i], k))
				args := Options{Stores: m.stores(i), Scenarios: g.scenarios, Count: o.Count, Ops: g.ops, RunArgs: o.RunArgs}.runArgs(part, 0, true)
				if code, stderr, err := Command(ctx, side.Bin, nil, args...); err != nil || code > 1 {
					errs <- commandError("certbench run --simulate ("+Sides[i]+")", code, stderr, err)
					return
				}
				m.files[i] = append(m.files[i], part)
			}
			errs <- m.merge(i, [2]string{res.Base, res.Head}[i])
		}()
	}
	if err := errors.Join(<-errs, <-errs); err != nil {
		return nil, err
	}
	v, err := GateFiles(res.Base, res.Head, o.Policy)
	if err != nil {
		return nil, err
	}
	m.profile(ctx, v, true)
	res.Verdict = v
	return res, nil
}

// A simGroup is scenarios run in one simulated process, at ops per sample
// (0: each scenario's).
type simGroup struct {
	scenarios []string
	ops       int
}

// simGroups groups the scenarios by their ops on the simulated CPU: Ops,
// or SimOps where it names the scenario, in the scenarios' order.
func (o Options) simGroups() []simGroup {
	var groups []simGroup
	for _, sc := range o.Scenarios {
		ops := o.Ops
		if n := o.SimOps[sc]; n > 0 {
			ops = n
		}
		i := slices.IndexFunc(groups, func(g simGroup) bool { return g.ops == ops })
		if i < 0 {
			i, groups = len(groups), append(groups, simGroup{ops: ops})
		}
		groups[i].scenarios = append(groups[i].scenarios, sc)
	}
	return groups
}

// GateFiles gates two result files with the policy; what the gate
// rejects is an InputError.
func GateFiles(base, head string, policy gate.Policy) (*gate.Verdict, error) {
	b, err := results.Load(base)
	if err != nil {
		return nil, &InputError{err}
	}
	h, err := results.Load(head)
	if err != nil {
		return nil, &InputError{err}
	}
	v, err := gate.Evaluate(b, h, policy)
	if err != nil {
		return nil, &InputError{fmt.Errorf("gate: %w", err)}
	}
	v.Base, v.Head = filepath.Base(base), filepath.Base(head) // no local path in a report
	return v, nil
}

// Command runs bin, its output to stdout (if set), and returns the exit
// code and error output.
func Command(ctx context.Context, bin string, stdout io.Writer, args ...string) (int, string, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	// Cancelled, certbench gets SIGTERM: it stops its own children
	// (callgrind's valgrind), which a kill would leave running.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String(), nil
	}
	return 0, stderr.String(), err
}

// commandError says why a command failed: exit 2 is bad input.
func commandError(what string, code int, stderr string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	err = fmt.Errorf("%s: exit %d: %s", what, code, tail(stderr, 15))
	if code == 2 {
		return &InputError{err}
	}
	return err
}

// tail returns the last n lines of s, trimmed.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func appendNew(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

package conformance

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"testing"

	"github.com/certbench/certbench/certstore"
)

// rt is what a rule needs of *testing.T, with Run taking an rt: [RunWith]
// adapts a *testing.T, [Check] records into a ruleT.
type rt interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Logf(format string, args ...any)
	Cleanup(f func())
	Run(name string, f func(t rt)) bool
}

// testingT runs rules as subtests of a *testing.T.
type testingT struct{ *testing.T }

func (t testingT) Run(name string, f func(rt)) bool {
	return t.T.Run(name, func(tt *testing.T) { f(testingT{tt}) })
}

// Result is the outcome of a rule.
type Result string

// The outcomes of a rule.
const (
	Pass Result = "pass"
	Fail Result = "FAIL"
)

// RuleResult is the outcome of one rule for one store.
type RuleResult struct {
	Rule   string   `json:"rule"` // its subtest's name under [Run], such as "Lookup/ExactName"
	Result Result   `json:"result"`
	Output []string `json:"output,omitempty"` // failures and notes, in order
}

// Report is what [Check] found.
type Report struct {
	// Rules are the outcomes in the order they ended; a rule with subrules
	// appears only through them, unless it failed on its own.
	Rules []RuleResult `json:"rules"`
	// Differential is nil when the pass did not run to its end.
	Differential *DiffReport `json:"differential,omitempty"`
}

// Passed reports whether every rule passed.
func (r *Report) Passed() bool {
	return len(r.Rules) > 0 && !slices.ContainsFunc(r.Rules, func(rr RuleResult) bool { return rr.Result != Pass })
}

// Rule returns the outcome of the named rule, or nil.
func (r *Report) Rule(name string) *RuleResult {
	if i := slices.IndexFunc(r.Rules, func(rr RuleResult) bool { return rr.Rule == name }); i >= 0 {
		return &r.Rules[i]
	}
	return nil
}

// Check runs every rule against stores made by newStore, in this process,
// and returns each rule's outcome. A panic on a rule's goroutine fails that
// rule (see the package doc for what cannot be caught).
func Check(newStore certstore.Factory, opts Options) *Report {
	rep := &Report{}
	c := &checker{opts: opts}
	su, err := newSuite(newStore, opts)
	if err != nil {
		rep.Rules = []RuleResult{{Rule: "Setup", Result: Fail, Output: []string{err.Error()}}}
		return rep
	}
	root := &ruleT{c: c}
	for _, r := range rules {
		if opts.only == "" || opts.only == r.name {
			root.Run(r.name, func(t rt) { r.run(su, t) })
		}
	}
	rep.Rules = c.results
	rep.Differential = su.diff
	return rep
}

// checker collects the outcomes of one Check.
type checker struct {
	opts    Options
	mu      sync.Mutex
	results []RuleResult
}

// ruleT is one rule (or the root) of a Check. Each subrule runs on a
// goroutine of its own, as in testing, so that Fatalf can runtime.Goexit.
type ruleT struct {
	c    *checker
	name string

	mu       sync.Mutex
	done     bool
	failed   bool // this rule or a subrule failed
	own      bool // this rule failed by a message of its own
	subs     int
	output   []string
	cleanups []func()
}

func (t *ruleT) Helper() {}

func (t *ruleT) Logf(format string, args ...any) { t.add(false, fmt.Sprintf(format, args...)) }

func (t *ruleT) Errorf(format string, args ...any) { t.add(true, fmt.Sprintf(format, args...)) }

func (t *ruleT) Fatalf(format string, args ...any) {
	t.add(true, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// add records a message, dropped after the rule ended (a goroutine it left).
func (t *ruleT) add(failure bool, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.done {
		return
	}
	if failure {
		t.failed, t.own = true, true
	}
	t.output = append(t.output, msg)
}

func (t *ruleT) Cleanup(f func()) {
	t.mu.Lock()
	t.cleanups = append(t.cleanups, f)
	t.mu.Unlock()
}

func (t *ruleT) Run(name string, f func(rt)) bool {
	sub := &ruleT{c: t.c, name: name}
	if t.name != "" {
		sub.name = t.name + "/" + name
	}
	if t.c.opts.Started != nil {
		t.c.opts.Started(sub.name)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sub.run(f)
	}()
	<-done
	sub.finish()
	t.mu.Lock()
	t.subs++
	t.failed = t.failed || sub.failed
	t.mu.Unlock()
	return !sub.failed
}

// run calls f, then the cleanups; a panic fails the rule.
func (t *ruleT) run(f func(rt)) {
	defer t.runCleanups()
	defer t.recoverPanic()
	f(t)
}

func (t *ruleT) recoverPanic() {
	if v := recover(); v != nil {
		t.add(true, fmt.Sprintf("panic: %v\n%s", v, debug.Stack()))
	}
}

func (t *ruleT) runCleanups() {
	t.mu.Lock()
	cs := t.cleanups
	t.cleanups = nil
	t.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		func() {
			defer t.recoverPanic()
			cs[i]()
		}()
	}
}

// finish records a leaf rule's outcome, or a parent's that failed on its own.
func (t *ruleT) finish() {
	t.mu.Lock()
	t.done = true
	leaf, own, failed, out := t.subs == 0, t.own, t.failed, t.output
	t.mu.Unlock()
	if !leaf && !own {
		return
	}
	r := RuleResult{Rule: t.name, Result: Pass, Output: out}
	if (leaf && failed) || own {
		r.Result = Fail
	}
	t.c.mu.Lock()
	t.c.results = append(t.c.results, r)
	t.c.mu.Unlock()
	if t.c.opts.Finished != nil {
		t.c.opts.Finished(r)
	}
}

package conformance

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/certbench/certbench/certstore"
)

// rt is what a rule needs of the test it runs in: the methods of
// *testing.T of the same names, with Run taking a rule of its own kind.
// [RunWith] adapts a *testing.T to it; [Check] records into a ruleT.
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
	// Rule names the rule, as a path such as "Lookup/ExactName": the name
	// of its subtest under [Run].
	Rule   string `json:"rule"`
	Result Result `json:"result"`
	// Output holds the rule's messages in order: its failures and its
	// notes (such as the differential pass's summary).
	Output []string `json:"output,omitempty"`
}

// Report is what [Check] found.
type Report struct {
	// Rules are the outcomes, in the order the rules ended. A rule with
	// subrules appears only through them, unless it failed on its own.
	Rules []RuleResult `json:"rules"`
	// Differential is the differential pass's report; nil when the pass
	// did not run to its end.
	Differential *DiffReport `json:"differential,omitempty"`
}

// Passed reports whether every rule passed.
func (r *Report) Passed() bool {
	for _, rr := range r.Rules {
		if rr.Result != Pass {
			return false
		}
	}
	return len(r.Rules) > 0
}

// Rule returns the outcome of the named rule, or nil.
func (r *Report) Rule(name string) *RuleResult {
	for i := range r.Rules {
		if r.Rules[i].Rule == name {
			return &r.Rules[i]
		}
	}
	return nil
}

// Check runs every rule and the differential pass against stores made by
// newStore, in this process and in order, and returns each rule's outcome.
// A panic on the goroutine of a rule (in the store or the suite) fails that
// rule and the next one runs; a panic in a goroutine the store starts
// itself ends the process, and a store that never returns blocks Check
// (certbench conformance runs Check in a child process to survive both).
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

// ruleT is one rule (or the root) of a Check; it records instead of
// printing, and runs each subrule on a goroutine of its own, as testing
// does, so that Fatalf can end it with runtime.Goexit.
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

// add records a message; after the rule ended (a goroutine it left
// behind) there is nowhere to report it.
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

// finish records the rule's outcome: every leaf rule, and a rule with
// subrules that failed on its own.
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

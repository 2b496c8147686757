package conformance

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/table"
)

// ChildEnv carries the request of a child process that Isolated started,
// as JSON, in its environment.
const ChildEnv = "CERTBENCH_CONFORMANCE_CHILD"

// Isolated runs Check or Compare of registered stores in child processes
// of a binary whose main serves their requests (ServeChild; certbench's
// cli.Main does), so that a store that crashes the process or never
// returns fails the rule that was running, with the child's output.
type Isolated struct {
	// Command makes a child's command (its request travels in ChildEnv);
	// nil runs this binary with Args, the arguments that reach ServeChild.
	Command func(ctx context.Context) *exec.Cmd
	Args    []string
	// Seed, Iterations, Duration and Runs set the differential pass or the
	// comparison (0: the defaults).
	Seed       uint64
	Iterations int
	Duration   time.Duration
	Runs       int
	// Timeout bounds a child, plus twice Duration (0: 30 minutes).
	Timeout time.Duration
	// Found, when set, gets each change a comparison finds.
	Found func(*Change)
}

// childRequest is what a child is asked to run.
type childRequest struct {
	Store, Against   string
	Seed             uint64
	Iterations, Runs int
	Duration         time.Duration
}

// childEvent is one line a child writes.
type childEvent struct {
	Started    string      `json:"started,omitempty"`
	Finished   *RuleResult `json:"finished,omitempty"`
	Change     *Change     `json:"change,omitempty"`
	Comparison *Comparison `json:"comparison,omitempty"`
	Done       bool        `json:"done,omitempty"`
}

// ServeChild runs the request of a child that Isolated started (Check, or
// Compare, of registered stores), writing its events to w, and reports
// true; in any other process it does nothing and reports false.
func ServeChild(w io.Writer) (bool, error) {
	env := os.Getenv(ChildEnv)
	if env == "" {
		return false, nil
	}
	var req childRequest
	if err := json.Unmarshal([]byte(env), &req); err != nil {
		return true, fmt.Errorf("conformance: %s: %w", ChildEnv, err)
	}
	base, err := certstore.LookupFactory(req.Store)
	if err != nil {
		return true, err
	}
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	emit := func(e childEvent) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(e)
	}
	if req.Against != "" {
		head, err := certstore.LookupFactory(req.Against)
		if err != nil {
			return true, err
		}
		r := Compare(base.New, head.New, CompareOptions{Base: base.Name, Head: head.Name, Seed: req.Seed,
			Iterations: req.Iterations, Duration: req.Duration, Runs: req.Runs,
			Found: func(ch *Change) { emit(childEvent{Change: ch}) }})
		emit(childEvent{Comparison: r, Done: true})
		return true, nil
	}
	Check(base.New, Options{
		Store:        base.Name,
		Differential: DifferentialOptions{Seed: req.Seed, Iterations: req.Iterations, Duration: req.Duration},
		Started:      func(rule string) { emit(childEvent{Started: rule}) },
		Finished:     func(r RuleResult) { emit(childEvent{Finished: &r}) },
	})
	emit(childEvent{Done: true})
	return true, nil
}

// Check runs the suite on a registered store in a child; a child that
// ended early fails the rule that was running.
func (iso Isolated) Check(ctx context.Context, store string) (*Report, error) {
	ev, err := iso.run(ctx, childRequest{Store: store})
	if err != nil {
		return nil, err
	}
	return &Report{Rules: ev.results}, nil
}

// Compare compares two registered stores in a child; a child that ended
// early is an error wrapping ErrChild.
func (iso Isolated) Compare(ctx context.Context, base, head string) (*Comparison, error) {
	ev, err := iso.run(ctx, childRequest{Store: base, Against: head})
	if err == nil && ev.comparison == nil {
		err = fmt.Errorf("conformance --against: %w: it reported no result", ErrChild)
	}
	if err != nil {
		return nil, err
	}
	return ev.comparison, nil
}

// ErrChild is wrapped by the error of a comparison whose child ended
// before it was done.
var ErrChild = errors.New("the child process ended early")

// run runs one child and reads its events; a check's child that ended
// early fails the rule that was running, a comparison's is an error.
func (iso Isolated) run(ctx context.Context, req childRequest) (*events, error) {
	if os.Getenv(ChildEnv) != "" {
		return nil, fmt.Errorf("conformance: a child process (%s is set) would start another: does this binary's main call conformance.ServeChild?", ChildEnv)
	}
	req.Seed, req.Iterations, req.Duration, req.Runs = iso.Seed, iso.Iterations, iso.Duration, iso.Runs
	timeout := cmp.Or(iso.Timeout, 30*time.Minute) + 2*iso.Duration
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var c *exec.Cmd
	if iso.Command != nil {
		c = iso.Command(ctx)
	} else {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("conformance: finding this binary to run the check in: %w", err)
		}
		c = exec.CommandContext(ctx, exe, iso.Args...)
	}
	b, _ := json.Marshal(req)
	if c.Env == nil {
		c.Env = os.Environ()
	}
	c.Env = append(c.Env, ChildEnv+"="+string(b))
	var stderr bytes.Buffer
	c.Stderr = &stderr
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("conformance: running %s: %w", c.Path, err)
	}
	ev, stray := readEvents(stdout, iso.Found)
	err = c.Wait()
	if ev.done {
		return ev, nil
	}
	output := clip(strings.TrimSpace(stray+stderr.String()), 4000, "\n...")
	if ev.events == 0 && ctx.Err() == nil {
		return nil, fmt.Errorf("conformance: %s %s reported nothing (%v); does its main call conformance.ServeChild? output:\n%s",
			c.Path, strings.Join(c.Args[1:], " "), err, output)
	}
	msg := fmt.Sprintf("the check's process ended during this rule (%v): a crash?", err)
	if ctx.Err() == context.DeadlineExceeded {
		msg = fmt.Sprintf("the check's process was stopped after %v during this rule: a store that hangs?", timeout)
	}
	if output != "" {
		msg += " Its output:\n" + output
	}
	if req.Against != "" {
		return nil, fmt.Errorf("conformance --against: %w: %s", ErrChild, strings.Replace(msg, " during this rule", "", 1))
	}
	rule := ev.running
	if rule == "" || slices.ContainsFunc(ev.results, func(r RuleResult) bool { return r.Rule == rule }) {
		rule = "(the check's process)"
	}
	ev.add(RuleResult{Rule: rule, Result: Fail, Output: []string{msg}})
	return ev, nil
}

// events is what one child reported.
type events struct {
	results    []RuleResult
	comparison *Comparison
	events     int    // events read
	done       bool   // the child said it was done
	running    string // the rule running when the events ended
}

// readEvents reads a child's events; lines that are none (a store
// printing) are returned.
func readEvents(r io.Reader, found func(*Change)) (*events, string) {
	ev := &events{}
	var running []string
	var stray strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e childEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			stray.WriteString(sc.Text() + "\n")
			continue
		}
		ev.events++
		switch {
		case e.Started != "":
			running = append(running, e.Started)
		case e.Finished != nil:
			running = slices.DeleteFunc(running, func(s string) bool { return s == e.Finished.Rule })
			ev.add(*e.Finished)
		case e.Change != nil && found != nil:
			found(e.Change)
		}
		if e.Comparison != nil {
			ev.comparison = e.Comparison
		}
		ev.done = ev.done || e.Done
	}
	if len(running) > 0 {
		ev.running = running[len(running)-1]
	}
	return ev, stray.String()
}

// add records a rule's outcome, replacing an earlier one of that rule.
func (ev *events) add(r RuleResult) {
	if i := slices.IndexFunc(ev.results, func(x RuleResult) bool { return x.Rule == r.Rule }); i >= 0 {
		ev.results[i] = r
		return
	}
	ev.results = append(ev.results, r)
}

// Outcomes are several stores' Check reports, a row per rule and a column
// per store; its JSON is this value.
type Outcomes struct {
	Stores []string      `json:"stores"`
	Seed   uint64        `json:"seed"`
	Passed bool          `json:"passed"`
	Rules  []*OutcomeRow `json:"rules"`
}

// OutcomeRow is one rule's outcome per store.
type OutcomeRow struct {
	Rule    string              `json:"rule"`
	Results map[string]*Outcome `json:"results"`
}

// Outcome is one rule's outcome for one store: a failure's messages, line
// by line; of a passing rule, only the differential pass's notes.
type Outcome struct {
	Result string   `json:"result"`
	Output []string `json:"output,omitempty"`
}

// Add adds one store's report.
func (o *Outcomes) Add(store string, r *Report) {
	for _, res := range r.Rules {
		i := slices.IndexFunc(o.Rules, func(row *OutcomeRow) bool { return row.Rule == res.Rule })
		if i < 0 {
			i = len(o.Rules)
			o.Rules = append(o.Rules, &OutcomeRow{Rule: res.Rule, Results: map[string]*Outcome{}})
		}
		cell := &Outcome{Result: string(res.Result)}
		if res.Result != Pass || res.Rule == "Differential" {
			for _, msg := range res.Output {
				cell.Output = append(cell.Output, strings.Split(strings.TrimRight(msg, "\n"), "\n")...)
			}
		}
		if len(cell.Output) > 200 {
			cell.Output = append(cell.Output[:200:200], fmt.Sprintf("... (%d more lines)", len(cell.Output)-200))
		}
		o.Rules[i].Results[store] = cell
	}
	o.Passed = true
	for _, row := range o.Rules {
		for _, st := range o.Stores {
			if c := row.Results[st]; c == nil || c.Result == string(Fail) {
				o.Passed = false
			}
		}
	}
}

// page is the outcomes as a table of rules by stores.
func (o *Outcomes) page() *table.Page {
	t := table.New("", table.Column{Name: "rule"})
	passed := []table.Cell{{Text: "rules passed"}}
	for _, st := range o.Stores {
		t.Columns = append(t.Columns, table.Column{Name: st})
		n, m := 0, 0
		for _, row := range o.Rules {
			if c := row.Results[st]; c != nil {
				m++
				if c.Result == string(Pass) {
					n++
				}
			}
		}
		passed = append(passed, table.Cell{Text: fmt.Sprintf("%d / %d", n, m)})
	}
	for _, row := range o.Rules {
		cells := []table.Cell{{Text: row.Rule}}
		for _, st := range o.Stores {
			c := table.Cell{Text: "-"}
			if res := row.Results[st]; res != nil {
				c.Text = res.Result
				if res.Result == string(Fail) {
					c.Class = table.Worse
				}
			}
			cells = append(cells, c)
		}
		t.Add(cells...)
	}
	t.Add(passed...).Summary = true
	return &table.Page{Tables: []*table.Table{t}}
}

// WriteText writes the table, the passing rules' notes, then the failures.
func (o *Outcomes) WriteText(w io.Writer) error {
	if err := table.WriteText(w, o.page()); err != nil {
		return err
	}
	var b strings.Builder
	for _, failures := range []bool{false, true} {
		for _, st := range o.Stores {
			for _, row := range o.Rules {
				c := row.Results[st]
				if c == nil || (c.Result == string(Fail)) != failures || len(c.Output) == 0 {
					continue
				}
				if failures {
					fmt.Fprintf(&b, "\n--- %s: %s\n", st, row.Rule)
				} else {
					fmt.Fprintf(&b, "\n%s: %s:\n", st, row.Rule)
				}
				for _, l := range c.Output {
					b.WriteString("    " + l + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the table (failures in bold).
func (o *Outcomes) WriteMarkdown(w io.Writer) error { return table.WriteMarkdown(w, o.page()) }

// WriteJSON writes the outcomes.
func (o *Outcomes) WriteJSON(w io.Writer) error { return table.Write(w, "json", nil, o) }

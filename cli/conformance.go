package cli

// The conformance command runs conformance.Check (or Compare) in a child
// process of this binary (the hidden --child flag) writing JSON events, so
// that a store that crashes the process or never returns fails the rule
// that was running, with the child's stderr.

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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
	"github.com/certbench/certbench/internal/table"
	"github.com/spf13/cobra"
)

// conformanceFormats are the output formats of conformance.
var conformanceFormats = []string{"text", "markdown", "json"}

// ConformanceOptions are the options of certbench conformance.
type conformanceOptions struct {
	ioStreams ioStreams
	Stores    []string // none: every registered store; with Against, the base
	// Against, when set, compares Stores[0] (the base) with this store.
	Against string
	// Seed, Iterations, Duration and Runs set the differential pass or the
	// comparison (0: package conformance's defaults).
	Seed       uint64
	Iterations int
	Duration   time.Duration
	Runs       int
	Format     string // text, markdown or json
	Output     string // -o; "" or "-" is IO.Out
	Verbose    bool   // say which store runs, and each change found
	// Child runs the check of this store in this process, writing JSON
	// events to IO.Out (the hidden --child flag).
	Child        string
	ChildTimeout time.Duration // plus twice Duration; 0 is 30 minutes
}

func newConformanceCmd(runF func(context.Context, *conformanceOptions) error) *cobra.Command {
	opts := &conformanceOptions{}
	cmd := &cobra.Command{
		Use:   "conformance [--stores a,b] [--seed N] [--duration D] | --stores BASE --against HEAD",
		Short: "Check stores against the contract's rules (exit 1 if one fails), or diff two stores' behaviour",
		Long: `conformance checks each store (default: every registered one) against every
rule of the certstore contract and runs the differential pass (the store's
answers against certstore.Match on random configurations), and prints a row per
rule, a column per store, then the failures' messages; a differential failure
comes with a shrunk Go test case and its seed. Deviations a store declares
(conformance.Declare) are counted under their names, not failed.

With --against HEAD (and --stores BASE) it runs the same generated cases on two
stores, several times each, and reports each kind of difference once, shrunk,
as "base served X, head serves Y" ("X or Y" for an answer that varies).

Each store runs in a child process, so a store that crashes or hangs fails the
rule that was running. Exit codes: 0 every rule passed (no difference), 1 a
rule failed (the stores differ), 2 bad usage.`,
		Example: `  certbench conformance --stores optimized --duration 5m --seed 7
  certbench conformance --stores traefik@base --against traefik@head`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.ioStreams = ioOf(cmd)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConformance(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	storesFlag(cmd, &opts.Stores, nil, "stores to check, comma-separated `names` (default: every registered store); with --against, the base store")
	f.StringVar(&opts.Against, "against", "", "compare the behaviour of the --stores store with this `store`'s instead of checking rules")
	completeNames(cmd, "against", storeNames)
	f.Uint64Var(&opts.Seed, "seed", 0, "`seed` of the differential pass or the comparison (0: conformance.DefaultDiffSeed)")
	f.DurationVar(&opts.Duration, "duration", 0, "run the differential pass or the comparison this long, a `time` such as 30s or 5m (0: the default bound)")
	f.IntVar(&opts.Iterations, "iterations", 0, "bound the differential pass or the comparison to `n` iterations (0: the default)")
	f.IntVar(&opts.Runs, "runs", 0, "with --against, play each case `n` times on each store (0: conformance.DefaultCompareRuns)")
	f.StringVar(&opts.Format, "format", "text", formatUsage("output format", conformanceFormats))
	f.StringVarP(&opts.Output, "output", "o", "", "write the output to this `file` instead of stdout")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "say which store is running on stderr, and each change as it is found")
	f.StringVar(&opts.Child, "child", "", "internal: run the check of this `store` in this process, writing JSON events")
	_ = f.MarkHidden("child")
	return cmd
}

// runConformance checks each store (or compares two) in a child process.
func runConformance(ctx context.Context, opts *conformanceOptions) error {
	if opts.Child != "" {
		return runConformanceChild(opts)
	}
	if os.Getenv(childEnv) != "" {
		// Else a binary that does not route --child here would recurse.
		return fmt.Errorf("conformance: started as a child (%s is set) without --child; does this binary route its arguments to certbench's cli?", childEnv)
	}
	if err := checkFormat(opts.Format, conformanceFormats); err != nil {
		return err
	}
	if opts.Iterations < 0 || opts.Duration < 0 || opts.Runs < 0 {
		return usagef("--iterations, --duration and --runs must not be negative")
	}
	stores := opts.Stores
	if len(stores) == 0 && opts.Against == "" {
		if stores = storeNames(); len(stores) == 0 {
			return usagef("no store is registered in this binary")
		}
	}
	if opts.Against != "" && len(stores) != 1 {
		return usagef("--against compares two stores: name the base with --stores BASE (one store), the head with --against HEAD")
	}
	if _, err := lookupStores("--stores", stores); err != nil {
		return err
	}
	var out renderer
	failed := false
	if opts.Against != "" {
		c, err := runComparison(ctx, opts, stores[0])
		if err != nil {
			return err
		}
		out, failed = c, c.Differs()
	} else {
		tab := &conformanceReport{Stores: stores, Seed: opts.Seed}
		for _, name := range stores {
			if opts.Verbose {
				fmt.Fprintf(opts.ioStreams.ErrOut, "conformance: running the suite against %s\n", name)
			}
			res, err := runChild(ctx, opts, name, nil)
			if err != nil {
				return err
			}
			tab.add(name, res)
		}
		out, failed = tab, !tab.Passed
	}
	if err := writeOutput(opts, out); err != nil {
		return err
	}
	if failed {
		return &exitError{code: ExitRegression, err: errSilent}
	}
	return nil
}

// runComparison compares base with opts.Against in a child process.
func runComparison(ctx context.Context, opts *conformanceOptions, base string) (*conformance.Comparison, error) {
	head := opts.Against
	if _, err := lookupStores("--against", []string{head}); err != nil {
		return nil, err
	}
	if base == head {
		return nil, usagef("--against %s: a store compared with itself", head)
	}
	var onChange func(*conformance.Change)
	if opts.Verbose {
		fmt.Fprintf(opts.ioStreams.ErrOut, "conformance: comparing %s with %s\n", base, head)
		onChange = func(ch *conformance.Change) { fmt.Fprintf(opts.ioStreams.ErrOut, "conformance: change: %s\n", ch.Kind) }
	}
	res, err := runChild(ctx, opts, base, onChange)
	if err != nil {
		return nil, err
	}
	if res.comparison == nil {
		return nil, &exitError{code: ExitRegression, err: errors.New("conformance --against: the comparison's process reported no result")}
	}
	return res.comparison, nil
}

// writeOutput renders r to -o or IO.Out.
func writeOutput(opts *conformanceOptions, r renderer) error {
	if opts.Output == "" || opts.Output == "-" {
		return render(r, opts.Format, opts.ioStreams.Out)
	}
	var buf bytes.Buffer
	if err := render(r, opts.Format, &buf); err != nil {
		return err
	}
	if err := os.WriteFile(opts.Output, buf.Bytes(), 0o644); err != nil {
		return usagef("-o: %v", err)
	}
	return nil
}

// childEvent is one line a child writes.
type childEvent struct {
	Started    string                  `json:"started,omitempty"`
	Finished   *conformance.RuleResult `json:"finished,omitempty"`
	Change     *conformance.Change     `json:"change,omitempty"`
	Comparison *conformance.Comparison `json:"comparison,omitempty"`
	Done       bool                    `json:"done,omitempty"`
}

// runConformanceChild checks one store, or compares it, writing childEvents.
func runConformanceChild(opts *conformanceOptions) error {
	info, err := certstore.LookupFactory(opts.Child)
	if err != nil {
		return usageError(err)
	}
	var mu sync.Mutex
	enc := json.NewEncoder(opts.ioStreams.Out)
	emit := func(e childEvent) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(e)
	}
	if opts.Against != "" {
		head, err := certstore.LookupFactory(opts.Against)
		if err != nil {
			return usageError(err)
		}
		r := conformance.Compare(info.New, head.New, conformance.CompareOptions{
			Base: info.Name, Head: head.Name, Seed: opts.Seed, Iterations: opts.Iterations, Duration: opts.Duration, Runs: opts.Runs,
			Found: func(ch *conformance.Change) { emit(childEvent{Change: ch}) },
		})
		emit(childEvent{Comparison: r, Done: true})
		return nil
	}
	conformance.Check(info.New, conformance.Options{
		Store:        info.Name,
		Differential: conformance.DifferentialOptions{Seed: opts.Seed, Iterations: opts.Iterations, Duration: opts.Duration},
		Started:      func(rule string) { emit(childEvent{Started: rule}) },
		Finished:     func(r conformance.RuleResult) { emit(childEvent{Finished: &r}) },
	})
	emit(childEvent{Done: true})
	return nil
}

// childEnv is set in a child's environment.
const childEnv = "CERTBENCH_CONFORMANCE_CHILD"

// conformanceCommand makes the child's command; tests replace it.
var conformanceCommand = func(ctx context.Context, exe string, args []string) *exec.Cmd {
	return exec.CommandContext(ctx, exe, args...)
}

// childRun is what one child reported.
type childRun struct {
	order      []string
	results    map[string]*conformance.RuleResult
	comparison *conformance.Comparison
	events     int    // events read
	done       bool   // the child said it was done
	running    string // the rule running when the events ended
}

// runChild runs the child for store and reads its events; a child that
// ended before it was done fails the rule that was running.
func runChild(ctx context.Context, opts *conformanceOptions, store string, onChange func(*conformance.Change)) (*childRun, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("conformance: finding this binary to run the check in: %w", err)
	}
	args := []string{"conformance", "--child", store, "--seed", strconv.FormatUint(opts.Seed, 10),
		"--iterations", strconv.Itoa(opts.Iterations), "--duration", opts.Duration.String(), "--runs", strconv.Itoa(opts.Runs)}
	if opts.Against != "" {
		args = append(args, "--against", opts.Against)
	}
	timeout := cmp.Or(opts.ChildTimeout, 30*time.Minute) + 2*opts.Duration
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := conformanceCommand(ctx, exe, args)
	if c.Env == nil {
		c.Env = os.Environ()
	}
	c.Env = append(c.Env, childEnv+"=1")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	stdout, err := c.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := c.Start(); err != nil {
		return nil, fmt.Errorf("conformance: running %s: %w", exe, err)
	}
	run, stray := readEvents(stdout, onChange)
	err = c.Wait()
	if run.done {
		return run, nil
	}
	output := strings.TrimSpace(stray + stderr.String())
	if len(output) > 4000 {
		output = output[:4000] + "\n..."
	}
	if run.events == 0 && ctx.Err() == nil {
		return nil, fmt.Errorf("conformance: %s %s reported nothing (%v); is conformance routed to certbench's cli? output:\n%s",
			exe, strings.Join(args, " "), err, output)
	}
	msg := fmt.Sprintf("the check's process ended during this rule (%v): a crash?", err)
	if ctx.Err() == context.DeadlineExceeded {
		msg = fmt.Sprintf("the check's process was stopped after %v during this rule: a store that hangs?", timeout)
	}
	if output != "" {
		msg += " Its output:\n" + output
	}
	if opts.Against != "" {
		return nil, &exitError{code: ExitRegression, err: fmt.Errorf("conformance --against: %s", strings.Replace(msg, " during this rule", "", 1))}
	}
	rule := run.running
	if rule == "" || run.results[rule] != nil {
		rule = "(the check's process)"
	}
	run.add(&conformance.RuleResult{Rule: rule, Result: conformance.Fail, Output: []string{msg}})
	return run, nil
}

// readEvents reads a child's events; lines that are none (a store
// printing) are returned.
func readEvents(r io.Reader, onChange func(*conformance.Change)) (*childRun, string) {
	run := &childRun{results: map[string]*conformance.RuleResult{}}
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
		run.events++
		switch {
		case e.Started != "":
			running = append(running, e.Started)
		case e.Finished != nil:
			running = slices.DeleteFunc(running, func(s string) bool { return s == e.Finished.Rule })
			run.add(e.Finished)
		case e.Change != nil && onChange != nil:
			onChange(e.Change)
		}
		if e.Comparison != nil {
			run.comparison = e.Comparison
		}
		run.done = run.done || e.Done
	}
	if len(running) > 0 {
		run.running = running[len(running)-1]
	}
	return run, stray.String()
}

func (run *childRun) add(r *conformance.RuleResult) {
	if _, seen := run.results[r.Rule]; !seen {
		run.order = append(run.order, r.Rule)
	}
	run.results[r.Rule] = r
}

// conformanceReport is the rule x store outcome; its JSON is this value.
type conformanceReport struct {
	Stores []string   `json:"stores"`
	Seed   uint64     `json:"seed"`
	Passed bool       `json:"passed"`
	Rules  []*ruleRow `json:"rules"`
}

// ruleRow is one rule's outcome per store.
type ruleRow struct {
	Rule    string                 `json:"rule"`
	Results map[string]*ruleResult `json:"results"`
}

// ruleResult is one rule's outcome for one store: a failure's messages,
// line by line; of a passing rule, only the differential pass's notes.
type ruleResult struct {
	Result string   `json:"result"`
	Output []string `json:"output,omitempty"`
}

// add adds the outcomes of one store's child.
func (r *conformanceReport) add(store string, run *childRun) {
	for _, rule := range run.order {
		i := slices.IndexFunc(r.Rules, func(row *ruleRow) bool { return row.Rule == rule })
		if i < 0 {
			i = len(r.Rules)
			r.Rules = append(r.Rules, &ruleRow{Rule: rule, Results: map[string]*ruleResult{}})
		}
		res := run.results[rule]
		cell := &ruleResult{Result: string(res.Result)}
		if res.Result != conformance.Pass || rule == "Differential" {
			for _, msg := range res.Output {
				cell.Output = append(cell.Output, strings.Split(strings.TrimRight(msg, "\n"), "\n")...)
			}
		}
		if len(cell.Output) > 200 {
			cell.Output = append(cell.Output[:200:200], fmt.Sprintf("... (%d more lines)", len(cell.Output)-200))
		}
		r.Rules[i].Results[store] = cell
	}
	r.Passed = true
	for _, row := range r.Rules {
		for _, st := range r.Stores {
			if c := row.Results[st]; c == nil || c.Result == string(conformance.Fail) {
				r.Passed = false
			}
		}
	}
}

// page is the report as a table of rules by stores.
func (r *conformanceReport) page() *table.Page {
	t := table.New("", table.Column{Name: "rule"})
	passed := []table.Cell{{Text: "rules passed"}}
	for _, st := range r.Stores {
		t.Columns = append(t.Columns, table.Column{Name: st})
		n, m := 0, 0
		for _, row := range r.Rules {
			if c := row.Results[st]; c != nil {
				m++
				if c.Result == string(conformance.Pass) {
					n++
				}
			}
		}
		passed = append(passed, table.Cell{Text: fmt.Sprintf("%d / %d", n, m)})
	}
	for _, row := range r.Rules {
		cells := []table.Cell{{Text: row.Rule}}
		for _, st := range r.Stores {
			c := table.Cell{Text: "-"}
			if res := row.Results[st]; res != nil {
				c.Text = res.Result
				if res.Result == string(conformance.Fail) {
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
func (r *conformanceReport) WriteText(w io.Writer) error {
	if err := table.WriteText(w, r.page()); err != nil {
		return err
	}
	var b strings.Builder
	for _, failures := range []bool{false, true} {
		for _, st := range r.Stores {
			for _, row := range r.Rules {
				c := row.Results[st]
				if c == nil || (c.Result == string(conformance.Fail)) != failures || len(c.Output) == 0 {
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
func (r *conformanceReport) WriteMarkdown(w io.Writer) error {
	return table.WriteMarkdown(w, r.page())
}

// WriteJSON writes the report.
func (r *conformanceReport) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

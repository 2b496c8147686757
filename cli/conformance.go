package cli

// The conformance command runs conformance's suite, whose rules are
// ordinary subtests of a *testing.T, outside "go test".
//
// How: there is no public way to make a *testing.T, so the command re-runs
// its own binary once per store (a hidden --child flag), and the child runs
// the suite with testing.MainStart, the entry point that "go test" generates
// a call to, with -test.v=test2json so that every rule's result is framed
// in the output. The parent reads those lines back into a rule table. The
// child is a process of its own because the testing package owns the
// process it runs in (its flags, os.Stdout, its exit code), and a panic in a
// goroutine that a store starts kills the process: the parent reports it
// as a failure of the rule that was running. testing.MainStart is not
// covered by the Go 1 compatibility promise; testDeps below is the only code
// that may need a change with a new Go release.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
	"github.com/spf13/cobra"
)

// conformanceFormats are the output formats of conformance.
var conformanceFormats = []string{"text", "markdown", "json"}

// Rule results in the conformance table.
const (
	rulePass = "pass"
	ruleFail = "FAIL"
	ruleSkip = "skip"
)

// ConformanceOptions are the options of certbench conformance.
type ConformanceOptions struct {
	IO IO
	// Stores are the stores to check; none means every registered store.
	Stores []string
	// Seed, Iterations and Duration set the differential pass (0: the
	// defaults of package conformance).
	Seed       uint64
	Iterations int
	Duration   time.Duration
	// Format is the table's format: text, markdown or json.
	Format string
	// Output is the file the table goes to (-o); "" or "-" is IO.Out.
	Output string
	// Verbose says on IO.ErrOut which store is running.
	Verbose bool
	// Child, when set, runs the suite against this store in this process
	// (the hidden --child flag the parent starts its children with).
	Child string
	// ChildTimeout bounds a child, plus twice Duration; 0 is 30 minutes.
	ChildTimeout time.Duration
}

func newConformanceCmd(runF func(context.Context, *ConformanceOptions) error) *cobra.Command {
	opts := &ConformanceOptions{}
	cmd := &cobra.Command{
		Use:   "conformance [--stores a,b] [--seed N] [--duration D]",
		Short: "Run the conformance suite and its differential pass against stores; exit 1 if a store fails a rule",
		Long: `conformance runs the conformance suite (every rule of the certstore
contract, then the differential pass, which compares the store's answers with
certstore.Match on random configurations) against each named store (default:
every registered store) and prints one table to stdout (or to the file -o
names): a row per rule, a column per store. The failures' messages follow the
table in text output; a differential failure comes with a shrunk,
ready-to-paste Go test case and its seed.

The suite runs once per store in a child process of this binary (the testing
package needs a process of its own); a store that crashes the child fails the
rule that was running.

--seed, --iterations and --duration set the differential pass: by default 60
iterations, stopped early after 10 s for slow stores; with --duration it runs
that long (and --iterations, if given, still bounds it).

Exit codes: 0 every store passed every rule, 1 a store failed a rule (like
gate), 2 bad usage (unknown store, bad format).`,
		Example: `  certbench conformance
  certbench conformance --stores optimized --duration 5m --seed 7
  certbench conformance --format markdown > conformance.md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.IO = ioOf(cmd)
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runConformance(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	storesFlag(cmd, &opts.Stores, nil, "stores to check, comma-separated `names` (default: every registered store)")
	f.Uint64Var(&opts.Seed, "seed", 0, "`seed` of the differential pass (0: conformance.DefaultDiffSeed)")
	f.DurationVar(&opts.Duration, "duration", 0, "run the differential pass this long, a `time` such as 30s or 5m (0: the default bounded pass)")
	f.IntVar(&opts.Iterations, "iterations", 0, "bound the differential pass to `n` iterations (0: the default)")
	f.StringVar(&opts.Format, "format", "text", formatUsage("output format", conformanceFormats))
	f.StringVarP(&opts.Output, "output", "o", "", "write the table to this `file` instead of stdout")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "say which store is running on stderr")
	f.StringVar(&opts.Child, "child", "", "internal: run the suite against this `store` in this process, printing test2json-framed results")
	_ = f.MarkHidden("child")
	return cmd
}

// runConformance runs the suite against each store in a child process and
// prints the rule table; in a child (Child set) it runs the suite itself.
func runConformance(ctx context.Context, opts *ConformanceOptions) error {
	dopts := conformance.DifferentialOptions{Seed: opts.Seed, Iterations: opts.Iterations, Duration: opts.Duration}
	if opts.Child != "" {
		return runConformanceChild(opts.IO.Out, opts.Child, dopts)
	}
	if err := checkFormat(opts.Format, conformanceFormats); err != nil {
		return err
	}
	if opts.Iterations < 0 || opts.Duration < 0 {
		return usagef("--iterations and --duration must not be negative")
	}
	stores := opts.Stores
	if len(stores) == 0 {
		stores = storeNames()
	}
	if len(stores) == 0 {
		return usagef("no store is registered in this binary")
	}
	for _, name := range stores {
		if _, err := certstore.LookupFactory(name); err != nil {
			return usageError(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("conformance: finding this binary to run the suite in: %w", err)
	}
	childTimeout := opts.ChildTimeout
	if childTimeout == 0 {
		childTimeout = 30 * time.Minute
	}
	tab := &conformanceTable{Stores: stores, Seed: dopts.Seed}
	for _, name := range stores {
		args := []string{"conformance", "--child", name, "--seed", strconv.FormatUint(opts.Seed, 10),
			"--iterations", strconv.Itoa(opts.Iterations), "--duration", opts.Duration.String()}
		timeout := childTimeout + 2*opts.Duration
		if opts.Verbose {
			fmt.Fprintf(opts.IO.ErrOut, "conformance: running the suite against %s\n", name)
		}
		res, err := runConformanceProcess(ctx, conformanceCommand, exe, args, timeout)
		if err != nil {
			return err
		}
		tab.add(name, res)
	}
	out := opts.IO.Out
	var file *os.File
	if opts.Output != "" && opts.Output != "-" {
		file, err = os.Create(opts.Output)
		if err != nil {
			return usagef("-o: %v", err)
		}
		out = file
	}
	if err := render(tab, opts.Format, out); err != nil {
		if file != nil {
			file.Close()
		}
		return err
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", opts.Output, err)
		}
	}
	if !tab.Passed() {
		return &exitError{code: ExitRegression, err: errSilent}
	}
	return nil
}

// runConformanceChild runs the suite against one store in this process
// through testing.MainStart and returns an exitError with the suite's exit
// code (the parent reads the results from the output, not the code).
func runConformanceChild(stdout io.Writer, store string, opts conformance.DifferentialOptions) error {
	info, err := certstore.LookupFactory(store)
	if err != nil {
		return usageError(err)
	}
	tests := []testing.InternalTest{{
		Name: "TestConformance",
		F: func(t *testing.T) {
			conformance.RunWith(t, info.New, conformance.Options{Differential: opts})
		},
	}}
	m := testing.MainStart(testDeps{}, tests, nil, nil, nil)
	if err := flag.CommandLine.Parse([]string{"-test.v=test2json", "-test.count=1", "-test.timeout=0"}); err != nil {
		return usageError(err)
	}
	if code := m.Run(); code != 0 {
		return &exitError{code: code, err: errSilent}
	}
	return nil
}

// conformanceCommand makes the child process's command; tests replace it
// to run their own binary's main.
var conformanceCommand = func(ctx context.Context, exe string, args []string) *exec.Cmd {
	return exec.CommandContext(ctx, exe, args...)
}

// ruleResult is one rule's outcome for one store.
type ruleResult struct {
	Result string   `json:"result"`
	Output []string `json:"output,omitempty"`
}

// suiteRun is what one child reported.
type suiteRun struct {
	order   []string
	results map[string]*ruleResult
	crash   string // output after the last framed line when the child died
}

// runConformanceProcess runs one child and parses its test2json-framed
// output.
func runConformanceProcess(ctx context.Context, command func(ctx context.Context, exe string, args []string) *exec.Cmd, exe string, args []string, timeout time.Duration) (*suiteRun, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := command(ctx, exe, args)
	var out bytes.Buffer
	c.Stdout = &out
	c.Stderr = &out
	err := c.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("conformance: running %s: %w", exe, err)
	}
	run := parseSuiteOutput(out.Bytes())
	if len(run.order) == 0 {
		return nil, fmt.Errorf("conformance: %s %s printed no rule results (exit %v); is conformance routed to certbench's cli? output:\n%s",
			exe, strings.Join(args, " "), err, limitText(out.String(), 4000))
	}
	return run, nil
}

func limitText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "\n..."
	}
	return s
}

// frame is the byte testing puts before its own lines in test2json mode.
const frame = "\x16"

var resultLine = regexp.MustCompile(`^--- (PASS|FAIL|SKIP): (\S+) \(`)

// parseSuiteOutput reads the results of TestConformance's subtests. Only
// leaf subtests are rules; a subtest that started but never ended (the
// process died) is a failure with the rest of the output as its message.
func parseSuiteOutput(out []byte) *suiteRun {
	run := &suiteRun{results: map[string]*ruleResult{}}
	started := map[string]bool{}
	var startOrder []string
	cur := ""
	outputs := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		trim := strings.TrimLeft(line, " ")
		if body, ok := strings.CutPrefix(trim, frame); ok {
			switch {
			case strings.HasPrefix(body, "=== RUN   "), strings.HasPrefix(body, "=== CONT  "), strings.HasPrefix(body, "=== NAME  "), strings.HasPrefix(body, "=== PAUSE "):
				cur = strings.TrimSpace(body[10:])
				if strings.HasPrefix(body, "=== RUN") && !started[cur] {
					started[cur] = true
					startOrder = append(startOrder, cur)
				}
			case resultLine.MatchString(body):
				m := resultLine.FindStringSubmatch(body)
				res := map[string]string{"PASS": rulePass, "FAIL": ruleFail, "SKIP": ruleSkip}[m[1]]
				run.results[m[2]] = &ruleResult{Result: res}
				cur = m[2]
			}
			continue
		}
		if cur != "" {
			outputs[cur] = append(outputs[cur], strings.TrimRight(line, " \t"))
		}
	}
	// Leaf subtests of TestConformance, in the order they started.
	for _, name := range startOrder {
		rule, ok := strings.CutPrefix(name, "TestConformance/")
		if !ok {
			continue
		}
		leaf := true
		for _, other := range startOrder {
			if strings.HasPrefix(other, name+"/") {
				leaf = false
				break
			}
		}
		if !leaf {
			continue
		}
		r := run.results[name]
		if r == nil {
			r = &ruleResult{Result: ruleFail}
			run.results[name] = r
			run.crash = rule
			r.Output = append(r.Output, "the suite's process ended during this rule (a crash, or a timeout)")
		}
		if r.Result == ruleFail {
			r.Output = append(r.Output, trimOutput(outputs[name])...)
		} else {
			for _, l := range outputs[name] {
				if strings.Contains(l, "differential seed") || strings.Contains(l, "known deviation") {
					r.Output = append(r.Output, strings.TrimSpace(l))
				}
			}
		}
		delete(run.results, name)
		run.results[rule] = r
		run.order = append(run.order, rule)
	}
	return run
}

// trimOutput drops blank trailing lines and the indentation testing adds,
// and bounds a rule's message.
func trimOutput(lines []string) []string {
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	indent := -1
	for _, l := range lines {
		if l == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			l = l[indent:]
		}
		out[i] = l
	}
	lines = out
	if len(lines) > 200 {
		lines = append(lines[:200:200], fmt.Sprintf("... (%d more lines)", len(lines)-200))
	}
	return lines
}

// conformanceTable is the rule x store table, the command's report.
type conformanceTable struct {
	Stores []string
	Seed   uint64
	Rules  []string
	Cells  map[string]map[string]*ruleResult // rule -> store -> result
}

func (t *conformanceTable) add(store string, run *suiteRun) {
	if t.Cells == nil {
		t.Cells = map[string]map[string]*ruleResult{}
	}
	for _, rule := range run.order {
		if t.Cells[rule] == nil {
			t.Cells[rule] = map[string]*ruleResult{}
			t.Rules = append(t.Rules, rule)
		}
		t.Cells[rule][store] = run.results[rule]
	}
}

// Passed reports whether every store passed (or skipped) every rule.
func (t *conformanceTable) Passed() bool {
	for _, rule := range t.Rules {
		for _, st := range t.Stores {
			if r := t.Cells[rule][st]; r == nil || r.Result == ruleFail {
				return false
			}
		}
	}
	return true
}

func (t *conformanceTable) cell(rule, store string) string {
	if r := t.Cells[rule][store]; r != nil {
		return r.Result
	}
	return "-"
}

// passCounts is "n / m" rules passed per store.
func (t *conformanceTable) passCount(store string) string {
	n, m := 0, 0
	for _, rule := range t.Rules {
		if r := t.Cells[rule][store]; r != nil {
			m++
			if r.Result == rulePass {
				n++
			}
		}
	}
	return fmt.Sprintf("%d / %d", n, m)
}

// WriteText writes the table and then every failure's message.
func (t *conformanceTable) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "rule\t%s\n", strings.Join(t.Stores, "\t"))
	for _, rule := range t.Rules {
		row := []string{rule}
		for _, st := range t.Stores {
			row = append(row, t.cell(rule, st))
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	row := []string{"rules passed"}
	for _, st := range t.Stores {
		row = append(row, t.passCount(st))
	}
	fmt.Fprintln(tw, strings.Join(row, "\t"))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, st := range t.Stores {
		for _, rule := range t.Rules {
			if r := t.Cells[rule][st]; r != nil && r.Result != ruleFail && len(r.Output) > 0 {
				fmt.Fprintf(w, "\n%s: %s:\n", st, rule)
				for _, l := range r.Output {
					fmt.Fprintln(w, "    "+l)
				}
			}
		}
	}
	for _, st := range t.Stores {
		for _, rule := range t.Rules {
			if r := t.Cells[rule][st]; r != nil && r.Result == ruleFail {
				fmt.Fprintf(w, "\n--- %s: %s\n", st, rule)
				for _, l := range r.Output {
					fmt.Fprintln(w, "    "+l)
				}
			}
		}
	}
	return nil
}

// WriteMarkdown writes the table as a Markdown table (failures in bold).
func (t *conformanceTable) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("| rule |")
	for _, st := range t.Stores {
		fmt.Fprintf(&b, " %s |", st)
	}
	b.WriteString("\n|---|" + strings.Repeat(":-:|", len(t.Stores)) + "\n")
	for _, rule := range t.Rules {
		fmt.Fprintf(&b, "| `%s` |", rule)
		for _, st := range t.Stores {
			c := t.cell(rule, st)
			if c == ruleFail {
				c = "**FAIL**"
			}
			fmt.Fprintf(&b, " %s |", c)
		}
		b.WriteString("\n")
	}
	b.WriteString("| **rules passed** |")
	for _, st := range t.Stores {
		fmt.Fprintf(&b, " **%s** |", t.passCount(st))
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the stores, the rules in order with each store's result
// and the failures' output, and whether everything passed.
func (t *conformanceTable) WriteJSON(w io.Writer) error {
	type rule struct {
		Rule    string                 `json:"rule"`
		Results map[string]*ruleResult `json:"results"`
	}
	doc := struct {
		Stores []string `json:"stores"`
		Seed   uint64   `json:"seed"`
		Passed bool     `json:"passed"`
		Rules  []rule   `json:"rules"`
	}{Stores: t.Stores, Seed: t.Seed, Passed: t.Passed()}
	for _, r := range t.Rules {
		doc.Rules = append(doc.Rules, rule{Rule: r, Results: t.Cells[r]})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// testDeps is the minimal implementation of the interface testing.MainStart
// takes (what "go test" generates with testing/internal/testdeps): test
// filtering by regular expression; no profiling, fuzzing or coverage.
type testDeps struct{}

func (testDeps) ImportPath() string                          { return "certbench/conformance" }
func (testDeps) ModulePath() string                          { return "" }
func (testDeps) MatchString(pat, str string) (bool, error)   { return regexp.MatchString(pat, str) }
func (testDeps) SetPanicOnExit0(bool)                        {}
func (testDeps) StartCPUProfile(io.Writer) error             { return errNotSupported }
func (testDeps) StopCPUProfile()                             {}
func (testDeps) StartTestLog(io.Writer)                      {}
func (testDeps) StopTestLog() error                          { return nil }
func (testDeps) WriteProfileTo(string, io.Writer, int) error { return errNotSupported }
func (testDeps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry, []reflect.Type, string, string) error {
	return errNotSupported
}
func (testDeps) RunFuzzWorker(func(corpusEntry) error) error { return errNotSupported }
func (testDeps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) {
	return nil, errNotSupported
}
func (testDeps) CheckCorpus([]any, []reflect.Type) error { return nil }
func (testDeps) ResetCoverage()                          {}
func (testDeps) SnapshotCoverage()                       {}
func (testDeps) InitRuntimeCoverage() (string, func(string, string) (string, error), func() float64) {
	return "", nil, nil
}

// corpusEntry is the type testing's fuzzing interface passes around (an
// alias of an unnamed struct, so it can be spelled out here).
type corpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []any
	Generation int
	IsSeed     bool
}

var errNotSupported = errors.New("not supported by certbench conformance")

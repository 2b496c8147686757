package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/internal/ci/gate"
	goldenfile "github.com/certbench/certbench/internal/golden"
	"github.com/certbench/certbench/scenarios"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	_ "github.com/certbench/certbench/stores/naive"
)

// testIO returns an IO writing into two buffers.
func testIO() (ioStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return ioStreams{Out: &out, ErrOut: &errOut}, &out, &errOut
}

// parse runs cmd on args with its run function replaced, and returns the
// error of parsing (the options are what the capture saw).
func parse(t *testing.T, cmd *cobra.Command, args ...string) error {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.Flags().SetOutput(&errOut)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	return cmd.ExecuteContext(context.Background())
}

// Flag handling: what command lines turn into, apart from behaviour.
func TestFlagsMakeOptions(t *testing.T) {
	t.Run("run", func(t *testing.T) {
		var got *runOptions
		cmd := newRunCmd(func(_ context.Context, o *runOptions) error { got = o; return nil })
		if err := parse(t, cmd, "--stores", "optimized", "--scenarios", "a,b", "--count", "3", "--ops", "4", "-q", "-o", "r.txt", "--sample-timeout", "90s"); err != nil {
			t.Fatal(err)
		}
		want := benchFlags{Stores: []string{"optimized"}, Scenarios: []string{"a", "b"}, Count: 3, Ops: 4, Quiet: true, SampleTimeout: 90 * time.Second}
		if !reflect.DeepEqual(got.benchFlags, want) || got.Output != "r.txt" {
			t.Errorf("%+v", got)
		}
	})
	t.Run("compare", func(t *testing.T) {
		var got *compareOptions
		cmd := newCompareCmd(func(_ context.Context, o *compareOptions) error { got = o; return nil })
		if err := parse(t, cmd, "--scenarios", "x", "--count", "2", "-o", "f", "--row", ".name", "--format", "md", "a.txt", "b.txt"); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Files, []string{"a.txt", "b.txt"}) || got.StoresGiven || !got.ScenariosGiven ||
			!reflect.DeepEqual(got.RunOnlyGiven, []string{"--count", "-o/--output"}) || got.Row != ".name" || got.Format != "md" ||
			len(got.Stores) == 0 {
			t.Errorf("%+v", got)
		}
	})
	t.Run("gate", func(t *testing.T) {
		var got *gateOptions
		cmd := newGateCmd(func(_ context.Context, o *gateOptions) error { got = o; return nil })
		if err := parse(t, cmd, "--baseline", "b.txt", "--max", "sec/op=+5%", "--max", "B/op=+1KiB", "--config", "", "h.txt"); err != nil {
			t.Fatal(err)
		}
		p := got.Policy
		if got.Base != "b.txt" || !reflect.DeepEqual(got.Heads, []string{"h.txt"}) || p.Max.String() != "sec/op=+5%,B/op=+1KiB" ||
			p.Config != "" || !p.NoConfig {
			t.Errorf("%+v", got)
		}
		for args, want := range map[string]string{
			"one.txt":              "gate needs BASE.txt and HEAD.txt",
			"--baseline b a c":     "exactly one HEAD file",
			"--summary= a.txt b":   "--summary: empty file name",
			"--base-profiles= a b": "--base-profiles: empty file name",
		} {
			cmd := newGateCmd(func(context.Context, *gateOptions) error { t.Errorf("%s: ran", args); return nil })
			if err := parse(t, cmd, strings.Fields(args)...); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", args, err, want)
			}
		}
	})
	t.Run("profile", func(t *testing.T) {
		var got *profileOptions
		cmd := newProfileCmd(func(_ context.Context, o *profileOptions) error { got = o; return nil })
		if err := parse(t, cmd, "--stores", "naive,optimized", "--scenarios", "x", "--all", "--out", "d", "--top", "3"); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Stores, []string{"naive", "optimized"}) || !reflect.DeepEqual(got.Scenarios, []string{"x"}) ||
			!got.All || got.Out != "d" || got.Top != 3 || got.Format != "text" {
			t.Errorf("%+v", got)
		}
	})
	t.Run("profile diff", func(t *testing.T) {
		var got *profileDiffOptions
		cmd := newProfileDiffCmd(func(_ context.Context, o *profileDiffOptions) error { got = o; return nil })
		if err := parse(t, cmd, "--type", "inuse_space", "a", "b"); err != nil {
			t.Fatal(err)
		}
		if got.Base != "a" || got.Head != "b" || !reflect.DeepEqual(got.Types, []string{"inuse_space"}) {
			t.Errorf("%+v", got)
		}
	})
	t.Run("sweep", func(t *testing.T) {
		var got *sweepOptions
		cmd := newSweepCmd(func(_ context.Context, o *sweepOptions) error { got = o; return nil })
		if err := parse(t, cmd, "--scenarios", "renew-1,noop", "--sizes", "10,20", "--budget", "1m"); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Families, []string{"renew-1", "noop"}) || !reflect.DeepEqual(got.Sizes, []int{10, 20}) ||
			got.Budget != time.Minute {
			t.Errorf("%+v", got)
		}
	})
	t.Run("report", func(t *testing.T) {
		var got *reportOptions
		cmd := newReportCmd(func(_ context.Context, o *reportOptions) error { got = o; return nil })
		if err := parse(t, cmd, "--by-file", "--png", "p", "a.txt"); err != nil {
			t.Fatal(err)
		}
		if got.Output != "report.html" || !got.ByFile || got.PNGDir != "p" {
			t.Errorf("%+v", got)
		}
	})
	t.Run("merge list conformance", func(t *testing.T) {
		var m *mergeOptions
		if err := parse(t, newMergeCmd(func(_ context.Context, o *mergeOptions) error { m = o; return nil }), "-o", "x", "a", "b"); err != nil ||
			m.Output != "x" || !reflect.DeepEqual(m.Files, []string{"a", "b"}) {
			t.Errorf("merge: %v %+v", err, m)
		}
		var l *listOptions
		if err := parse(t, newListCmd(func(_ context.Context, o *listOptions) error { l = o; return nil }), "--format", "json"); err != nil || l.Format != "json" {
			t.Errorf("list: %v %+v", err, l)
		}
		var c *conformanceOptions
		if err := parse(t, newConformanceCmd(func(_ context.Context, o *conformanceOptions) error { c = o; return nil }),
			"--stores", "naive", "--seed", "7", "--iterations", "5", "-v"); err != nil ||
			!reflect.DeepEqual(c.Stores, []string{"naive"}) || c.Seed != 7 || c.Iterations != 5 || !c.Verbose {
			t.Errorf("conformance: %v %+v", err, c)
		}
	})
}

// Behaviour: each run function called with an Options literal.
func TestRunFunctions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	t.Run("list", func(t *testing.T) {
		io, out, _ := testIO()
		if err := runList(ctx, &listOptions{ioStreams: io, Format: "json"}); err != nil {
			t.Fatal(err)
		}
		goldenfile.Check(t, filepath.Join("testdata", "list.json.golden"), out.Bytes())
		if err := runList(ctx, &listOptions{ioStreams: io, Format: "yaml"}); err == nil || !strings.Contains(err.Error(), `--format "yaml"`) {
			t.Errorf("yaml: %v", err)
		}
	})
	results := filepath.Join(dir, "r.txt")
	t.Run("run", func(t *testing.T) {
		io, _, _ := testIO()
		opts := &runOptions{ioStreams: io, Output: results, benchFlags: benchFlags{Stores: []string{"optimized"}, Scenarios: []string{"rotate-10-of-100"}, Count: 2, Ops: 2}}
		if err := runRun(ctx, opts); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(results)
		if err != nil || strings.Count(string(data), "BenchmarkChurn/scenario=rotate-10-of-100/store=optimized") != 2 {
			t.Errorf("%v\n%s", err, data)
		}
		opts.Count = 0
		if err := runRun(ctx, opts); err == nil || !strings.Contains(err.Error(), "--count 0") {
			t.Errorf("count 0: %v", err)
		}
	})
	t.Run("merge", func(t *testing.T) {
		io, out, _ := testIO()
		if err := runMerge(ctx, &mergeOptions{ioStreams: io, Files: []string{"testdata/old.txt", "testdata/new.txt"}}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "BenchmarkChurn/scenario=") || !strings.Contains(out.String(), "Unit ") {
			t.Errorf("merged:\n%.300s", out.String())
		}
	})
	t.Run("compare", func(t *testing.T) {
		io, out, _ := testIO()
		opts := &compareOptions{ioStreams: io, Files: []string{"testdata/old.txt", "testdata/new.txt"}, Format: "text",
			benchFlags: benchFlags{Stores: []string{"optimized"}, Scenarios: []string{"rotate-10-of-100"}}, StoresGiven: true, ScenariosGiven: true}
		if err := runCompare(ctx, opts); err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile("testdata/compare-filtered.txt.golden")
		if err != nil || out.String() != string(want) {
			t.Errorf("%v; got\n%s\nwant\n%s", err, out.String(), want)
		}
		opts.RunOnlyGiven = []string{"--ops"}
		if err := runCompare(ctx, opts); err == nil || !strings.Contains(err.Error(), "--ops applies only when compare runs") {
			t.Errorf("run-only flag with files: %v", err)
		}
	})
	t.Run("gate", func(t *testing.T) {
		io, out, _ := testIO()
		opts := &gateOptions{ioStreams: io, Base: gateData + "base.txt", Heads: []string{gateData + "alloc1.txt"}, Format: "text",
			Policy: gate.PolicyFlags{NoConfig: true}}
		err := runGate(ctx, opts)
		var ee *exitError
		if !asExit(err, &ee) || ee.code != ExitRegression || !strings.Contains(out.String(), "FAIL: 1 regression") {
			t.Errorf("alloc1: %v\n%s", err, out.String())
		}
		out.Reset()
		opts.Policy.Max = gate.Thresholds{"allocs/op": gate.MustThreshold("+1allocs")}
		if err := runGate(ctx, opts); err != nil || !strings.Contains(out.String(), "PASS") || !strings.Contains(out.String(), "with --max") {
			t.Errorf("+1allocs: %v\n%s", err, out.String())
		}
	})
	t.Run("profile", func(t *testing.T) {
		io, out, _ := testIO()
		pdir := filepath.Join(dir, "profiles")
		opts := &profileOptions{ioStreams: io, Stores: []string{"optimized"}, Scenarios: []string{"rotate-10-of-100"}, All: true, Quiet: true, Out: pdir, Ops: 2,
			profileOutput: profileOutput{Top: 2, Format: "text"}}
		if err := runProfile(ctx, opts); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"rotate-10-of-100.optimized.pb.gz", "index.md", "index.json"} {
			if _, err := os.Stat(filepath.Join(pdir, f)); err != nil {
				t.Error(err)
			}
		}
		if !strings.Contains(out.String(), "top site") {
			t.Errorf("output:\n%s", out.String())
		}
		opts.All, opts.Scenarios = false, nil
		if err := runProfile(ctx, opts); err == nil || !strings.Contains(err.Error(), "--stores S --scenarios X") {
			t.Errorf("no scenario: %v", err)
		}
	})
	t.Run("sweep", func(t *testing.T) {
		io, out, errOut := testIO()
		opts := &sweepOptions{ioStreams: io, Families: []string{"noop"}, Sizes: []int{2, 4}, Stores: []string{"optimized"}, Count: 1, Quiet: true}
		if err := runSweep(ctx, opts); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "BenchmarkSweep/family=noop/size=4/") || !strings.Contains(errOut.String(), "sweep took") {
			t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		}
		opts.Families = []string{"noop-10000"}
		if err := runSweep(ctx, opts); err == nil || !strings.Contains(err.Error(), "--scenarios: ") {
			t.Errorf("a scenario for a family: %v", err)
		}
	})
	t.Run("report", func(t *testing.T) {
		io, out, _ := testIO()
		page := filepath.Join(dir, "r.html")
		if err := runReport(ctx, &reportOptions{ioStreams: io, Files: []string{"testdata/old.txt", "testdata/new.txt"}, Output: page, ByFile: true}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), "wrote "+page) {
			t.Errorf("stdout %q", out.String())
		}
		if err := runReport(ctx, &reportOptions{ioStreams: io, Files: []string{"testdata/old.txt"}}); err == nil || !strings.Contains(err.Error(), "-o: name the HTML file") {
			t.Errorf("no -o: %v", err)
		}
	})
	t.Run("conformance", func(t *testing.T) {
		io, _, _ := testIO()
		for _, tc := range []struct {
			opts conformanceOptions
			want string
		}{
			{conformanceOptions{ioStreams: io, Format: "csv"}, `--format "csv"`},
			{conformanceOptions{ioStreams: io, Format: "text", Iterations: -1}, "must not be negative"},
			{conformanceOptions{ioStreams: io, Format: "text", Stores: []string{"no-such-store"}}, `"no-such-store"`},
		} {
			if err := runConformance(ctx, &tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
			}
		}
	})
}

// gateData is where the gate package keeps its crafted inputs.
const gateData = "../internal/ci/gate/testdata/"

func asExit(err error, ee **exitError) bool {
	e, ok := err.(*exitError)
	*ee = e
	return ok
}

// pflagTypeNames are the names pflag gives values in the help when the
// usage names none: they say how the flag is stored, not what to write.
var pflagTypeNames = []string{
	"string", "strings", "stringSlice", "stringArray", "stringToInt", "stringToInt64", "stringToString",
	"int", "ints", "intSlice", "int8", "int16", "int32", "int64", "uint", "uints", "uintSlice", "uint8", "uint16", "uint32", "uint64",
	"float", "float32", "float64", "float32Slice", "float64Slice", "duration", "durationSlice", "bools", "boolSlice", "value",
	"bytesHex", "bytesBase64", "ip", "ipSlice", "ipMask", "ipNet", "count",
}

// No help shows a pflag type name where a flag's value is named.
func TestHelpNamesValuesNotTypes(t *testing.T) {
	root := NewRoot(new(bytes.Buffer), new(bytes.Buffer))
	flagLine := regexp.MustCompile(`^\s+(?:-\w, )?--([\w-]+) (\S+)`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var buf bytes.Buffer
		c.SetOut(&buf)
		if err := c.Help(); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(buf.String(), "\n") {
			m := flagLine.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			for _, name := range pflagTypeNames {
				if m[2] == name {
					t.Errorf("%s --help: --%s shows the pflag type %q:\n%s", c.CommandPath(), m[1], name, line)
				}
			}
		}
		for _, ty := range []string{"stringToInt", "stringSlice", "intSlice", "stringArray"} {
			if strings.Contains(buf.String(), ty) {
				t.Errorf("%s --help mentions %s", c.CommandPath(), ty)
			}
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			name, _ := pflag.UnquoteUsage(f)
			for _, ty := range pflagTypeNames {
				if name == ty {
					t.Errorf("%s: --%s's value is named %q, a pflag type", c.CommandPath(), f.Name, name)
				}
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// Every command that takes --stores or --scenarios completes them.
func TestCompletion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"run", "--stores", "na"}, []string{"naive"}, []string{"optimized"}},
		{[]string{"compare", "--stores", "naive,"}, []string{"naive,optimized"}, []string{"naive,naive"}},
		{[]string{"compare", "--scenarios", "rotate-10"}, []string{"rotate-10-of-100", "rotate-10-of-100-rsa"}, []string{"renew-1-of-1000"}},
		{[]string{"profile", "--scenarios", "look"}, []string{"lookup-1000"}, nil},
		{[]string{"profile", "--stores", "opt"}, []string{"optimized"}, nil},
		{[]string{"sweep", "--scenarios", ""}, []string{"renew-1", "noop", "rotate-10", "startup"}, []string{"renew-1-of-1000"}},
		{[]string{"sweep", "--stores", "o"}, []string{"optimized"}, nil},
		{[]string{"conformance", "--stores", "n"}, []string{"naive"}, nil},
	} {
		var out bytes.Buffer
		root := NewRoot(&out, new(bytes.Buffer))
		root.SetArgs(append([]string{cobra.ShellCompRequestCmd}, tc.args...))
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		got := strings.Split(strings.TrimSpace(out.String()), "\n")
		for _, w := range tc.want {
			if !contains(got, w) {
				t.Errorf("%v: completions %q lack %q", tc.args, got, w)
			}
		}
		for _, n := range tc.not {
			if contains(got, n) {
				t.Errorf("%v: completions %q have %q", tc.args, got, n)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// list --format json parses, and names every scenario's kind, pool and ops.
func TestListJSONShape(t *testing.T) {
	io, out, _ := testIO()
	if err := runList(context.Background(), &listOptions{ioStreams: io, Format: "json"}); err != nil {
		t.Fatal(err)
	}
	var doc listDoc
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Stores) < 2 || len(doc.Scenarios) < 9 || len(doc.Families) != len(scenarios.Families) {
		t.Fatalf("%+v", doc)
	}
	for _, s := range doc.Scenarios {
		if s.Kind == "" || s.PoolSize < 1 || s.Ops < 1 {
			t.Errorf("scenario %+v", s)
		}
	}
}

// The sample timeout: 0 is no limit (negative for bench); a negative one
// is refused.
func TestSampleTimeout(t *testing.T) {
	for _, tc := range []struct {
		f    benchFlags
		want time.Duration
	}{
		{benchFlags{SampleTimeout: 10 * time.Minute}, 10 * time.Minute},
		{benchFlags{SampleTimeout: 0}, -1},
	} {
		got, err := tc.f.sampleTimeout()
		if err != nil || got != tc.want {
			t.Errorf("%+v: %v, %v; want %v", tc.f, got, err, tc.want)
		}
	}
	if _, err := (&benchFlags{SampleTimeout: -time.Second}).sampleTimeout(); err == nil {
		t.Error("a negative --sample-timeout is accepted")
	}
}

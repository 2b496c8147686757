package gate_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/gate"
	"github.com/certbench/certbench/results"
	"github.com/spf13/pflag"
)

// flags returns f with the policy flags of args set, as certbench gate
// sets them: each flag into f.Set, named in f.Given by its key.
func flags(t *testing.T, f gate.PolicyFlags, args ...string) gate.PolicyFlags {
	t.Helper()
	fs := pflag.NewFlagSet("gate", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Set = gate.DefaultPolicy()
	f.Set.Max = nil
	fs.Var(&f.Set.Max, "max", "")
	fs.Float64Var(&f.Set.Alpha, "alpha", 0, "")
	fs.IntVar(&f.Set.MinSamples, "min-samples", 0, "")
	fs.StringVar((*string)(&f.Set.Correction), "correction", "", "")
	fs.StringVar((*string)(&f.Set.Test), "test", "", "")
	fs.BoolVar(&f.Set.Strict, "strict", false, "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	fs.Visit(func(fl *pflag.Flag) { f.Given = append(f.Given, strings.ReplaceAll(fl.Name, "-", "_")) })
	return f
}

// ResolvePolicy: flags over the policy file over the built-in defaults,
// with the policy's Source naming each, and errors naming the flag.
func TestResolvePolicy(t *testing.T) {
	dir := t.TempDir()
	found := filepath.Join(dir, gate.DefaultConfig)
	if err := os.WriteFile(found, []byte("gate:\n  strict: true\n  max:\n    allocs/op: +1allocs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte("gate:\n  max:\n    allocs/op: +0%\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()

	// Nothing given, no file: the built-in defaults.
	p, err := gate.ResolvePolicy(gate.PolicyFlags{Dir: empty})
	if err != nil || p.Source != "built-in defaults" || p.Max[results.UnitAllocs].String() != "+0%" || p.Strict {
		t.Errorf("defaults: %v, source %q, allocs %v, strict %v", err, p.Source, p.Max[results.UnitAllocs], p.Strict)
	}
	// The file found in Dir.
	p, err = gate.ResolvePolicy(gate.PolicyFlags{Dir: dir})
	if err != nil || p.Source != found+" (found in "+dir+")" || p.Max[results.UnitAllocs].String() != "+1allocs" || !p.Strict {
		t.Errorf("found file: %v, source %q, allocs %v, strict %v", err, p.Source, p.Max[results.UnitAllocs], p.Strict)
	}
	// Flags beat the file, and are named in the source.
	p, err = gate.ResolvePolicy(flags(t, gate.PolicyFlags{Dir: dir}, "--max", "allocs/op=+0%", "--strict=false", "--alpha", "0.01", "--min-samples", "6", "--correction", "none"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Max[results.UnitAllocs].String() != "+0%" || p.Strict || p.Alpha != 0.01 || p.MinSamples != 6 || p.Correction != gate.NoCorrection {
		t.Errorf("flags over file: %+v", p)
	}
	if want := found + " (found in " + dir + ") with --alpha, --min-samples, --correction, --strict, --max"; p.Source != want {
		t.Errorf("source %q, want %q", p.Source, want)
	}
	// An explicit file beats the one found; "" and NoConfig mean the defaults.
	p, err = gate.ResolvePolicy(gate.PolicyFlags{Dir: dir, Config: other})
	if err != nil || p.Source != other+" (--config)" || p.Strict {
		t.Errorf("--config: %v, source %q", err, p.Source)
	}
	for _, f := range []gate.PolicyFlags{{Dir: dir, NoConfig: true}} {
		p, err := gate.ResolvePolicy(f)
		if err != nil || !strings.HasPrefix(p.Source, "built-in defaults (") || p.Strict {
			t.Errorf("%+v: %v, source %q", f, err, p.Source)
		}
	}
	// The file's policy is not changed by the flags applied to it.
	p1, _ := gate.ResolvePolicy(flags(t, gate.PolicyFlags{Config: other}, "--max", "allocs/op=off", "--max", "B/op=+1KiB"))
	p2, _ := gate.ResolvePolicy(gate.PolicyFlags{Config: other})
	if p1.Max[results.UnitAllocs].String() != "off" || p2.Max[results.UnitAllocs].String() != "+0%" {
		t.Errorf("flags leaked: %v then %v", p1.Max[results.UnitAllocs], p2.Max[results.UnitAllocs])
	}

	allOff := []string{"--max", "sec/op=off", "--max", "B/op=off", "--max", "allocs/op=off", "--max", "retained-B=off", "--max", "goroutines=off",
		"--max", "held-B/gen=off", "--max", "held-goroutines/gen=off", "--max", "released-held-B=off", "--max", "released-held-goroutines=off",
		"--max", "instructions/op=off", "--max", "est-cycles/op=off"}
	for _, tc := range []struct {
		name string
		f    gate.PolicyFlags
		want string
	}{
		{"both config flags", gate.PolicyFlags{Config: other, NoConfig: true}, "--config and --no-config: give one or the other"},
		{"missing config", gate.PolicyFlags{Config: filepath.Join(dir, "nosuch.yaml")}, "--config: "},
		{"alpha", flags(t, gate.PolicyFlags{Dir: empty}, "--alpha", "1"), "--alpha 1: want a significance level between 0 and 1"},
		{"alpha 0", flags(t, gate.PolicyFlags{Dir: empty}, "--alpha", "0"), "--alpha 0: want a significance level between 0 and 1 (exclusive), such as 0.05 (0 is not the default"},
		{"min samples", flags(t, gate.PolicyFlags{Dir: empty}, "--alpha", "0.01", "--min-samples", "4"), "--min-samples 4: the U test cannot reach p < 0.01 with fewer than 5"},
		{"correction", flags(t, gate.PolicyFlags{Dir: empty}, "--correction", "sidak"), `--correction "sidak": want holm or none`},
		{"test", flags(t, gate.PolicyFlags{Dir: empty}, "--test", "both"), `--test "both": want auto, paired or unpaired`},
		{"everything off", flags(t, gate.PolicyFlags{Dir: empty}, allOff...), "built-in defaults: every metric is off"},
		{"not a setting", gate.PolicyFlags{Dir: empty, Given: []string{"colour"}}, "--colour: not a policy setting"},
	} {
		if _, err := gate.ResolvePolicy(tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	// --max values are checked as they are set.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sec/op=+5%", "ns/op=+10%"}, `sec/op is already set by an earlier --max`},
		{[]string{"sec/op=10"}, `threshold "10": a bare number is ambiguous`},
		{[]string{"sec/op"}, `want UNIT=THRESHOLD`},
		{[]string{"ms/op=+1%"}, `unknown unit "ms/op"`},
	} {
		var th gate.Thresholds
		var err error
		for _, a := range tc.args {
			if err = th.Set(a); err != nil {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--max %v: error %v, want %q", tc.args, err, tc.want)
		}
	}
	// A broken file found in Dir is an error with the way out.
	if err := os.WriteFile(found, []byte("gate:\n  max:\n    sec/op: 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := gate.ResolvePolicy(gate.PolicyFlags{Dir: dir}); err == nil || !strings.Contains(err.Error(), "--no-config to use the built-in defaults") {
		t.Errorf("broken found file: %v", err)
	}
}

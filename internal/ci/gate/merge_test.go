package gate_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
	"github.com/certbench/certbench/results"
	"github.com/spf13/pflag"
)

// flags returns f with --max set from args, as certbench gate sets it.
func flags(t *testing.T, f gate.PolicyFlags, args ...string) gate.PolicyFlags {
	t.Helper()
	fs := pflag.NewFlagSet("gate", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&f.Max, "max", "")
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// ResolvePolicy: --max over the policy file over the built-in defaults,
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
	// --max beats the file's threshold of its unit, the rest of the file
	// holds, and the source says so.
	p, err = gate.ResolvePolicy(flags(t, gate.PolicyFlags{Dir: dir}, "--max", "allocs/op=+0%"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Max[results.UnitAllocs].String() != "+0%" || !p.Strict {
		t.Errorf("--max over file: %+v", p)
	}
	if want := found + " (found in " + dir + ") with --max"; p.Source != want {
		t.Errorf("source %q, want %q", p.Source, want)
	}
	// An explicit file beats the one found; "" and NoConfig mean the defaults.
	p, err = gate.ResolvePolicy(gate.PolicyFlags{Dir: dir, Config: other})
	if err != nil || p.Source != other+" (--config)" || p.Strict {
		t.Errorf("--config: %v, source %q", err, p.Source)
	}
	for _, f := range []gate.PolicyFlags{{Dir: dir, NoConfig: true}} {
		p, err := gate.ResolvePolicy(f)
		if err != nil || p.Source != "built-in defaults" || p.Strict {
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
		{"missing config", gate.PolicyFlags{Config: filepath.Join(dir, "nosuch.yaml")}, "--config: "},
		{"everything off", flags(t, gate.PolicyFlags{Dir: empty}, allOff...), "built-in defaults: every metric is off"},
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
	if _, err := gate.ResolvePolicy(gate.PolicyFlags{Dir: dir}); err == nil || !strings.Contains(err.Error(), "--config '' uses the built-in defaults") {
		t.Errorf("broken found file: %v", err)
	}
}

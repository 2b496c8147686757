package gate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/gate"
)

func ptr[T any](v T) *T { return &v }

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
	if err != nil || p.Source != "built-in defaults" || p.Max[gate.UnitAllocs].String() != "+0%" || p.Strict {
		t.Errorf("defaults: %v, source %q, allocs %v, strict %v", err, p.Source, p.Max[gate.UnitAllocs], p.Strict)
	}
	// The file found in Dir.
	p, err = gate.ResolvePolicy(gate.PolicyFlags{Dir: dir})
	if err != nil || p.Source != found+" (found in "+dir+")" || p.Max[gate.UnitAllocs].String() != "+1allocs" || !p.Strict {
		t.Errorf("found file: %v, source %q, allocs %v, strict %v", err, p.Source, p.Max[gate.UnitAllocs], p.Strict)
	}
	// Flags beat the file, and are named in the source.
	p, err = gate.ResolvePolicy(gate.PolicyFlags{Dir: dir, Max: []string{"allocs/op=+0%"}, Strict: ptr(false), Alpha: ptr(0.01), MinSamples: ptr(6), Correction: ptr(gate.NoCorrection)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Max[gate.UnitAllocs].String() != "+0%" || p.Strict || p.Alpha != 0.01 || p.MinSamples != 6 || p.Correction != gate.NoCorrection {
		t.Errorf("flags over file: %+v", p)
	}
	if want := found + " (found in " + dir + ") with --max, --alpha, --min-samples, --correction, --strict"; p.Source != want {
		t.Errorf("source %q, want %q", p.Source, want)
	}
	// An explicit file beats the one found; "" and NoConfig mean the defaults.
	p, err = gate.ResolvePolicy(gate.PolicyFlags{Dir: dir, Config: ptr(other)})
	if err != nil || p.Source != other+" (--config)" || p.Strict {
		t.Errorf("--config: %v, source %q", err, p.Source)
	}
	for _, f := range []gate.PolicyFlags{{Dir: dir, Config: ptr("")}, {Dir: dir, NoConfig: true}} {
		p, err := gate.ResolvePolicy(f)
		if err != nil || !strings.HasPrefix(p.Source, "built-in defaults (") || p.Strict {
			t.Errorf("%+v: %v, source %q", f, err, p.Source)
		}
	}
	// The file's policy is not changed by the flags applied to it.
	p1, _ := gate.ResolvePolicy(gate.PolicyFlags{Config: ptr(other), Max: []string{"allocs/op=off", "B/op=+1KiB"}})
	p2, _ := gate.ResolvePolicy(gate.PolicyFlags{Config: ptr(other)})
	if p1.Max[gate.UnitAllocs].String() != "off" || p2.Max[gate.UnitAllocs].String() != "+0%" {
		t.Errorf("flags leaked: %v then %v", p1.Max[gate.UnitAllocs], p2.Max[gate.UnitAllocs])
	}

	allOff := []string{"sec/op=off", "B/op=off", "allocs/op=off", "retained-B=off", "goroutines=off"}
	for _, tc := range []struct {
		name string
		f    gate.PolicyFlags
		want string
	}{
		{"both config flags", gate.PolicyFlags{Config: ptr(other), NoConfig: true}, "--config and --no-config: give one or the other"},
		{"missing config", gate.PolicyFlags{Config: ptr(filepath.Join(dir, "nosuch.yaml"))}, "--config: "},
		{"unit twice", gate.PolicyFlags{Dir: empty, Max: []string{"sec/op=+5%", "ns/op=+10%"}}, `--max "ns/op=+10%": sec/op is already set by --max "sec/op=+5%"`},
		{"bad max", gate.PolicyFlags{Dir: empty, Max: []string{"sec/op=10"}}, `--max "sec/op=10": threshold "10": a bare number is ambiguous`},
		{"alpha", gate.PolicyFlags{Dir: empty, Alpha: ptr(1.0)}, "--alpha 1: want a significance level between 0 and 1"},
		{"min samples", gate.PolicyFlags{Dir: empty, Alpha: ptr(0.01), MinSamples: ptr(4)}, "--min-samples 4: the U test cannot reach p < 0.01 with fewer than 5"},
		{"correction", gate.PolicyFlags{Dir: empty, Correction: ptr(gate.Correction("sidak"))}, `--correction "sidak": want holm or none`},
		{"everything off", gate.PolicyFlags{Dir: empty, Max: allOff}, "built-in defaults: every metric is off"},
	} {
		if _, err := gate.ResolvePolicy(tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
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

package gate_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/internal/ci/gate"
)

func TestParseConfig(t *testing.T) {
	p, err := gate.LoadConfig("../../../certbench.yaml")
	if err != nil {
		t.Fatalf("the sample certbench.yaml: %v", err)
	}
	if th, _ := p.Threshold("rotate-10-of-100", "optimized", "allocs/op"); th.String() != "+0.5allocs" {
		t.Errorf("sample allocs/op %v", th)
	}
	if p.Source != "../../../certbench.yaml" {
		t.Errorf("LoadConfig source %q", p.Source)
	}
	p, err = gate.ParseConfig([]byte(`
report:
  title: other commands' settings are ignored
gate:
  alpha: 0.01
  min_samples: 6
  strict: true
  max:
    sec/op: +15%
    B/op: +1KiB
    retained-B: off
    goroutines: +1goroutines
  overrides:
    - scenario: lookup-*
      max:
        ns/op: +40%
    - store: naive
      max:
        sec/op: +2ms
`), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if p.Alpha != 0.01 || !p.Strict || p.MinSamples != 6 {
		t.Errorf("policy %+v", p)
	}
	checks := []struct{ scenario, store, unit, want string }{
		{"rotate-10-of-100", "optimized", "sec/op", "+15%"},
		{"lookup-1000", "optimized", "sec/op", "+40%"},
		{"lookup-1000", "naive", "sec/op", "+2ms"},
		{"rotate-10-of-100", "optimized", "B/op", "+1KiB"},
		{"rotate-10-of-100", "optimized", "goroutines", "+1goroutines"},
		{"rotate-10-of-100", "optimized", "allocs/op", "+0%"}, // default kept
	}
	for _, c := range checks {
		if th, _ := p.Threshold(c.scenario, c.store, c.unit); th.String() != c.want {
			t.Errorf("%s/%s %s: %v, want %s", c.scenario, c.store, c.unit, th, c.want)
		}
	}
	if _, ok := p.Threshold("x", "y", "retained-B/cert"); ok {
		t.Error("retained-B/cert gated with retained-B off")
	}
	var buf bytes.Buffer
	if err := gate.WriteConfig(&buf, p); err != nil {
		t.Fatal(err)
	}
	q, err := gate.ParseConfig(buf.Bytes(), "round-trip")
	if err != nil {
		t.Fatalf("WriteConfig output does not parse: %v\n%s", err, buf.String())
	}
	for _, c := range checks {
		if th, _ := q.Threshold(c.scenario, c.store, c.unit); th.String() != c.want {
			t.Errorf("round trip: %s/%s %s: %v, want %s\n%s", c.scenario, c.store, c.unit, th, c.want, buf.String())
		}
	}
	if !q.Strict || q.Alpha != 0.01 || q.MinSamples != 6 {
		t.Errorf("round trip lost settings:\n%s", buf.String())
	}
}

// Every bad policy is an error naming file:line:column and the field.
func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		// Thresholds: a bare number used to be an absolute amount (ten
		// seconds for sec/op: 10) and passed everything.
		{"bare seconds", "gate:\n  max:\n    sec/op: 10\n", `c.yaml:3:13: gate.max.sec/op: threshold "10": a bare number is ambiguous; write +10% (relative to the base) or +10ms (absolute)`},
		{"bare bytes", "gate:\n  max:\n    B/op: +2048\n", `c.yaml:3:11: gate.max.B/op: threshold "+2048": a bare number is ambiguous; write +2048% (relative to the base) or +2048KiB (absolute)`},
		{"bare count", "gate:\n  max:\n    allocs/op: 1\n", "c.yaml:3:16: gate.max.allocs/op: threshold \"1\": a bare number is ambiguous; write +1% (relative to the base) or +1allocs (absolute)"},
		{"bare in an override", "gate:\n  overrides:\n    - scenario: lookup-*\n      max:\n        sec/op: 5\n", "c.yaml:5:17: gate.overrides[0].max.sec/op: threshold \"5\""},
		{"wrong measure", "gate:\n  max:\n    sec/op: +1KiB\n", "c.yaml:3:13: gate.max.sec/op: threshold \"+1KiB\": sec/op is measured in time, not bytes"},
		{"minutes", "gate:\n  max:\n    sec/op: +1.5m\n", `c.yaml:3:13: gate.max.sec/op: threshold "+1.5m": "m" is ambiguous`},
		{"word", "gate:\n  max:\n    B/op: plenty\n", `c.yaml:3:11: gate.max.B/op: threshold "plenty": not a number`},
		{"negative", "gate:\n  max:\n    B/op: -2%\n", `c.yaml:3:11: gate.max.B/op: threshold "-2%": a threshold cannot be negative`},
		{"no threshold", "gate:\n  max:\n    B/op:\n", "c.yaml:3:10: gate.max.B/op: want a threshold (+N%, +NKiB or off), found nothing"},
		{"threshold list", "gate:\n  max:\n    B/op: [1]\n", "c.yaml:3:11: gate.max.B/op: want a threshold (+N%, +NKiB or off), found a list"},
		{"unknown unit", "gate:\n  max:\n    allocs/op: +0%\n    ms/op: +1%\n", `c.yaml:4:5: gate.max.ms/op: unknown unit "ms/op" (known: sec/op, cpu-sec/op,`},
		{"unit twice", "gate:\n  max:\n    sec/op: +1%\n    ns/op: +2%\n", "c.yaml:4:5: gate.max.ns/op: sets sec/op again (first as sec/op at line 3, column 5)"},
		{"max not a mapping", "gate:\n  max: +10%\n", `c.yaml:2:8: gate.max: want a mapping of unit: threshold (such as sec/op: +10%), found "+10%"`},
		{"max empty", "gate:\n  max: {}\n", "c.yaml:2:8: gate.max: empty"},
		// Zero and out-of-range scalars used to become defaults or be
		// reported without a line.
		{"alpha 0", "gate:\n  alpha: 0\n", "c.yaml:2:10: gate.alpha: 0: want a significance level between 0 and 1 (exclusive), such as 0.05 (0 is not the default"},
		{"alpha 1", "gate:\n  alpha: 1\n", "c.yaml:2:10: gate.alpha: 1: want a significance level between 0 and 1"},
		{"alpha 7 on line 5", "gate:\n  correction: holm\n  strict: false\n  allow_missing: false\n  alpha: 7\n", "c.yaml:5:10: gate.alpha: 7"},
		{"alpha negative", "gate:\n  alpha: -0.05\n", "c.yaml:2:10: gate.alpha: -0.05"},
		{"alpha word", "gate:\n  alpha: low\n", `c.yaml:2:10: gate.alpha: want a number, found "low"`},
		{"alpha nan", "gate:\n  alpha: .nan\n", "c.yaml:2:10: gate.alpha: .nan"},
		{"min samples 0", "gate:\n  min_samples: 0\n", "c.yaml:2:16: gate.min_samples: 0: want at least 4 (0 is not the default"},
		{"min samples 3", "gate:\n  min_samples: 3\n", "c.yaml:2:16: gate.min_samples: 3: the U test cannot reach p < 0.05 with fewer than 4 samples a side; want at least 4"},
		{"min samples for alpha", "gate:\n  min_samples: 4\n  alpha: 0.01\n", "c.yaml:2:16: gate.min_samples: 4: the U test cannot reach p < 0.01 with fewer than 5"},
		{"min samples negative", "gate:\n  min_samples: -4\n", "c.yaml:2:16: gate.min_samples: -4: want at least 4"},
		{"min samples fraction", "gate:\n  min_samples: 4.5\n", `c.yaml:2:16: gate.min_samples: want a whole number, found "4.5"`},
		{"min samples huge", "gate:\n  min_samples: 99999999999999999999\n", `c.yaml:2:16: gate.min_samples: want a whole number, found "99999999999999999999"`},
		{"history commits below min samples", "gate:\n  history_commits: 3\n", "c.yaml:2:20: gate.history_commits: 3: want at least min_samples (4): a clock's base is one value per commit"},
		{"correction", "gate:\n  correction: bonferroni\n", `c.yaml:2:15: gate.correction: "bonferroni": want holm or none`},
		{"strict yes", "gate:\n  strict: yes\n", `c.yaml:2:11: gate.strict: want true or false, found "yes"`},
		{"allow missing number", "gate:\n  allow_missing: 1\n", `c.yaml:2:18: gate.allow_missing: want true or false, found "1"`},
		// Unknown and repeated fields.
		{"typo", "gate:\n  alpah: 0.1\n", "c.yaml:2:3: gate.alpah: unknown field; did you mean alpha? (known: alpha, min_samples"},
		{"twice", "gate:\n  alpha: 0.05\n  strict: true\n  alpha: 0.01\n", "c.yaml:4:3: gate.alpha: set twice (first at line 2, column 3)"},
		{"override typo", "gate:\n  overrides:\n    - scenarios: lookup-*\n      max:\n        sec/op: +1%\n", "c.yaml:3:7: gate.overrides[0].scenarios: unknown field; did you mean scenario? (known: scenario, store, max)"},
		// Overrides that do nothing or everything.
		{"override without max", "gate:\n  overrides:\n    - scenario: x\n    - store: y\n", "c.yaml:3:7: gate.overrides[0]: no max: the override sets nothing"},
		{"second override", "gate:\n  overrides:\n    - scenario: x\n      max: {sec/op: +1%}\n    - store: y\n", "c.yaml:5:7: gate.overrides[1]: no max"},
		{"override matches all", "gate:\n  overrides:\n    - store: \"*\"\n      max:\n        sec/op: +1%\n", "c.yaml:3:7: gate.overrides[0]: matches every benchmark"},
		{"bad pattern", "gate:\n  overrides:\n    - scenario: \"[\"\n      max: {sec/op: +1%}\n", `c.yaml:3:17: gate.overrides[0].scenario: "[": syntax error in pattern`},
		{"overrides not a list", "gate:\n  overrides:\n    scenario: x\n", "c.yaml:3:5: gate.overrides: want a list of mappings (scenario, store, max), found a mapping"},
		{"override not a mapping", "gate:\n  overrides:\n    - lookup-*\n", `c.yaml:3:7: gate.overrides[0]: want a mapping (scenario, store, max), found "lookup-*"`},
		// Shape of the document.
		{"no gate", "report: {}\n", `c.yaml:1:1: gate: missing (required: gate)`},
		{"empty", "", "c.yaml: empty configuration"},
		{"comments only", "# nothing\n", "c.yaml: empty configuration"},
		{"gate empty", "gate:\n", "c.yaml:1:6: gate: want a mapping (alpha, min_samples, correction, test, allow_missing, strict, allow_different_certs, allow_different_scenarios, history_commits, max, overrides, sample_timeout), found nothing"},
		{"gate list", "gate: [1]\n", "c.yaml:1:7: gate: want a mapping (alpha, min_samples,"},
		{"list document", "- gate\n", `c.yaml:1:1: want a mapping with a "gate" section, found a list`},
		{"gate twice", "gate: {alpha: 0.1}\ngate: {alpha: 0.2}\n", "c.yaml:2:1: gate: set twice (first at line 1, column 1)"},
		// Syntax errors name the line of the problem, not of the
		// construct around it (yaml.v3 reports line 4 or 1 for these).
		{"flow on line 5", "gate:\n  alpha: 0.05\n  correction: holm\n  strict: false\n  max: {a: [}\n", "c.yaml:5: did not find expected node content"},
		{"tab on line 3", "gate:\n  alpha: 0.05\n\tstrict: true\n", "c.yaml:3: found a tab character"},
		{"indent on line 5", "gate:\n  alpha: 0.05\n  correction: holm\n  strict: false\n   bad: indent\n", "c.yaml:5: mapping values are not allowed"},
		{"bad token on line 5", "gate:\n  alpha: 0.05\n  max:\n    sec/op: +10%\n    B/op: @x\n", "c.yaml:5: found character that cannot start any token"},
		{"unclosed", "gate: [\n", "c.yaml:1: did not find expected node content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := gate.ParseConfig([]byte(tc.doc), "c.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseConfig(%q):\nerror %v\nwant  %q", tc.doc, err, tc.want)
			}
		})
	}
}

// All errors of a file are reported at once, each with its position.
func TestParseConfigReportsEveryError(t *testing.T) {
	_, err := gate.ParseConfig([]byte("gate:\n  alpha: 0\n  max:\n    sec/op: 10\n  strict: maybe\n"), "c.yaml")
	for _, want := range []string{"c.yaml:2:10: gate.alpha", "c.yaml:4:13: gate.max.sec/op", "c.yaml:5:11: gate.strict"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

func TestLoadConfigRefusesWhatIsNotAPolicyFile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, bytes.Repeat([]byte("# padding\n"), gate.MaxConfigSize/10+1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{dir, "not a regular file"},
		{big, "larger than"},
		{filepath.Join(dir, "nosuch.yaml"), "nosuch.yaml"},
	} {
		if _, err := gate.LoadConfig(tc.path); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadConfig(%s): error %v, want %q", tc.path, err, tc.want)
		}
	}
}

// TestWriteConfigFormat: WriteConfig keeps its field order and quoting,
// and an override's pattern is escaped so that it reads back.
func TestWriteConfigFormat(t *testing.T) {
	doc := "gate:\n  alpha: 0.01\n  min_samples: 6\n  strict: true\n  max:\n    goroutines: +1goroutines\n    sec/op: +10%\n    retained-B: off\n" +
		"  overrides:\n    - scenario: lookup-*\n      store: \"*\"\n      max:\n        sec/op: +25%\n    - store: \"a\\0\\\"é\"\n      max:\n        B/op: +1KiB\n"
	p, err := gate.ParseConfig([]byte(doc), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := gate.WriteConfig(&buf, p); err != nil {
		t.Fatal(err)
	}
	want := `gate:
  alpha: 0.01
  min_samples: 6
  correction: holm
  test: auto
  allow_missing: false
  strict: true
  allow_different_certs: false
  allow_different_scenarios: false
  history_commits: 10
  max:
    sec/op: "+10%"
    B/op: "+2%"
    allocs/op: "+0%"
    retained-B: "off"
    goroutines: "+1goroutines"
    held-B/gen: "+2%"
    held-goroutines/gen: "+0"
    released-held-B: "+16KiB"
    released-held-goroutines: "+0"
    instructions/op: "+0.25%"
    est-cycles/op: "+1%"
  overrides:
    - scenario: lookup-*
      store: '*'
      max:
        sec/op: "+25%"
    - store: "a\0\"é"
      max:
        B/op: "+1KiB"
`
	if buf.String() != want {
		t.Errorf("WriteConfig wrote\n%s\nwant\n%s", buf.String(), want)
	}
	if q, err := gate.ParseConfig(buf.Bytes(), "w.yaml"); err != nil || q.Overrides[1].Store != "a\x00\"é" {
		t.Errorf("read back: %v, %+v", err, q.Overrides)
	}
}

func TestParseConfigAllowDifferent(t *testing.T) {
	p, err := gate.ParseConfig([]byte("gate:\n  allow_different_certs: true\n  allow_different_scenarios: true\n"), "c.yaml")
	if err != nil || !p.AllowDifferentCerts || !p.AllowDifferentScenarios {
		t.Fatalf("%v: certs %t scenarios %t", err, p.AllowDifferentCerts, p.AllowDifferentScenarios)
	}
	_, err = gate.ParseConfig([]byte("gate:\n  allow_different_scenarios: sure\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:2:30: gate.allow_different_scenarios: want true or false, found \"sure\"") {
		t.Errorf("error %v", err)
	}
}

// gate.sample_timeout is run's bound on one sample (run --config): a
// positive duration, read back as written.
func TestParseConfigSampleTimeout(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  time.Duration
		err   string
	}{
		{"10m", 10 * time.Minute, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"10", 0, `c.yaml:2:19: gate.sample_timeout: want a duration such as 2s or 100ms, found "10"`},
		{"off", 0, `c.yaml:2:19: gate.sample_timeout: want a duration`},
		{"-1m", 0, `c.yaml:2:19: gate.sample_timeout: "-1m": want a time such as 10m`},
	} {
		p, err := gate.ParseConfig([]byte("gate:\n  sample_timeout: "+tc.value+"\n"), "c.yaml")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.value, err, tc.err)
			}
			continue
		}
		if err != nil || p.SampleTimeout != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.value, p.SampleTimeout, err, tc.want)
			continue
		}
		var buf bytes.Buffer
		if err := gate.WriteConfig(&buf, p); err != nil {
			t.Fatal(err)
		}
		if q, err := gate.ParseConfig(buf.Bytes(), "w.yaml"); err != nil || q.SampleTimeout != tc.want {
			t.Errorf("%s read back: %v, %v\n%s", tc.value, q.SampleTimeout, err, buf.String())
		}
	}
}

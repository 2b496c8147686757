package gate_test

import (
	"bytes"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
)

// FuzzParseConfig parses arbitrary bytes as a certbench.yaml policy: no
// panic, and a policy it accepts is written by WriteConfig in a form that
// ParseConfig reads back to the same policy.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("gate:\n  alpha: 0.05\n  min_samples: 4\n  max:\n    sec/op: +10%\n    B/op: +2%\n"))
	f.Add([]byte("gate:\n  overrides:\n    - scenario: lookup-*\n      store: \"*\"\n      max:\n        sec/op: +25%\n"))
	f.Add([]byte("other: 1\ngate:\n  strict: true\n  allow_missing: true\n  correction: none\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 16<<10 {
			t.Skip("input too large")
		}
		p, err := gate.ParseConfig(data, "fuzz.yaml")
		if err != nil {
			return
		}
		var first bytes.Buffer
		if err := gate.WriteConfig(&first, p); err != nil {
			t.Fatalf("WriteConfig of an accepted policy: %v", err)
		}
		q, err := gate.ParseConfig(first.Bytes(), "written.yaml")
		if err != nil {
			t.Fatalf("ParseConfig of what WriteConfig wrote: %v\n%s", err, first.Bytes())
		}
		var second bytes.Buffer
		if err := gate.WriteConfig(&second, q); err != nil {
			t.Fatalf("WriteConfig of the policy read back: %v", err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("the policy changed on a round trip:\n%s\nthen\n%s", first.Bytes(), second.Bytes())
		}
	})
}

package gate_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/ci/gate"
)

// TestReadDocumentRoundTrip: what gate --format json writes reads back
// into the same Document (report --gate reads it so).
func TestReadDocumentRoundTrip(t *testing.T) {
	data, err := os.ReadFile("testdata/golden.json.golden")
	if err != nil {
		t.Fatal(err)
	}
	d, err := gate.ReadDocument(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		t.Fatal(err)
	}
	var want, got any
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back and written again, the document differs:\n%s", b.String())
	}
}

// ReadDocument refuses what is not a gate result, saying why.
func TestReadDocumentRefuses(t *testing.T) {
	for _, bad := range []struct{ in, want string }{
		{"BenchmarkX 1 2 ns/op\n", "not a gate result"},
		{`{"passed": true}`, `no "schema"`},
		{`{"schema": "certbench.gate/v1", "passed": true}`, `want "certbench.gate/v2"`},
		{`{"schema": "certbench.gate/v2", "passed": true}`, `without "passed" or "page"`},
	} {
		if _, err := gate.ReadDocument(strings.NewReader(bad.in)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ReadDocument(%q): %v, want %q", bad.in, err, bad.want)
		}
	}
}

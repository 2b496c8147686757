package yamlnode

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestParseAndRead(t *testing.T) {
	doc, err := Parse([]byte("a: 1\nb: [x, y]\nc: true\na: 2\nd: ''\n"), "t.yaml", "a mapping")
	if err != nil {
		t.Fatal(err)
	}
	r := &Reader{Name: "t.yaml"}
	got := map[string]any{}
	r.Fields(doc, "", func(key string, k, v *yaml.Node) {
		switch key {
		case "a":
			got[key], _ = r.Int(v, key, "things", 0, 10)
		case "b":
			got[key], _ = r.Strings(v, key)
		case "c":
			got[key], _ = r.Bool(v, key)
		case "d":
			got[key], _ = r.String(v, key)
		}
	})
	if got["a"] != 1 || got["c"] != true || len(got["b"].([]string)) != 2 {
		t.Errorf("read %v", got)
	}
	err = r.Err()
	for _, want := range []string{"t.yaml:4:1: a: set twice (first at line 1, column 1)", "t.yaml:5:4: d: want a string"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("errors %v: want %q", err, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	if _, err := Parse(nil, "e.yaml", "a scenario"); err == nil || err.Error() != "e.yaml: empty configuration; want a scenario" {
		t.Errorf("empty: %v", err)
	}
	// An unclosed bracket is reported where the document stops parsing.
	if _, err := Parse([]byte("a: 1\nb: [x,\nc: 3\n"), "s.yaml", "x"); err == nil || !strings.HasPrefix(err.Error(), "s.yaml:") {
		t.Errorf("syntax: %v", err)
	}
	if _, err := ReadFile(t.TempDir(), "scenario file", 10); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}
}

package conformance

import (
	"bytes"
	"strings"
	"testing"
)

func TestReadEvents(t *testing.T) {
	out := strings.Join([]string{
		`{"started":"NoConfiguration"}`,
		`{"finished":{"rule":"NoConfiguration","result":"pass"}}`,
		`{"started":"Lookup"}`,
		`{"started":"Lookup/ExactName"}`,
		`{"finished":{"rule":"Lookup/ExactName","result":"FAIL","output":["got x; want y\nsecond line"]}}`,
		`a store printing`,
		`{"started":"Lookup/Other"}`,
		"",
	}, "\n")
	run, stray := readEvents(strings.NewReader(out), nil)
	var rules []string
	for _, r := range run.results {
		rules = append(rules, r.Rule)
	}
	if run.done || run.running != "Lookup/Other" || stray != "a store printing\n" || strings.Join(rules, ",") != "NoConfiguration,Lookup/ExactName" {
		t.Fatalf("run %+v, stray %q", run, stray)
	}
	tab := &Outcomes{Stores: []string{"s"}}
	tab.Add("s", &Report{Rules: run.results})
	if tab.Passed {
		t.Error("a table with a failure passed")
	}
	var md, text bytes.Buffer
	if err := tab.WriteMarkdown(&md); err != nil || !strings.Contains(md.String(), "| Lookup/ExactName | **FAIL** |") || !strings.Contains(md.String(), "| *rules passed* | 1 / 2 |") {
		t.Errorf("markdown (%v):\n%s", err, md.String())
	}
	if err := tab.WriteText(&text); err != nil || !strings.Contains(text.String(), "--- s: Lookup/ExactName\n    got x; want y\n    second line\n") {
		t.Errorf("text (%v):\n%s", err, text.String())
	}
}

package gate

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
)

// TestDocDefaults checks the defaults table of docs/gate.md, the one
// statement of the gate's rules, against DefaultPolicy: every setting of
// the policy file is listed with the code's default, in the words the
// policy line and the flags use.
func TestDocDefaults(t *testing.T) {
	data, err := os.ReadFile("../../../docs/gate.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]string{}
	_, rest, _ := strings.Cut(string(data), "## Defaults\n")
	rest, _, _ = strings.Cut(rest, "\n## ")
	for _, line := range strings.Split(rest, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) == 2 && cells[0] != "setting" && !strings.HasPrefix(cells[0], "-") {
			doc[cells[0]] = cells[1]
		}
	}
	p := DefaultPolicy()
	var max []string
	for _, u := range Units {
		if th, ok := p.Max[u]; ok {
			max = append(max, u+" "+th.String())
		}
	}
	want := map[string]string{
		"max":                       strings.Join(max, ", "),
		"alpha":                     fmt.Sprint(p.Alpha),
		"min_samples":               fmt.Sprint(p.MinSamples),
		"correction":                string(p.Correction),
		"test":                      string(p.Test),
		"allow_missing":             fmt.Sprint(p.AllowMissing),
		"strict":                    fmt.Sprint(p.Strict),
		"allow_different_certs":     fmt.Sprint(p.AllowDifferentCerts),
		"allow_different_scenarios": fmt.Sprint(p.AllowDifferentScenarios),
		"history_commits":           fmt.Sprint(p.HistoryCommits),
	}
	for k, v := range want {
		if doc[k] != v {
			t.Errorf("docs/gate.md: %s is %q, the code's default %q", k, doc[k], v)
		}
	}
	// Every setting a policy file takes, but those that are not the
	// gate's decision (overrides refine max; sample_timeout is run's).
	for _, k := range settingKeys() {
		if _, ok := want[k]; !ok && k != "-" && k != "overrides" && k != "sample_timeout" {
			t.Errorf("docs/gate.md's defaults lack the setting %s", k)
		}
	}
	for k := range doc {
		if _, ok := want[k]; !ok {
			t.Errorf("docs/gate.md lists %s, which is not a setting", k)
		}
	}
	// The rules' constants.
	text := strings.Join(strings.Fields(string(data)), " ")
	for _, s := range []string{fmt.Sprintf("at least %d samples a side", results.MinExactSamples), fmt.Sprintf("its %g%% confidence interval", PairConfidence*100)} {
		if !strings.Contains(text, s) {
			t.Errorf("docs/gate.md lacks %q", s)
		}
	}
}

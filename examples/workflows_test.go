package examples_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The workflow directories of the repository: its own, the example store's
// and the peers' examples.
var workflowDirs = []string{"../.github/workflows", "mystore/.github/workflows", "peers"}

// TestWorkflowTokens holds every workflow and action of the repository to
// the rule docs/ci.md gives: no job that can run a pull request's code has
// a write scope (nor the repository's default token, which may write); a
// pull_request_target or workflow_run job checks out no other ref than the
// default branch; an action that builds or runs the workspace's code
// touches no token. The checker is first shown workflows that break each
// rule, so that it cannot pass by seeing nothing.
func TestWorkflowTokens(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"comment from the pull request's job", `
on: pull_request
permissions: {contents: read, pull-requests: write}
jobs: {gate: {steps: [{uses: "certbench/certbench@0"}]}}`, "job gate can run the pull request's code with pull-requests: write"},
		{"default token", `
on: pull_request
jobs: {gate: {steps: [{run: make}]}}`, "job gate has no permissions"},
		{"guard that does not exclude pull requests", `
on: [pull_request, push]
permissions: {}
jobs: {record: {if: "${{ github.event_name == 'push' || github.actor == 'x' }}", permissions: write-all, steps: [{run: make}]}}`,
			"job record can run the pull request's code with write-all"},
		{"pull_request_target checking out the head", `
on: pull_request_target
permissions: {pull-requests: write}
jobs: {c: {steps: [{uses: actions/checkout@v4, with: {ref: "${{ github.event.pull_request.head.sha }}"}}]}}`,
			"job c checks out ${{ github.event.pull_request.head.sha }} on pull_request_target"},
	} {
		var w workflow
		if err := yaml.Unmarshal([]byte(c.yaml), &w); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := strings.Join(w.problems(), "; "); !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want %q", c.name, got, c.want)
		}
	}
	var record workflow
	if err := yaml.Unmarshal([]byte(`
on: [pull_request, push]
permissions: {contents: read}
jobs: {record: {if: "github.event_name == 'push'", permissions: {contents: write}, steps: [{run: make}]}}`), &record); err != nil {
		t.Fatal(err)
	}
	if p := record.problems(); len(p) > 0 {
		t.Errorf("a push-only job with contents: write: problems %q, want none", p)
	}
	bad := action{raw: `
runs:
  using: composite
  steps:
    - {run: go build ./..., working-directory: .}
    - {run: gh pr comment, env: {GH_TOKEN: "${{ github.token }}"}}`}
	if err := yaml.Unmarshal([]byte(bad.raw), &bad); err != nil {
		t.Fatal(err)
	}
	if p := bad.problems(); len(p) == 0 {
		t.Error("an action that builds the workspace and has a token: no problem found")
	}

	n := 0
	for _, dir := range workflowDirs {
		for _, path := range yamlFiles(t, dir) {
			var w workflow
			decode(t, path, &w)
			for _, p := range w.problems() {
				t.Errorf("%s: %s", path, p)
			}
			n++
		}
	}
	for path, a := range actions(t) {
		for _, p := range a.problems() {
			t.Errorf("%s: %s", path, p)
		}
	}
	if n < 6 {
		t.Errorf("%d workflows checked, want the 6 or more of %v", n, workflowDirs)
	}
}

// TestWorkflowsComment: every pull request job that runs certbench's gate
// or peer check and leaves comment on has, in its directory, a workflow_run
// workflow of its workflow's name that posts with actions/comment and the
// same marker, and the two actions name the artifact as the comment script
// looks it up (MARKER-comment-ATTEMPT). Every with: key given to one of
// certbench's actions is one of its inputs.
func TestWorkflowsComment(t *testing.T) {
	acts := actions(t)
	for path, want := range map[string]string{
		"../action.yml":                    "${{ inputs.comment-marker }}-comment-${{ github.run_attempt }}",
		"../actions/peer-check/action.yml": "certbench-peer-comment-${{ github.run_attempt }}",
	} {
		var names []string
		for _, s := range acts[path].Runs.Steps {
			if strings.HasPrefix(s.Uses, "actions/upload-artifact@") && strings.Contains(s.With["name"], "-comment-") {
				names = append(names, s.With["name"])
			}
		}
		if len(names) != 1 || names[0] != want {
			t.Errorf("%s uploads the comment as %q, want %q", path, names, want)
		}
	}
	for _, dir := range workflowDirs {
		ws := map[string]workflow{}
		for _, path := range yamlFiles(t, dir) {
			var w workflow
			decode(t, path, &w)
			ws[path] = w
		}
		for path, w := range ws {
			for id, j := range w.Jobs {
				for _, s := range j.Steps {
					a, ok := certbenchAction(s.Uses)
					if !ok {
						continue
					}
					for k := range s.With {
						if _, ok := acts[a].Inputs[k]; !ok {
							t.Errorf("%s: job %s gives %s input %q, which it does not have", path, id, s.Uses, k)
						}
					}
					marker := map[string]string{"../action.yml": "certbench-gate", "../actions/peer-check/action.yml": "certbench-peer"}[a]
					if marker == "" || !slices.Contains(w.events(), "pull_request") || s.With["comment"] == "false" {
						continue
					}
					if m := s.With["comment-marker"]; m != "" {
						marker = m
					}
					if !commented(ws, w.Name, marker) {
						t.Errorf("%s: job %s's report (marker %s) has no workflow_run workflow in %s that posts it with actions/comment", path, id, marker, dir)
					}
				}
			}
		}
	}
}

// commented says whether one of ws runs on the completion of workflow name
// and posts marker's comment with actions/comment.
func commented(ws map[string]workflow, name, marker string) bool {
	for _, w := range ws {
		var on struct {
			WorkflowRun struct{ Workflows []string } `yaml:"workflow_run"`
		}
		if w.On.Kind != yaml.MappingNode || w.On.Decode(&on) != nil || !slices.Contains(on.WorkflowRun.Workflows, name) {
			continue
		}
		for _, j := range w.Jobs {
			for _, s := range j.Steps {
				m := s.With["marker"]
				if m == "" {
					m = "certbench-gate"
				}
				if a, _ := certbenchAction(s.Uses); a == "../actions/comment/action.yml" && m == marker {
					return true
				}
			}
		}
	}
	return false
}

// certbenchAction returns the action file (relative to examples/) of a
// step's uses: when it is one of certbench's actions, local or remote.
func certbenchAction(uses string) (string, bool) {
	ref, _, _ := strings.Cut(uses, "@")
	switch {
	case ref == "./" || ref == "certbench/certbench":
		return "../action.yml", true
	case strings.HasPrefix(ref, "./actions/"):
		return "../" + strings.TrimPrefix(ref, "./") + "/action.yml", true
	case strings.HasPrefix(ref, "certbench/certbench/actions/"):
		return "../" + strings.TrimPrefix(ref, "certbench/certbench/") + "/action.yml", true
	}
	return "", false
}

type workflow struct {
	Name        string
	On          yaml.Node
	Permissions yaml.Node
	Jobs        map[string]job
}

type job struct {
	If          string
	Permissions yaml.Node
	Uses        string // a reusable workflow
	Steps       []step
}

type step struct {
	Uses             string
	With             map[string]string
	Env              map[string]string
	Run              string
	WorkingDirectory string `yaml:"working-directory"`
}

type action struct {
	Inputs map[string]any
	Runs   actionRuns
	raw    string
}

type actionRuns struct{ Steps []step }

// events lists the workflow's triggers.
func (w *workflow) events() []string {
	switch w.On.Kind {
	case yaml.ScalarNode:
		return []string{w.On.Value}
	case yaml.SequenceNode:
		var on []string
		for _, n := range w.On.Content {
			on = append(on, n.Value)
		}
		return on
	case yaml.MappingNode:
		var on []string
		for i := 0; i < len(w.On.Content); i += 2 {
			on = append(on, w.On.Content[i].Value)
		}
		return on
	}
	return nil
}

// onlyOn matches a job condition that runs it on one event alone.
var onlyOn = regexp.MustCompile(`^github\.event_name==['"]([a-z_]+)['"]$`)

func (w *workflow) problems() []string {
	var prCode, privileged []string
	for _, e := range w.events() {
		switch {
		case e == "pull_request_target" || e == "workflow_run":
			privileged = append(privileged, e)
		case strings.HasPrefix(e, "pull_request"):
			prCode = append(prCode, e)
		}
	}
	var out []string
	for id, j := range w.Jobs {
		perms := j.Permissions
		if perms.Kind == 0 {
			perms = w.Permissions
		}
		if perms.Kind == 0 {
			out = append(out, fmt.Sprintf("job %s has no permissions: its token gets the repository's default, which may write", id))
		}
		if write := writes(&perms); len(prCode) > 0 && len(write) > 0 && !excludes(j.If, prCode) {
			out = append(out, fmt.Sprintf("job %s can run the pull request's code with %s", id, strings.Join(write, ", ")))
		}
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout@") && len(privileged) > 0 && (s.With["ref"] != "" || s.With["repository"] != "") {
				out = append(out, fmt.Sprintf("job %s checks out %s on %s, where the token may write: only the default branch", id, s.With["ref"]+s.With["repository"], strings.Join(privileged, ", ")))
			}
		}
	}
	return out
}

// writes lists the write scopes of a permissions value.
func writes(perms *yaml.Node) []string {
	switch perms.Kind {
	case yaml.ScalarNode:
		if perms.Value == "write-all" {
			return []string{"write-all"}
		}
	case yaml.MappingNode:
		var out []string
		for i := 0; i+1 < len(perms.Content); i += 2 {
			if perms.Content[i+1].Value == "write" {
				out = append(out, perms.Content[i].Value+": write")
			}
		}
		return out
	}
	return nil
}

// excludes says whether a job's if: keeps it off every event of prCode:
// one of its &&-joined terms is github.event_name == 'E' for another event.
// Anything else (an ||, another test) counts as running on them.
func excludes(cond string, prCode []string) bool {
	cond = strings.TrimSpace(cond)
	cond = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(cond, "${{"), "}}"))
	if cond == "" || strings.Contains(cond, "||") {
		return false
	}
	for _, term := range strings.Split(cond, "&&") {
		if m := onlyOn.FindStringSubmatch(strings.Join(strings.Fields(term), "")); m != nil && !slices.Contains(prCode, m[1]) {
			return true
		}
	}
	return false
}

// problems: an action that builds or runs the workspace (the code of
// whichever job uses it) must not hold a token.
func (a *action) problems() []string {
	var workspace bool
	for _, s := range a.Runs.Steps {
		workspace = workspace || s.WorkingDirectory != "" || strings.HasPrefix(s.Uses, "actions/setup-go@") ||
			strings.HasPrefix(s.Uses, "actions/checkout@")
	}
	if !workspace {
		return nil
	}
	var out []string
	for _, token := range []string{"github.token", "secrets.", "GH_TOKEN", "GITHUB_TOKEN"} {
		if strings.Contains(a.raw, token) {
			out = append(out, fmt.Sprintf("builds or runs the workspace's code and uses %s", token))
		}
	}
	return out
}

// actions returns certbench's actions by their path relative to examples/.
func actions(t *testing.T) map[string]*action {
	t.Helper()
	paths, err := filepath.Glob("../actions/*/action.yml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*action{}
	for _, path := range append(paths, "../action.yml") {
		var a action
		a.raw = decode(t, path, &a)
		out[path] = &a
	}
	if len(out) != 3 {
		t.Errorf("actions %v, want the root's, peer-check and comment", out)
	}
	return out
}

func yamlFiles(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.yml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no workflows in %s: %v", dir, err)
	}
	return paths
}

// decode decodes the YAML file at path into v and returns its text.
func decode(t *testing.T, path string, v any) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return string(b)
}

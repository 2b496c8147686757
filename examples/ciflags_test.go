package examples_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCIScriptBadInput runs scripts/certbench-ci.sh with bad settings, as
// the action's inputs give them (CERTBENCH_* variables, which certbench ab
// reads as its flags) or as flags: each stops with exit 2 and a message
// naming what was wrong, before building anything of the repository.
func TestCIScriptBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds certbench")
	}
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	script, err := filepath.Abs(filepath.Join("..", "scripts", "certbench-ci.sh"))
	if err != nil {
		t.Fatal(err)
	}
	repo, plain := t.TempDir(), t.TempDir()
	run(t, nil, repo, "git", "init", "-q", "-b", "main")
	for _, c := range []struct {
		name, dir string
		env       []string
		args      []string
		want      string
	}{
		{"simulate", repo, []string{"CERTBENCH_SIMULATE=maybe"}, nil, "CERTBENCH_SIMULATE=maybe: bad value for --simulate (bool)"},
		{"no repository", plain, nil, nil, "not in a git repository"},
		{"count", repo, []string{"CERTBENCH_COUNT=0"}, nil, "count 0"},
		{"count not a number", repo, []string{"CERTBENCH_COUNT=ten"}, nil, "CERTBENCH_COUNT=ten: bad value for --count (int)"},
		{"module", repo, []string{"CERTBENCH_MODULE=../elsewhere"}, nil, "--module ../elsewhere: want a directory inside the repository"},
		{"base", repo, nil, []string{"no-such-ref"}, "no merge base of no-such-ref and HEAD"},
		{"record without history", repo, []string{"CERTBENCH_RECORD=true"}, nil, "--record: give --history"},
		{"history not a ref", repo, []string{"CERTBENCH_HISTORY=git:notes"}, nil, "want git:refs/..., a full ref name"},
		{"history and bench", repo, []string{"CERTBENCH_HISTORY=h"}, []string{"--bench", "."}, "the history keeps no go test benchmarks"},
	} {
		cmd := exec.Command("bash", append([]string{script}, c.args...)...)
		cmd.Dir = c.dir
		cmd.Env = append(os.Environ(), append(c.env, "GOWORK=off", "GIT_CEILING_DIRECTORIES="+filepath.Dir(plain))...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(out.String(), c.want) {
			t.Errorf("%s: %v, want exit 2 saying %q:\n%s", c.name, err, c.want, out.String())
		}
	}
}

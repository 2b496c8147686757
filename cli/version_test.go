package cli_test

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
	"github.com/certbench/certbench/results"
)

func TestVersionFlag(t *testing.T) {
	var out, errb bytes.Buffer
	if code := cli.Main([]string{"--version"}, &out, &errb); code != cli.ExitOK {
		t.Fatalf("--version: exit %d, stderr %q", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "certbench ") || !strings.HasSuffix(out.String(), "\n") {
		t.Errorf("--version printed %q, want one line starting with \"certbench \"", out.String())
	}
}

// TestLinkedRevision builds certbench as the CI scripts do, without VCS
// stamping and with the revision set at link time, and checks that
// --version prints it and that run records it.
func TestLinkedRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	const rev = "0123456789abcdef0123456789abcdef01234567"
	bin := filepath.Join(t.TempDir(), "certbench")
	build := exec.Command("go", "build", "-buildvcs=false",
		"-ldflags", "-X github.com/certbench/certbench/results.revision="+rev,
		"-o", bin, "../cmd/certbench")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	if want := "(revision " + rev + ")"; !strings.Contains(string(out), want) {
		t.Errorf("--version printed %q, want it to contain %q", out, want)
	}
	out, err = exec.Command(bin, "run", "-q", "--stores", "optimized", "--scenarios", "lookup-1000", "--count", "1", "--ops", "100").Output()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if want := "\n" + results.CommentPrefix + results.RevisionKey + ": " + rev + "\n"; !strings.Contains(string(out), want) {
		t.Errorf("run output lacks %q:\n%s", want, out)
	}
}

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
)

// TestReadmeFirstCommands checks the commands a newcomer runs first, the
// README's first shell block: each works from a clone of the repository
// without the module being published (no `go install path@version`, which
// the module proxy cannot serve before the first release tag), every local
// package it names exists, every certbench subcommand it runs exists, and
// it includes the main job (`go run ./cmd/certbench compare`) and the
// tests (testCommand, which .ci/run runs without -short). The release
// process the README points to is present.
func TestReadmeFirstCommands(t *testing.T) {
	const testCommand = "go vet ./... && go test -race -short ./..."
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := firstShellBlock(string(readme))
	if block == nil {
		t.Fatal("README.md has no ```sh block")
	}
	var mainJob, tests bool
	written := map[string]bool{} // files an earlier command writes (-o FILE)
	for _, line := range block {
		cmd, _, _ := strings.Cut(line, "#")
		f := strings.Fields(cmd)
		if len(f) < 3 || f[0] != "go" {
			continue
		}
		if strings.Join(f, " ") == testCommand {
			tests = true
			continue
		}
		if f[1] != "install" && f[1] != "run" {
			continue
		}
		pkg := f[2]
		if strings.Contains(pkg, "@") || !strings.HasPrefix(pkg, "./") {
			t.Errorf("README's first commands: %q needs a published module; use a path in the clone (./cmd/certbench)", line)
			continue
		}
		if _, err := os.Stat(filepath.Join(root, pkg, "main.go")); err != nil {
			t.Errorf("README's first commands: %q: %v", line, err)
			continue
		}
		if f[1] == "run" && pkg == "./cmd/certbench" && len(f) > 3 {
			c, _, err := cli.NewRoot(io.Discard, io.Discard).Find(f[3:])
			if err != nil || c.Name() != f[3] {
				t.Errorf("README's first commands: %q: certbench has no command %q", line, f[3])
			}
			if f[3] == "compare" {
				mainJob = true
			}
			// Each input a command reads is written by a command above it:
			// the samples of the main job are kept for the next steps.
			if err == nil {
				if err := c.ParseFlags(f[4:]); err != nil {
					t.Errorf("README's first commands: %q: %v", line, err)
				}
				for _, in := range c.Flags().Args() {
					if !written[in] {
						t.Errorf("README's first commands: %q reads %s, which no command before it writes (-o %s)", line, in, in)
					}
				}
				if o := c.Flags().Lookup("output"); o != nil && o.Changed {
					written[o.Value.String()] = true
				}
			}
		}
	}
	if !mainJob {
		t.Errorf("README's first commands do not run the main job (go run ./cmd/certbench compare):\n%s", strings.Join(block, "\n"))
	}
	if !tests {
		t.Errorf("README's first commands do not run the tests (%s):\n%s", testCommand, strings.Join(block, "\n"))
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "\n"+testCommand+"\n") {
		t.Errorf(".ci/run does not run README's test command (%s)", testCommand)
	}
	if all := strings.Replace(testCommand, " -short", "", 1); !strings.Contains(string(ci), "\n"+all+"\n") {
		t.Errorf(".ci/run does not run every test (%s)", all)
	}
	if !strings.Contains(string(readme), "(docs/releasing.md)") {
		t.Error("README.md does not link to docs/releasing.md")
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "releasing.md")); err != nil {
		t.Error(err)
	}
}

// firstShellBlock returns the lines of the first ```sh block of a
// markdown text, or nil.
func firstShellBlock(md string) []string {
	_, rest, ok := strings.Cut(md, "```sh\n")
	if !ok {
		return nil
	}
	body, _, _ := strings.Cut(rest, "```")
	return strings.Split(strings.TrimSpace(body), "\n")
}

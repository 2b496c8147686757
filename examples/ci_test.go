package examples_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testPolicy is the gate policy of the scratch repository: allocation and
// goroutine counts are gated; time and retained heap, which a shared CI
// machine makes noisy at a few samples, are not. Per-op allocation counts
// are exact ratios, so the runtime's background allocations make them
// vary between processes by what the runtime allocates for itself during
// the window (a thread it starts is about 6 objects). The test runs 100
// ops per sample, so that noise is a few hundredths of an allocation per
// op against the +1 per refresh it must catch; allocs/op may grow by half
// an allocation per op; and 6 rounds let the paired test (or the U test)
// reach p < 0.05 even when some samples overlap.
const testPolicy = `gate:
  max:
    allocs/op: +0.5allocs
    sec/op: off
    retained-B: off
`

// hangPolicy is testPolicy with a sample taken as hung after 5 s (tens of
// times what one takes on a loaded machine), for the deadlocking head.
const hangPolicy = testPolicy + "  sample_timeout: 5s\n"

// oneAllocPerRefresh is what the regressing head adds to the example
// store's Update: one 64-byte allocation (above the tiny allocator's size)
// per refresh.
// hangAtFifth makes the example store's fifth Update in a process block
// for ever, as a deadlock would.
const (
	updateTail         = "\ts.cur.Store(g)\n\treturn nil\n}\n"
	oneAllocPerRefresh = "\tupdateLog = make([]byte, 64)\n" + updateTail + "\nvar updateLog []byte\n"
	hangAtFifth        = "\tif updates++; updates == 5 {\n\t\tselect {}\n\t}\n" + updateTail + "\nvar updates int\n"
)

// moreInstructions is what the CPU-regressing head adds to the example
// store's Update, after each certificate is indexed: a log tag built by
// string concatenation into a fixed-size buffer on the stack, 50 times
// (no allocation: the buffer does not escape and the tag fits). On the
// simulated CPU it adds more to the Update's instructions in
// rotate-10-of-100 than the gate's default threshold allows
// (results/simulated-cpu.md), and no allocation count can see it.
const (
	indexLoop        = "\t\tfor _, st := range certstore.StoresOf(c) {\n\t\t\tg.stores[st].add(cert, names)\n\t\t}\n"
	moreInstructions = indexLoop + "\t\tvar tag [64]byte\n\t\tfor range 50 {\n\t\t\tt := append(tag[:0], \"update: \"...)\n" +
		"\t\t\tt = append(t, names[0]...)\n\t\t\ttagLen += len(t)\n\t\t}\n"
)

// TestCIScript makes a git repository from examples/mystore, as a store
// author's repository would be (the module in a subdirectory, certbench
// pinned at a commit by the README's step 2: pinCertbench), and runs
// scripts/certbench-ci.sh (certbench ab, as the action runs it) on it. Only allocation counts (and, with valgrind, instructions) are gated,
// never the clock, so a busy machine cannot fail it: a head
// that changes nothing the store does passes (exit 0); a head that adds
// one allocation per refresh to the store's Update fails (exit 1), and the
// report names the function among the allocation sites that grew; a head
// whose Update deadlocks fails (exit 1) after the policy's sample timeout,
// named in the summary. With valgrind installed, the unchanged head passes
// with --simulate too, and a head that adds instructions but no allocation
// to Update fails on instructions/op (simulated CPU), naming the function,
// with allocations passing.
//
// The base is the same commit in every run, so the later ones take the
// first one's base binary and results from the cache (which the test
// checks): it builds up to five certbench binaries, runs short samples (under callgrind too, with valgrind) and
// waits one sample timeout (5 s); it takes minutes on 2 cores and is
// skipped under -short.
func TestCIScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries and runs benchmarks in a scratch git repository")
	}
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	certbench, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(certbench, "scripts", "certbench-ci.sh")
	repo := t.TempDir()
	mod := filepath.Join(repo, "mystore")
	copyTree(t, filepath.Join(certbench, "examples", "mystore"), mod)
	env := append(os.Environ(),
		"GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false",
		"GIT_AUTHOR_NAME=certbench test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=certbench test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(repo, ".nogitconfig"),
	)
	env = pinCertbench(t, env, certbench, mod, filepath.Join(repo, ".nogitconfig"))
	writeFile(t, filepath.Join(mod, "certbench.yaml"), testPolicy)
	run(t, env, repo, "git", "init", "-q", "-b", "main")
	run(t, env, repo, "git", "add", ".")
	run(t, env, repo, "git", "commit", "-q", "-m", "base")

	_, valgrindErr := exec.LookPath("valgrind")
	cache := t.TempDir()
	var lastOut string // the latest gate's output directory
	gate := func(name string, args ...string) (int, string) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out")
		lastOut = out
		cmd := exec.Command("bash", append([]string{script, "--stores", "mystore", "--scenarios", "rotate-10-of-100",
			"--count", "6", "--ops", "100", "--out", out, "--cache", cache}, append(args, "main")...)...)
		cmd.Dir = mod // --module defaults to the current directory: mystore
		cmd.Env = env
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		start := time.Now()
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Logf("%s: exit %d in %v", name, code, time.Since(start).Round(time.Second))
		if _, err := os.Stat(filepath.Join(out, "summary.md")); err != nil {
			t.Errorf("%s: no summary.md: %v", name, err)
		}
		return code, log.String()
	}

	// An unchanged head: a commit that touches only the README.
	run(t, env, repo, "git", "checkout", "-q", "-b", "docs")
	writeFile(t, filepath.Join(mod, "README.md"), readFile(t, filepath.Join(mod, "README.md"))+"\nA change to the README.\n")
	run(t, env, repo, "git", "commit", "-q", "-am", "docs only")
	if code, log := gate("unchanged head"); code != 0 {
		t.Fatalf("unchanged head: exit %d, want 0\n%s", code, log)
	}
	if valgrindErr == nil {
		// --wall-max policy keeps the test policy's clock off: the
		// script's loose default (+25%) would gate it, and a loaded
		// machine can put two builds of one tree that far apart.
		if code, log := gate("unchanged head, simulated CPU", "--simulate", "--wall-max", "policy"); code != 0 {
			t.Fatalf("unchanged head, simulated CPU: exit %d, want 0\n%s", code, log)
		}
	} else {
		t.Logf("valgrind not installed (%v): the simulated CPU's runs are left out", valgrindErr)
	}

	// A head with one more allocation per refresh.
	run(t, env, repo, "git", "checkout", "-q", "-b", "alloc", "main")
	src := readFile(t, filepath.Join(mod, "store.go"))
	if strings.Count(src, updateTail) != 1 {
		t.Fatalf("store.go: the end of Update (%q) is not there exactly once", updateTail)
	}
	writeFile(t, filepath.Join(mod, "store.go"), strings.Replace(src, updateTail, oneAllocPerRefresh, 1))
	run(t, env, repo, "git", "commit", "-q", "-am", "one allocation per refresh")
	code, log := gate("one allocation per refresh")
	if testing.Verbose() {
		t.Logf("one allocation per refresh: output\n%s", log)
	}
	if code != 1 {
		t.Fatalf("one allocation per refresh: exit %d, want 1\n%s", code, log)
	}
	for _, want := range []string{"allocs/op", "mystore.(*Store).Update", "base binary from the cache", "base results from the cache",
		"where the cost moved, as differential flame graphs: flame.rotate-10-of-100.mystore.html",
		"\npolicy: mystore/certbench.yaml at "} { // the base's, named so (not a --config the user did not give)
		if !strings.Contains(log, want) {
			t.Errorf("one allocation per refresh: the report does not name %q\n%s", want, log)
		}
	}

	if valgrindErr == nil {
		// A head with more instructions per refresh and no more allocations.
		run(t, env, repo, "git", "checkout", "-q", "-b", "cpu", "main")
		if strings.Count(src, indexLoop) != 1 {
			t.Fatalf("store.go: the indexing loop of Update (%q) is not there exactly once", indexLoop)
		}
		writeFile(t, filepath.Join(mod, "store.go"), strings.Replace(src, indexLoop, moreInstructions, 1)+"\nvar tagLen int\n")
		run(t, env, repo, "git", "commit", "-q", "-am", "a tag per certificate, on the stack")
		code, log = gate("more instructions per refresh", "--simulate", "--wall-max", "policy")
		if testing.Verbose() {
			t.Logf("more instructions per refresh: output\n%s", log)
		}
		if code != 1 {
			t.Fatalf("more instructions per refresh: exit %d, want 1\n%s", code, log)
		}
		// The simulated gate failed on instructions/op and named the
		// function; neither gate saw an allocation regression.
		for _, f := range []string{"sim-gate.json", "gate.json"} {
			b := readFile(t, filepath.Join(lastOut, f))
			var v struct {
				Findings []struct {
					Unit, Status string
					Sites        []struct{ Function string }
				}
			}
			if err := json.Unmarshal([]byte(b), &v); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			var instr, named bool
			for _, fd := range v.Findings {
				if fd.Status != "regressed" {
					continue
				}
				switch fd.Unit {
				case "instructions/op":
					instr = true
					for _, s := range fd.Sites {
						named = named || s.Function == "example.com/mystore.(*Store).Update"
					}
				case "allocs/op", "B/op":
					t.Errorf("%s: %s regressed: the change allocates nothing", f, fd.Unit)
				}
			}
			if f == "sim-gate.json" && (!instr || !named) {
				t.Errorf("%s: instructions/op regressed %v, example.com/mystore.(*Store).Update named %v\n%s", f, instr, named, log)
			}
		}
		// The flame graph of the profiled regression, named in the summary.
		if _, err := os.Stat(filepath.Join(lastOut, "sim-flame.rotate-10-of-100.mystore.html")); err != nil ||
			!strings.Contains(readFile(t, filepath.Join(lastOut, "summary.md")), "sim-flame.rotate-10-of-100.mystore.html") {
			t.Errorf("no flame graph of the simulated CPU's regression in the output or its summary (%v)", err)
		}
	}

	// A head whose Update deadlocks: the run gives up on it after the
	// policy's sample_timeout, leaves it out of the later rounds, and
	// the gate fails naming it.
	run(t, env, repo, "git", "checkout", "-q", "-b", "hang", "main")
	writeFile(t, filepath.Join(mod, "store.go"), strings.Replace(src, updateTail, hangAtFifth, 1))
	run(t, env, repo, "git", "commit", "-q", "-am", "a deadlock in the fifth Update")
	policy := filepath.Join(t.TempDir(), "hang.yaml")
	writeFile(t, policy, hangPolicy)
	code, log = gate("deadlock", "--config", policy)
	if code != 1 {
		t.Fatalf("deadlock: exit %d, want 1\n%s", code, log)
	}
	for _, want := range []string{
		"store mystore in scenario rotate-10-of-100 failed at head, not at base: Update (configuration 4 of 100) did not return within 5s",
		"store mystore did not return at head in round 1: left out of the later rounds on both sides",
		"raw/head.1.0-hang-mystore-rotate-10-of-100-1.txt",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("deadlock: the output lacks %q\n%s", want, log)
		}
	}
}

// TestCIScriptRelativeReplace: a store module whose go.mod replaces
// certbench with a relative path to a clone beside the repository, as a
// store author developing both would have it. The base is built in a
// temporary worktree, where that path leads nowhere: the script stops
// before building, says why and names the fix; with --base-replace it
// builds and gates.
func TestCIScriptRelativeReplace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries and runs benchmarks in a scratch git repository")
	}
	for _, tool := range []string{"git", "bash", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	certbench, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(certbench, "scripts", "certbench-ci.sh")
	scratch := t.TempDir()
	// The clone beside the repository: scratch/certbench, scratch/repo.
	if err := os.Symlink(certbench, filepath.Join(scratch, "certbench")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	repo := filepath.Join(scratch, "repo")
	mod := filepath.Join(repo, "mystore")
	copyTree(t, filepath.Join(certbench, "examples", "mystore"), mod)
	env := append(os.Environ(),
		"GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-buildvcs=false",
		"GIT_AUTHOR_NAME=certbench test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=certbench test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(scratch, ".nogitconfig"),
	)
	run(t, env, mod, "go", "mod", "edit", "-replace", "github.com/certbench/certbench=../../certbench")
	// The example's own policy gates sec/op, which a loaded machine makes
	// differ between two builds of one tree; this test is about finding the
	// base, so it gates only what identical trees cannot differ in.
	writeFile(t, filepath.Join(mod, "certbench.yaml"), testPolicy)
	run(t, env, repo, "git", "init", "-q", "-b", "main")
	run(t, env, repo, "git", "add", ".")
	run(t, env, repo, "git", "commit", "-q", "-m", "base")

	ci := func(args ...string) (int, string) {
		t.Helper()
		args = append([]string{script, "--stores", "mystore", "--scenarios", "lookup-1000", "--count", "4", "--ops", "100",
			"--out", filepath.Join(t.TempDir(), "out"), "--cache", t.TempDir()}, append(args, "main")...)
		cmd := exec.Command("bash", args...)
		cmd.Dir, cmd.Env = mod, env
		var log bytes.Buffer
		cmd.Stdout, cmd.Stderr = &log, &log
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode(), log.String()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, log.String()
	}
	code, log := ci()
	if code != 2 {
		t.Fatalf("relative replace: exit %d, want 2\n%s", code, log)
	}
	for _, want := range []string{"replace github.com/certbench/certbench => ../../certbench", "temporary git worktree",
		"--base-replace github.com/certbench/certbench=", "absolute path"} {
		if !strings.Contains(log, want) {
			t.Errorf("relative replace: the message does not say %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "building head") || strings.Contains(log, "does not exist") {
		t.Errorf("relative replace: not stopped before building:\n%s", log)
	}

	code, log = ci("--base-replace", "github.com/certbench/certbench="+filepath.Join(scratch, "certbench"))
	if code != 0 || !strings.Contains(log, "building base") {
		t.Fatalf("--base-replace: exit %d, want 0\n%s", code, log)
	}
}

// pinCertbench runs the pinning step of examples/mystore/README.md in mod,
// a copy of the example, as a store author runs it in their repository,
// with a stand-in for github.com/certbench/certbench: a git repository of
// this checkout's files (tracked or not ignored) committed on main, which
// gitconfig (the global git configuration of env) puts in place of
// GitHub's address, and which the go command fetches directly
// (GOPRIVATE: on a runner the module proxy serves the same commit, checked
// against go.sum). It checks what the step leaves: go.mod requiring the
// commit's pseudo-version with no replace, every certbench action of the
// workflows at the commit. It returns env with GOPRIVATE set for the
// builds to come, and removes the pseudo-version from the module cache when
// the test ends (the go command's git clone of the stand-in stays in its
// cache, a few MB that the next run fetches into).
func pinCertbench(t *testing.T, env []string, certbench, mod, gitconfig string) []string {
	t.Helper()
	readme := readFile(t, filepath.Join(certbench, "examples", "mystore", "README.md"))
	_, step, ok := strings.Cut(readme, "<!-- pin: run by TestCIScript in examples/ci_test.go -->")
	_, step, ok2 := strings.Cut(step, "```sh\n")
	step, _, ok3 := strings.Cut(step, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("examples/mystore/README.md: no pinning step (a sh block after its marker)")
	}

	standIn := filepath.Join(t.TempDir(), "certbench")
	files, err := exec.Command("git", "-C", certbench, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("git ls-files in %s: %v (not a git checkout)", certbench, err)
	}
	for _, f := range strings.Split(strings.TrimSuffix(string(files), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(certbench, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		} else if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(standIn, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(standIn, f), string(b))
	}
	run(t, env, standIn, "git", "init", "-q", "-b", "main")
	run(t, env, standIn, "git", "add", ".")
	// A commit of its own per run (its time in the message), so that a
	// concurrent run's clean-up cannot remove this one's module.
	run(t, env, standIn, "git", "commit", "-q", "-m", "stand-in for certbench, "+time.Now().Format(time.RFC3339Nano))
	out, err := exec.Command("git", "-C", standIn, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	commit := strings.TrimSpace(string(out))
	writeFile(t, gitconfig, fmt.Sprintf("[url %q]\n\tinsteadOf = https://github.com/certbench/certbench\n", standIn))
	env = append(env, "GOPRIVATE=github.com/certbench/certbench")

	cmd := exec.Command("bash", "-euo", "pipefail", "-c", step)
	cmd.Dir, cmd.Env = mod, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's pinning step: %v\n%s", err, out)
	}
	var gomod struct {
		Require []struct{ Path, Version string }
		Replace []struct{ Old struct{ Path string } }
	}
	out, err = exec.Command("go", "mod", "edit", "-json", filepath.Join(mod, "go.mod")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &gomod); err != nil {
		t.Fatal(err)
	}
	version := ""
	for _, r := range gomod.Require {
		if r.Path == "github.com/certbench/certbench" {
			version = r.Version
		}
	}
	if !strings.HasSuffix(version, "-"+commit[:12]) || len(gomod.Replace) > 0 {
		t.Fatalf("after the pinning step go.mod requires certbench %q with %d replace(s), want the pseudo-version of %s and none", version, len(gomod.Replace), commit)
	}
	t.Cleanup(func() {
		cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil || strings.TrimSpace(string(cache)) == "" {
			return
		}
		dir := filepath.Join(strings.TrimSpace(string(cache)), "github.com", "certbench")
		extracted := filepath.Join(dir, "certbench@"+version)
		filepath.WalkDir(extracted, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(path, 0o755) // the module cache's directories are read-only
			}
			return nil
		})
		os.RemoveAll(extracted)
		downloads, _ := filepath.Glob(filepath.Join(strings.TrimSpace(string(cache)), "cache", "download", "github.com", "certbench", "certbench", "@v", version+".*"))
		for _, f := range downloads {
			os.Remove(f)
		}
	})
	pins := 0
	for _, wf := range []string{"certbench.yml", "certbench-comment.yml"} {
		for _, line := range strings.Split(readFile(t, filepath.Join(mod, ".github", "workflows", wf)), "\n") {
			if _, ref, ok := strings.Cut(line, "uses: certbench/certbench"); ok {
				pins++
				if _, at, _ := strings.Cut(ref, "@"); at != commit {
					t.Errorf("%s after the pinning step: %q, want certbench at %s", wf, strings.TrimSpace(line), commit)
				}
			}
		}
	}
	if pins < 3 {
		t.Errorf("the workflows use certbench's actions %d times, want 3 (gate, record, comment)", pins)
	}
	return env
}

func run(t *testing.T, env []string, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

package examples_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMain makes the test binary a stand-in for gh when the comment
// script's test runs it so (FAKE_GH_DIR set).
func TestMain(m *testing.M) {
	if dir := os.Getenv("FAKE_GH_DIR"); dir != "" {
		os.Exit(fakeGH(dir, os.Args[1:]))
	}
	os.Exit(m.Run())
}

const (
	commentRepo = "owner/store"
	commentHead = "0123456789abcdef0123456789abcdef01234567"
)

// TestCommentScript runs scripts/certbench-comment.sh (actions/comment's
// step) against a stand-in for gh that serves an artifact the test made,
// as a pull request's run would upload it, honest or not. An honest one is
// posted, or edits the bot's earlier comment (not a person's that starts
// with the same marker), as data: a report holding shell syntax runs
// none of it. A number that is not one names nothing; a pull request whose
// head is not the run's commit gets no comment; a report over 60,000 bytes
// is cut; an artifact over 1 MiB is not downloaded; no artifact is nothing
// to post.
func TestCommentScript(t *testing.T) {
	for _, tool := range []string{"bash", "jq", "unzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found: %v", tool, err)
		}
	}
	script, err := filepath.Abs(filepath.Join("..", "scripts", "certbench-comment.sh"))
	if err != nil {
		t.Fatal(err)
	}
	readFile(t, script) // so that go test's cache sees a change to it
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(self, filepath.Join(bin, "gh")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	hostile := "## certbench: FAIL\n$(touch pwned) `touch pwned` ${IFS}; touch pwned\n<!-- certbench-gate -->\n"
	human := map[string]any{"id": 5, "user": map[string]any{"type": "User"}, "body": "<!-- certbench-gate -->\nnot the bot's"}
	bot := map[string]any{"id": 9, "user": map[string]any{"type": "Bot"}, "body": "<!-- certbench-gate -->\nthe last push's report"}
	for _, c := range []struct {
		name     string
		pr       string // the artifact's pr file
		report   string // its comment.md
		size     int    // the artifact's size in the API's listing (0: none listed)
		head     string // the pull request's head
		comments []any  // the pull request's comments
		code     int
		posted   string // the file the stand-in wrote: posted-PR or patched-ID
		says     string
	}{
		{"new comment", "7\n", hostile, 300, commentHead, []any{human}, 0, "posted-7", "commented on pull request #7"},
		{"edit the bot's", "7\n", hostile, 300, commentHead, []any{human, bot}, 0, "patched-9", "edited comment 9"},
		{"not a number", "7; touch pwned\n", hostile, 300, commentHead, nil, 1, "", "pr is not a pull request number"},
		{"a path", "../../7\n", hostile, 300, commentHead, nil, 1, "", "pr is not a pull request number"},
		{"another head", "8\n", hostile, 300, "fedcba9876543210fedcba9876543210fedcba98", nil, 0, "", "not the run's 0123456789ab: not posted"},
		{"long report", "7\n", strings.Repeat("x", 100_000), 300, commentHead, nil, 0, "posted-7", "commented"},
		{"large artifact", "7\n", hostile, 2 << 20, commentHead, nil, 1, "", "more than a report"},
		{"no artifact", "7\n", hostile, 0, commentHead, nil, 0, "", "nothing to post"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake, work := t.TempDir(), t.TempDir()
			var zbuf bytes.Buffer
			zw := zip.NewWriter(&zbuf)
			for name, content := range map[string]string{"pr": c.pr, "comment.md": c.report} {
				w, err := zw.Create(name)
				if err != nil {
					t.Fatal(err)
				}
				w.Write([]byte(content))
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			artifacts := []any{}
			if c.size > 0 {
				artifacts = append(artifacts, map[string]any{"id": 42, "name": "certbench-gate-comment-2", "size_in_bytes": c.size, "expired": false})
			}
			pr := strings.TrimSpace(c.pr)
			for name, v := range map[string]any{
				"artifacts.json":       map[string]any{"total_count": len(artifacts), "artifacts": artifacts},
				"pull-" + pr + ".json": map[string]any{"number": pr, "head": map[string]any{"sha": c.head}},
				"comments.json":        append([]any{}, c.comments...),
			} {
				b, _ := json.Marshal(v)
				writeFile(t, filepath.Join(fake, name), string(b))
			}
			writeFile(t, filepath.Join(fake, "artifact.zip"), zbuf.String())

			cmd := exec.Command("bash", script)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "FAKE_GH_DIR="+fake,
				"GH_TOKEN=t", "REPO="+commentRepo, "RUN_ID=1234", "ATTEMPT=2", "HEAD_SHA="+commentHead,
				"RUN_URL=https://github.com/owner/store/actions/runs/1234", "MARKER=certbench-gate")
			out, err := cmd.CombinedOutput()
			code := cmd.ProcessState.ExitCode()
			if code != c.code || !strings.Contains(string(out), c.says) {
				t.Fatalf("exit %d (%v), want %d saying %q:\n%s", code, err, c.code, c.says, out)
			}
			if _, err := os.Stat(filepath.Join(work, "pwned")); err == nil {
				t.Error("the report ran as shell code: pwned exists")
			}
			if calls := readFile(t, filepath.Join(fake, "calls")); !strings.Contains(calls, "GET repos/owner/store/actions/runs/1234/artifacts name=certbench-gate-comment-2") {
				t.Errorf("the artifact was not looked up as certbench-gate-comment-2:\n%s", calls)
			} else if c.size > 1<<20 && strings.Contains(calls, "/zip") {
				t.Errorf("an artifact over 1 MiB was downloaded:\n%s", calls)
			}
			written, _ := filepath.Glob(filepath.Join(fake, "p*ed-*"))
			if c.posted == "" {
				if len(written) > 0 {
					t.Fatalf("posted %v, want nothing", written)
				}
				return
			}
			if len(written) != 1 || filepath.Base(written[0]) != c.posted {
				t.Fatalf("posted %v, want %s", written, c.posted)
			}
			body := readFile(t, written[0])
			footer := "\n\n[The run](https://github.com/owner/store/actions/runs/1234): its job summary and artifacts.\n"
			want := "<!-- certbench-gate -->\n" + c.report + footer
			if len(c.report) > 60000 {
				want = "<!-- certbench-gate -->\n" + c.report[:60000] + "\n\n(cut at 60000 bytes: the whole report is in the run's job summary)\n" + footer
			}
			if body != want {
				t.Errorf("body (%d bytes):\n%.400s\nwant (%d bytes):\n%.400s", len(body), body, len(want), want)
			}
		})
	}
}

var (
	fakeArtifacts = regexp.MustCompile(`^repos/owner/store/actions/runs/1234/artifacts$`)
	fakeZip       = regexp.MustCompile(`^repos/owner/store/actions/artifacts/42/zip$`)
	fakePull      = regexp.MustCompile(`^repos/owner/store/pulls/([0-9]+)$`)
	fakeComments  = regexp.MustCompile(`^repos/owner/store/issues/([0-9]+)/comments$`)
	fakeComment   = regexp.MustCompile(`^repos/owner/store/issues/comments/([0-9]+)$`)
)

// fakeGH answers the gh api calls of certbench-comment.sh from the files in
// dir and logs each call to dir/calls; a posted or edited body is saved as
// dir/posted-PR or dir/patched-ID.
func fakeGH(dir string, args []string) int {
	if len(args) == 0 || args[0] != "api" {
		fmt.Fprintln(os.Stderr, "fake gh: only api")
		return 2
	}
	method, path, fields := "GET", "", map[string]string{}
	for i := 1; i < len(args); i++ {
		switch args[i] {
		case "--method", "-X":
			i++
			method = args[i]
		case "-f", "-F":
			i++
			k, v, _ := strings.Cut(args[i], "=")
			fields[k] = v
		case "--paginate":
		default:
			path = args[i]
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "calls"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintf(f, "%s %s name=%s\n", method, path, fields["name"])
		f.Close()
	}
	serve := func(name string) int {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			fmt.Fprintln(os.Stderr, "gh: HTTP 404: Not Found")
			return 1
		}
		os.Stdout.Write(b)
		return 0
	}
	save := func(name string) int {
		b, err := os.ReadFile(strings.TrimPrefix(fields["body"], "@"))
		if err != nil || !strings.HasPrefix(fields["body"], "@") {
			fmt.Fprintln(os.Stderr, "fake gh: body not from a file")
			return 2
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
		fmt.Println("{}")
		return 0
	}
	switch {
	case method == "GET" && fakeArtifacts.MatchString(path):
		return serve("artifacts.json")
	case method == "GET" && fakeZip.MatchString(path):
		return serve("artifact.zip")
	case method == "GET" && fakePull.MatchString(path):
		return serve("pull-" + fakePull.FindStringSubmatch(path)[1] + ".json")
	case method == "GET" && fakeComments.MatchString(path):
		return serve("comments.json")
	case method == "POST" && fakeComments.MatchString(path):
		return save("posted-" + fakeComments.FindStringSubmatch(path)[1])
	case method == "PATCH" && fakeComment.MatchString(path):
		return save("patched-" + fakeComment.FindStringSubmatch(path)[1])
	}
	fmt.Fprintf(os.Stderr, "fake gh: unexpected %s %s\n", method, path)
	return 2
}

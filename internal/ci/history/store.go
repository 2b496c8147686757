package history

import (
	"archive/tar"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Configuration keys Add writes at the top of each stored file, ahead of
// the machine's configuration lines.
const (
	CommitKey     = "commit"      // the commit the results are of
	CommitTimeKey = "commit-time" // its committer time, RFC 3339
)

// GitPrefix marks a location in a git repository: "git:refs/notes/certbench".
const GitPrefix = "git:"

// A Store is where a history is kept: a directory of result files, or a
// ref of a git repository whose tree holds them (see Open). A stored file
// is named COMMIT-HASH.txt, HASH the start of its SHA-256, so two adds
// never choose one name for different contents, and adding one file
// twice stores it once.
type Store interface {
	// Put stores one file under name unless a file of that name is
	// stored; it never changes or removes a stored file.
	Put(ctx context.Context, name string, data []byte) error
	// Walk calls f with each stored file, in no set order, and stops at
	// f's first error. data is only f's until it returns.
	Walk(ctx context.Context, f func(name string, data []byte) error) error
	// String names the store as the user gave it.
	String() string
}

// Open returns the store at loc: "git:REF" is REF in the git repository
// of the working directory (dir, if not empty), anything else a
// directory, created on the first Put.
func Open(loc, dir string) (Store, error) {
	if ref, ok := strings.CutPrefix(loc, GitPrefix); ok {
		if !strings.HasPrefix(ref, "refs/") {
			return nil, fmt.Errorf("--history %s: want git:refs/..., a full ref name", loc)
		}
		return &gitStore{ref: ref, dir: dir}, nil
	}
	return dirStore(loc), nil
}

// FileName returns the name a file of commit with data is stored under.
func FileName(commit string, data []byte) string {
	sum := sha256.Sum256(data)
	return commit + "-" + hex.EncodeToString(sum[:6]) + ".txt"
}

// dirStore keeps the files in a directory.
type dirStore string

func (d dirStore) String() string { return string(d) }

// Put writes a temporary file and links it to its name: link fails if
// the name exists, so a stored file is never overwritten, and a reader
// never sees half a file.
func (d dirStore) Put(_ context.Context, name string, data []byte) error {
	if err := os.MkdirAll(string(d), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(string(d), ".add-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	err = os.Link(tmp.Name(), filepath.Join(string(d), name))
	if errors.Is(err, os.ErrExist) {
		return nil // the same name is the same content
	}
	return err
}

func (d dirStore) Walk(_ context.Context, f func(string, []byte) error) error {
	var buf []byte
	ents, err := os.ReadDir(string(d))
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".txt") {
			continue
		}
		file, err := os.Open(filepath.Join(string(d), e.Name()))
		if err != nil {
			return err
		}
		buf, err = readAll(buf, file)
		file.Close()
		if err == nil {
			err = f(e.Name(), buf)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// gitStore keeps the files in the tree of a ref's commit, one commit per
// add whose parent is the ref's previous commit.
type gitStore struct{ ref, dir string }

func (g *gitStore) String() string { return GitPrefix + g.ref }

// git runs git with stdin and returns its trimmed output.
func (g *gitStore) git(ctx context.Context, stdin []byte, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// head returns the ref's commit, or "" if the ref does not exist.
func (g *gitStore) head(ctx context.Context) (string, error) {
	return g.git(ctx, nil, "for-each-ref", "--format=%(objectname)", g.ref)
}

// maxRetries bounds the compare-and-swap retries of Put.
const maxRetries = 50

// Put writes the blob, a tree of the ref's tree plus it (git mktree), a
// commit of that tree whose parent is the ref's commit, and moves the ref
// from that parent to the new commit (git update-ref NEW OLD): a
// compare-and-swap, so an add that raced another and lost starts again
// from the winner's commit instead of dropping its files.
func (g *gitStore) Put(ctx context.Context, name string, data []byte) error {
	blob, err := g.git(ctx, data, "hash-object", "-w", "--stdin")
	if err != nil {
		return err
	}
	var lost error
	for try := 0; try < maxRetries; try++ {
		old, err := g.head(ctx)
		if err != nil {
			return err
		}
		var entries string
		if old != "" {
			if entries, err = g.git(ctx, nil, "ls-tree", "--full-tree", old); err != nil {
				return err
			}
			if strings.Contains(entries, "\t"+name+"\n") || strings.HasSuffix(entries, "\t"+name) {
				return nil // stored already
			}
			entries += "\n"
		}
		entries += "100644 blob " + blob + "\t" + name + "\n"
		tree, err := g.git(ctx, []byte(entries), "mktree")
		if err != nil {
			return err
		}
		args := []string{"-c", "user.name=certbench", "-c", "user.email=certbench@localhost", "commit-tree", tree, "-m", "certbench history add " + name}
		if old != "" {
			args = append(args, "-p", old)
		}
		commit, err := g.git(ctx, nil, args...)
		if err != nil {
			return err
		}
		want := old
		if want == "" {
			want = strings.Repeat("0", len(commit)) // the ref must not exist yet
		}
		if _, lost = g.git(ctx, nil, "update-ref", g.ref, commit, want); lost == nil {
			return nil
		}
		time.Sleep(time.Duration(rand.IntN(20*(try+1))) * time.Millisecond)
	}
	return fmt.Errorf("%s: %d tries, each lost a race with another add: %w", g, maxRetries, lost)
}

// Walk reads the ref's tree as one tar stream (git archive).
func (g *gitStore) Walk(ctx context.Context, f func(string, []byte) error) error {
	if head, err := g.head(ctx); err != nil || head == "" {
		return cmp.Or(err, error(noRef(g.String())))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", g.ref)
	var errb bytes.Buffer
	cmd.Dir, cmd.Stderr = g.dir, &errb
	pipe, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return fmt.Errorf("git archive: %v", err)
	}
	tr := tar.NewReader(pipe)
	var buf []byte
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			if err := cmd.Wait(); err != nil {
				return fmt.Errorf("%s: git archive: %v: %s", g, err, strings.TrimSpace(errb.String()))
			}
			return nil
		}
		if err != nil {
			cmd.Wait()
			return fmt.Errorf("%s: git archive: %v", g, err)
		}
		if hdr.Typeflag != tar.TypeReg || !strings.HasSuffix(hdr.Name, ".txt") {
			continue
		}
		buf, err = readAll(buf, tr)
		if err == nil {
			err = f(hdr.Name, buf)
		}
		if err != nil {
			cancel()
			cmd.Wait()
			return err
		}
	}
}

// noRef is Walk's error for a ref that does not exist: an fs.ErrNotExist,
// as a directory's.
type noRef string

func (r noRef) Error() string      { return string(r) + ": no such ref" }
func (noRef) Is(target error) bool { return target == fs.ErrNotExist }

// CommitTime returns the committer time of commit in the git repository
// of dir ("" for the working directory).
func CommitTime(ctx context.Context, dir, commit string) (time.Time, error) {
	g := &gitStore{dir: dir}
	out, err := g.git(ctx, nil, "log", "-1", "--format=%cI", commit, "--")
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(time.RFC3339, out)
}

// Resolve returns the full hash of the commit name (a hash, tag or
// branch) in the git repository of dir.
func Resolve(ctx context.Context, dir, name string) (string, error) {
	if name == "" {
		return "", errors.New("no commit")
	}
	return (&gitStore{dir: dir}).git(ctx, nil, "rev-parse", "--verify", "--end-of-options", name+"^{commit}")
}

// readAll reads r into buf, reused.
func readAll(buf []byte, r io.Reader) ([]byte, error) {
	b := bytes.NewBuffer(buf[:0])
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

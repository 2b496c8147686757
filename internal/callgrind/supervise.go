package callgrind

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Start starts cmd, made by Command, with the start-up seed fixed
// (StartFixedSeed, SeedEnv=fixed in its environment) where tracing is
// allowed, else as it is; fixed says which.
func Start(cmd *exec.Cmd) (fixed bool, err error) {
	env := cmd.Env
	cmd.Env = append(env[:len(env):len(env)], SeedEnv+"=fixed")
	err = StartFixedSeed(cmd, Seed)
	if errors.Is(err, ErrNoFixedSeed) {
		cmd.Env = env
		return false, cmd.Start()
	}
	return err == nil, err
}

// ExitError is Supervise's error when the program under callgrind exited
// with a non-zero code of its own (it has said why on its stderr).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// Supervise starts cmd (made by Command for options o, its Stdout set) in
// a process group of its own, so that a Ctrl-C reaches only this process,
// and waits for it: its stderr copied to stderr without the runtime's
// rdtscp warning lines, ctx's end passed on once as SIGINT (or the signal
// of ctx's cause, when the cause has a Signal method). Where the start-up
// seed cannot be fixed (see Start) it warns on stderr. A non-zero exit of
// the program is an *ExitError; valgrind's own failure quotes its log.
func Supervise(ctx context.Context, cmd *exec.Cmd, o Options, stderr io.Writer) error {
	ownProcessGroup(cmd)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	fixed, err := Start(cmd)
	if err != nil {
		return fmt.Errorf("starting valgrind: %w", err)
	}
	if !fixed {
		fmt.Fprintf(stderr, "certbench: warning: %v; instruction counts of code that hashes with a per-process seed will differ between processes\n", ErrNoFixedSeed)
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		copyWithout(stderr, pipe, rdtscpWarning)
	}()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			sig := os.Signal(syscall.SIGINT)
			var s interface{ Signal() os.Signal }
			if errors.As(context.Cause(ctx), &s) {
				sig = s.Signal()
			}
			cmd.Process.Signal(sig)
		case <-done:
		}
	}()
	<-copied // all of stderr read before Wait closes the pipe
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.ExitCode() > 0:
		return &ExitError{Code: exit.ExitCode()}
	case errors.As(err, &exit):
		return fmt.Errorf("under callgrind: %v%s", err, logTail(filepath.Join(o.Dir, LogFile)))
	}
	return fmt.Errorf("under callgrind: %w", err)
}

// rdtscpWarning begins the lines golang.org/x/sys/cpu prints for the
// runtime's cpu.rdtscp option (see GODEBUG).
const rdtscpWarning = `GODEBUG sys/cpu: unknown cpu feature "rdtscp"`

// copyWithout copies r to w, leaving out the lines at its start that begin
// with prefix; the rest is copied as it comes (progress ends in \r).
func copyWithout(w io.Writer, r io.Reader, prefix string) {
	br := bufio.NewReader(r)
	for {
		peek, err := br.Peek(len(prefix))
		if err != nil || string(peek) != prefix {
			break
		}
		if _, err := br.ReadString('\n'); err != nil {
			return
		}
	}
	io.Copy(w, br)
}

// logTail returns the last lines of valgrind's log, for an error message.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return ""
	}
	lines := bytes.Split(bytes.TrimRight(b, "\n"), []byte("\n"))
	if len(lines) > 15 {
		lines = lines[len(lines)-15:]
	}
	return "; valgrind's log ends:\n" + string(bytes.Join(lines, []byte("\n")))
}

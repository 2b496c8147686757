// Package rendezvous lets processes on one machine start timed work at the
// same moment, so that whatever slows the machine meanwhile slows all of
// them alike and cancels out of their ratio (run --sync, once per sample).
//
// At each point every party appends a record, a hash of what it is about
// to measure, to the point's file in a shared directory, and waits until
// the file holds one per party; parties that disagree fail instead of
// measuring different things side by side.
package rendezvous

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// DefaultTimeout is how long a party waits at a point when Open is given
// no timeout: a slow store's large initial configuration fits, a dead
// partner does not hang a CI job.
const DefaultTimeout = 10 * time.Minute

// pollInterval is how often a waiting party looks at the point's file.
const pollInterval = 50 * time.Microsecond

const recordLen = 17 // 16 hex digits of the label's SHA-256 and a newline

// ErrMismatch is wrapped by Wait's error when the parties arrived at a
// point with different labels.
var ErrMismatch = errors.New("the parties are not measuring the same thing")

// Dir is one party's view of a rendezvous directory. It is not safe for
// concurrent use: one process is one party.
type Dir struct {
	path    string
	parties int
	timeout time.Duration
	point   int
}

// Open joins the rendezvous of parties processes in the directory path,
// which must exist and be fresh (points count from 1; files stay).
// timeout bounds each Wait; 0 means DefaultTimeout.
func Open(path string, parties int, timeout time.Duration) (*Dir, error) {
	if parties < 1 {
		return nil, fmt.Errorf("rendezvous: %d parties: want at least 1", parties)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("rendezvous: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("rendezvous: %s is not a directory", path)
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Dir{path: path, parties: parties, timeout: timeout}, nil
}

// Sample is Wait at a sample (bench.Options.Sync), labelled
// "scenario/store/sample".
func (d *Dir) Sample(ctx context.Context, scenario, store string, sample int) error {
	return d.Wait(ctx, fmt.Sprintf("%s/%s/%d", scenario, store, sample))
}

// Wait arrives at the next point with label (what this party is about to
// do, e.g. "rotate-10-of-100/optimized/1") and returns when every party has
// arrived there with the same label. It returns an error wrapping
// ErrMismatch if a party arrived with another label or more parties than
// Open was told arrived, an error naming the point if the others do not
// arrive within the timeout, and ctx's error if ctx is done first.
func (d *Dir) Wait(ctx context.Context, label string) error {
	d.point++
	name := filepath.Join(d.path, fmt.Sprintf("point-%d", d.point))
	sum := sha256.Sum256([]byte(label))
	rec := make([]byte, recordLen)
	hex.Encode(rec, sum[:(recordLen-1)/2])
	rec[recordLen-1] = '\n'

	// One write of a few bytes to a file opened for appending lands whole,
	// after every earlier one: the records never interleave.
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("rendezvous point %d: %w", d.point, err)
	}
	_, werr := f.Write(rec)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("rendezvous point %d: %w", d.point, werr)
	}

	r, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("rendezvous point %d: %w", d.point, err)
	}
	defer r.Close()
	want := int64(d.parties * recordLen)
	deadline := time.Now().Add(d.timeout)
	for {
		fi, err := r.Stat()
		if err != nil {
			return fmt.Errorf("rendezvous point %d: %w", d.point, err)
		}
		if fi.Size() >= want {
			return d.check(name, rec)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rendezvous point %d in %s: %d of %d parties arrived within %s", d.point, d.path, fi.Size()/recordLen, d.parties, d.timeout)
		}
		time.Sleep(pollInterval)
	}
}

// check reads a complete point's file and reports whether every record is
// rec and there is one per party.
func (d *Dir) check(name string, rec []byte) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("rendezvous point %d: %w", d.point, err)
	}
	if n := len(data) / recordLen; n > d.parties || len(data)%recordLen != 0 {
		return fmt.Errorf("rendezvous point %d in %s: %w: more than %d parties arrived", d.point, d.path, ErrMismatch, d.parties)
	}
	for i := 0; i < len(data); i += recordLen {
		if !bytes.Equal(data[i:i+recordLen], rec) {
			return fmt.Errorf("rendezvous point %d in %s: %w: another party arrived with a different label", d.point, d.path, ErrMismatch)
		}
	}
	return nil
}

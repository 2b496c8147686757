package cost_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/cost"
	"github.com/google/pprof/profile"
)

// writeBomb writes a gzip file that decompresses to n zero bytes (a few
// KiB on disk), streaming, so the test never holds n bytes either.
func writeBomb(t *testing.T, n int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bomb.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	if _, err := io.CopyN(gz, zeros{}, n); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestLoadGzipBomb: a profile that decompresses beyond the limit is an
// error naming the file and the limit, found without decompressing it
// whole (pprof's parser used to read all of it: 8 GB from 7.7 MB).
func TestLoadGzipBomb(t *testing.T) {
	const limit = 512 << 10
	path := writeBomb(t, 8<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := cost.LoadMax(path, limit)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, cost.ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, path+": ") || !strings.Contains(msg, "524288 bytes") {
		t.Errorf("err = %q, want it to name the file and the limit", msg)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*limit {
		t.Errorf("reading the bomb allocated %d bytes, want a few times the %d-byte limit", alloc, limit)
	}

	// Under the default limit such a file is read, and is no profile.
	small := writeBomb(t, 64<<10)
	if _, err := cost.Load(small); err == nil || errors.Is(err, cost.ErrTooLarge) || !strings.Contains(err.Error(), small) {
		t.Errorf("Load: err = %v, want not-a-profile naming the file", err)
	}
}

// TestLoadMaxUncompressed: the limit holds for a file that is not
// gzipped too.
func TestLoadMaxUncompressed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.pb")
	if err := os.WriteFile(path, bytes.Repeat([]byte{'x'}, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := cost.LoadMax(path, 1024)
	if !errors.Is(err, cost.ErrTooLarge) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "1024 bytes") {
		t.Errorf("err = %v, want ErrTooLarge naming %s and 1024 bytes", err, path)
	}
}

// TestLoadMaxFits: a real profile within the limit loads; the limit is on
// the decompressed size, exactly.
func TestLoadMaxFits(t *testing.T) {
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}},
		PeriodType: &profile.ValueType{Type: "space", Unit: "bytes"},
	}
	var raw bytes.Buffer
	if err := p.WriteUncompressed(&raw); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "p.pb.gz")
	if err := cost.Save(p, path); err != nil {
		t.Fatal(err)
	}
	n := int64(raw.Len())
	if _, err := cost.LoadMax(path, n); err != nil {
		t.Errorf("limit = size (%d): %v", n, err)
	}
	if _, err := cost.LoadMax(path, n-1); !errors.Is(err, cost.ErrTooLarge) {
		t.Errorf("limit = size-1: err = %v, want ErrTooLarge", err)
	}

	// A gzip inside the gzip would be decompressed again by pprof, with
	// no limit: refused.
	var inner, outer bytes.Buffer
	gz := gzip.NewWriter(&inner)
	gz.Write(raw.Bytes())
	gz.Close()
	gz = gzip.NewWriter(&outer)
	gz.Write(inner.Bytes())
	gz.Close()
	nested := filepath.Join(dir, "nested.pb.gz")
	if err := os.WriteFile(nested, outer.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := cost.Load(nested); err == nil || !strings.Contains(err.Error(), nested) || !strings.Contains(err.Error(), "gzip inside gzip") {
		t.Errorf("nested gzip: err = %v", err)
	}
	if _, err := cost.Load(dir); err == nil || !strings.Contains(err.Error(), dir+": is a directory") {
		t.Errorf("directory: err = %v", err)
	}
}

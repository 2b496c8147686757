package profile_test

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

	"github.com/certbench/certbench/internal/profile"
	pprofile "github.com/google/pprof/profile"
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
	_, err := profile.LoadMax(path, limit)
	runtime.ReadMemStats(&after)
	var se *profile.SizeError
	if !errors.As(err, &se) || se.File != path || se.Limit != limit || !se.Compressed {
		t.Fatalf("err = %v, want a *SizeError for %s at %d bytes", err, path, limit)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, path+": ") || !strings.Contains(msg, "512KiB") || !strings.Contains(msg, "524288 bytes") {
		t.Errorf("err = %q, want it to name the file and the limit", msg)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*limit {
		t.Errorf("reading the bomb allocated %d bytes, want a few times the %d-byte limit", alloc, limit)
	}

	// Under the default limit such a file is read, and is no profile.
	small := writeBomb(t, 64<<10)
	if _, err := profile.Load(small); err == nil || errors.As(err, &se) || !strings.Contains(err.Error(), small) {
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
	_, err := profile.LoadMax(path, 1024)
	var se *profile.SizeError
	if !errors.As(err, &se) || se.Compressed || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "1KiB") {
		t.Errorf("err = %v, want an uncompressed *SizeError naming %s and 1KiB", err, path)
	}
	if _, err := profile.LoadMax(path, 0); err == nil {
		t.Error("limit 0: no error")
	}
}

// TestLoadMaxFits: a real profile within the limit loads; the limit is on
// the decompressed size, exactly.
func TestLoadMaxFits(t *testing.T) {
	p := &pprofile.Profile{
		SampleType: []*pprofile.ValueType{{Type: "alloc_space", Unit: "bytes"}},
		PeriodType: &pprofile.ValueType{Type: "space", Unit: "bytes"},
	}
	var raw bytes.Buffer
	if err := p.WriteUncompressed(&raw); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "p.pb.gz")
	if err := profile.Save(p, path); err != nil {
		t.Fatal(err)
	}
	n := int64(raw.Len())
	if _, err := profile.LoadMax(path, n); err != nil {
		t.Errorf("limit = size (%d): %v", n, err)
	}
	var se *profile.SizeError
	if _, err := profile.LoadMax(path, n-1); !errors.As(err, &se) {
		t.Errorf("limit = size-1: err = %v, want a *SizeError", err)
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
	if _, err := profile.Load(nested); err == nil || !strings.Contains(err.Error(), nested) || !strings.Contains(err.Error(), "gzip inside gzip") {
		t.Errorf("nested gzip: err = %v", err)
	}
	if _, err := profile.Load(dir); err == nil || !strings.Contains(err.Error(), dir+": is a directory") {
		t.Errorf("directory: err = %v", err)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"268435456": 268435456, "256MiB": 256 << 20, "256M": 256 << 20, "1GiB": 1 << 30, "1g": 1 << 30,
		"512KiB": 512 << 10, "10B": 10, " 2 MiB ": 2 << 20,
	} {
		got, err := profile.ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v, want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MiB", "-1", "0", "1.5GiB", "12 parsecs", "99999999999999999999", "9999999999999GiB"} {
		if _, err := profile.ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): no error", in)
		}
	}
	for n, want := range map[int64]string{256 << 20: "256MiB", 1 << 10: "1KiB", 900: "900B"} {
		if got := profile.FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

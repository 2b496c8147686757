// Package golden compares test output with golden files. A test binary
// that imports it gets the -update flag, which rewrites the files instead.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares got with the file at path (usually under testdata), or
// rewrites the file when the test runs with -update.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// CheckSection compares got with the section of the file at path (a
// README or a docs page) between the lines begin and end, or rewrites
// that section when the test runs with -update. The rest of the file is
// left as it is.
func CheckSection(t testing.TB, path, begin, end string, got []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(begin))
	j := bytes.Index(data, []byte(end))
	if i < 0 || j < i+len(begin) {
		t.Fatalf("%s has no generated section (%q ... %q)", path, begin, end)
	}
	have := data[i+len(begin) : j]
	if bytes.Equal(have, got) {
		return
	}
	if *update {
		out := append(append(append([]byte{}, data[:i+len(begin)]...), got...), data[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the generated section differs (go test -update rewrites it)\n--- file:\n%s\n--- generated:\n%s", path, have, got)
}

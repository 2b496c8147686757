package gobench

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDeclaresBenchmarks(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"package p\nfunc BenchmarkLookup(b *testing.B) {}\n", true},
		{"package p\nfunc Benchmark(b *testing.B) {}\n", true},
		{"package p\nfunc Benchmark_x(b *testing.B) {}\n", true},
		{"package p\nfunc Benchmarkless(b *testing.B) {}\n", false}, // go test does not run it
		{"package p\nfunc TestLookup(t *testing.T) {}\n", false},
		{"package p\n// func BenchmarkX(b *testing.B) in a comment\n", false},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "x_test.go"), []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := declaresBenchmarks(dir, []string{"x_test.go"}); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.src, got, tc.want)
		}
	}
	if !declaresBenchmarks(t.TempDir(), []string{"missing_test.go"}) {
		t.Error("an unreadable file: false, want true (the build says why)")
	}
}

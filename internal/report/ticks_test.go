package report

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/certbench/certbench/results"
)

func TestFileTicks(t *testing.T) {
	for _, c := range []struct {
		labels []string
		want   map[string]string
	}{
		{[]string{"/home/ci/run/base.txt", "/home/ci/run/head.txt"}, map[string]string{"/home/ci/run/base.txt": "base.txt", "/home/ci/run/head.txt": "head.txt"}},
		{[]string{"/w/z/base.txt", "/w/a/head.txt"}, map[string]string{"/w/z/base.txt": "z/base.txt", "/w/a/head.txt": "a/head.txt"}},
		{[]string{"testdata/old.txt", "testdata/new.txt"}, map[string]string{"testdata/old.txt": "old.txt", "testdata/new.txt": "new.txt"}},
		{[]string{"/only/one.txt"}, map[string]string{"/only/one.txt": "one.txt"}},
		{[]string{"base", "head"}, nil},     // labels, not paths
		{[]string{"a/x.txt", "b.txt"}, nil}, // no directory shared
		{[]string{"/r/x.txt", "/r/x.txt#1"}, map[string]string{"/r/x.txt": "x.txt", "/r/x.txt#1": "x.txt#1"}},
		{nil, nil},
	} {
		if got := fileTicks(c.labels); !reflect.DeepEqual(got, c.want) {
			t.Errorf("fileTicks(%q) = %v, want %v", c.labels, got, c.want)
		}
	}
}

// TestByFileAbsolutePaths: report --by-file on absolute paths labels each
// bar with the file's name, in input order (base first), not with two
// long paths drawn over each other.
func TestByFileAbsolutePaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ci", "artifacts", "run")
	var paths []string
	// Input order base, head; their names sort the other way round.
	for _, f := range []string{"z-base.txt", "a-head.txt"} {
		var b strings.Builder
		for i := range 6 {
			fmt.Fprintf(&b, "BenchmarkChurn/scenario=renew-1-of-1000/store=optimized-2 10 %g ns/op 1000 B/op 10 allocs/op\n", 1e6+1e3*float64(i))
		}
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	rs, err := results.Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{}
	opts.Compare.Col = results.FileKey
	rep, err := Build(rs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Scenarios) == 0 {
		t.Fatal("no scenario chart")
	}
	want := []string{"z-base.txt", "a-head.txt"}
	for _, ch := range rep.Scenarios {
		for _, p := range ch.panels() {
			var got []string
			for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
				if tk.Label != "" {
					name, n, _ := strings.Cut(tk.Label, "\n")
					got = append(got, name)
					if !strings.HasPrefix(n, "n=") {
						t.Errorf("%s %q: tick %q does not say its n", ch.ID, p.Title.Text, tk.Label)
					}
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %q: x ticks %q, want %q", ch.ID, p.Title.Text, got, want)
			}
		}
		svg, err := ch.SVG()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(svg), dir) {
			t.Errorf("%s: the chart still shows the directory %s", ch.ID, dir)
		}
	}
}

// TestPageNotesReadable: the page's notes are worded as compare's notes
// (what a warning means and what to do), never benchmath's bare
// warnings ("all samples are equal", "need >= 6 samples ...").
func TestPageNotesReadable(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, f := range []string{"base.txt", "head.txt"} {
		var b strings.Builder
		for i := range 2 { // too few for an interval or a test
			fmt.Fprintf(&b, "BenchmarkUpdate-2 100 %d ns/op 0 B/op 0 allocs/op\n", 1000+i)
		}
		p := filepath.Join(dir, f)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	rs, err := results.Load(paths...)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(rs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var page strings.Builder
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, bare := range []string{"all samples are equal", "samples for confidence interval", "samples to detect a difference"} {
		if strings.Contains(html, bare) {
			t.Errorf("page has benchmath's bare warning %q", bare)
		}
	}
	if !strings.Contains(html, "measure with --count 6 or more") {
		t.Error("page does not say how to get an interval (measure with --count 6 or more)")
	}
}

package profile_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/profile"
	"github.com/certbench/certbench/scenarios"
)

// Jobs go scenario by scenario, stores in order; CaptureJobs saves each as
// its FileName and WriteIndexFiles indexes them.
func TestJobs(t *testing.T) {
	a, b := certstore.Info{Name: "a"}, certstore.Info{Name: "b"}
	scs, err := scenarios.ByName("rotate-10-of-100", "lookup-1000")
	if err != nil {
		t.Fatal(err)
	}
	jobs := profile.Jobs([]certstore.Info{a, b}, scs)
	var names []string
	for _, j := range jobs {
		names = append(names, j.FileName())
	}
	want := []string{"rotate-10-of-100.a.pb.gz", "rotate-10-of-100.b.pb.gz", "lookup-1000.a.pb.gz", "lookup-1000.b.pb.gz"}
	if len(names) != len(want) {
		t.Fatalf("%v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("job %d: %s, want %s", i, names[i], want[i])
		}
	}
	if n := len(profile.AllJobs()); n != len(certstore.Registered())*len(scenarios.Defaults()) {
		t.Errorf("AllJobs: %d jobs", n)
	}

	dir := filepath.Join(t.TempDir(), "profiles")
	info := certstore.Info{Name: "optimized", New: factory(t, "optimized")}
	sums, err := profile.CaptureJobs(context.Background(), profile.Jobs([]certstore.Info{info}, scs[:1]), profile.CaptureOptions{Dir: dir, Ops: 2, Top: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || sums[0].File != filepath.Join(dir, "rotate-10-of-100.optimized.pb.gz") {
		t.Fatalf("summaries %+v", sums)
	}
	if err := profile.WriteIndexFiles(dir, sums); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"rotate-10-of-100.optimized.pb.gz", profile.IndexMarkdown, profile.IndexJSON} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := profile.CaptureJobs(ctx, jobs, profile.CaptureOptions{Dir: dir, Top: 1}); err == nil {
		t.Error("a cancelled context captured")
	}
}

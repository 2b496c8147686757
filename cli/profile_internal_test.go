package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/scenarios"

	_ "github.com/certbench/certbench/stores/optimized"
)

// Jobs go scenario by scenario, stores in order; captureProfiles saves
// each as its file name and WriteIndexFiles indexes them.
func TestProfileJobs(t *testing.T) {
	a, b := certstore.Info{Name: "a"}, certstore.Info{Name: "b"}
	scs, err := scenarios.ByName("rotate-10-of-100", "lookup-1000")
	if err != nil {
		t.Fatal(err)
	}
	jobs := profileJobs([]certstore.Info{a, b}, scs)
	var names []string
	for _, j := range jobs {
		names = append(names, j.fileName())
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
	all, err := (&profileOptions{All: true}).jobs()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(all); n != len(certstore.Registered())*len(scenarios.Defaults()) {
		t.Errorf("--all: %d jobs, want every registered store on every default scenario", n)
	}

	dir := filepath.Join(t.TempDir(), "profiles")
	info, err := certstore.LookupFactory("optimized")
	if err != nil {
		t.Fatal(err)
	}
	sums, err := captureProfiles(context.Background(), profileJobs([]certstore.Info{info}, scs[:1]), captureOptions{dir: dir, ops: 2, top: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 1 || sums[0].File != filepath.Join(dir, "rotate-10-of-100.optimized.pb.gz") {
		t.Fatalf("summaries %+v", sums)
	}
	if err := cost.WriteIndexFiles(dir, sums); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"rotate-10-of-100.optimized.pb.gz", cost.IndexMarkdown, cost.IndexJSON} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := captureProfiles(ctx, jobs, captureOptions{dir: dir, top: 1}); err == nil {
		t.Error("a cancelled context captured")
	}
}

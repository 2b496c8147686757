package cli_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/certbench/certbench/cli"
	"github.com/google/pprof/profile"

	_ "github.com/certbench/certbench/stores/optimized"
)

// profileRun runs certbench with args and returns its exit code, stdout
// and stderr.
func profileRun(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := cli.Main(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestProfileCommand(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := profileRun("profile", "--stores", "optimized", "--scenarios", "rotate-10-of-100", "--ops", "3", "--top", "3", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	path := filepath.Join(dir, "rotate-10-of-100.optimized.pb.gz")
	for _, want := range []string{"rotate-10-of-100 on optimized, 3 ops", path, "alloc_space per op, by flat", "alloc_objects per op, by cum", "inuse_space, by flat", "crypto/"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(p.SampleType) != 4 || p.DefaultSampleType != "alloc_space" {
		t.Errorf("sample types %v, default %q", p.SampleType, p.DefaultSampleType)
	}

	// top reads it back; diff of a profile with itself shows no change.
	code, out, errOut = profileRun("profile", "top", "--format", "json", "--top", "2", path)
	if code != 0 {
		t.Fatalf("top: exit %d, stderr %s", code, errOut)
	}
	var sums []struct {
		Ops    int `json:"ops"`
		Tables []struct {
			Funcs []json.RawMessage `json:"funcs"`
		} `json:"tables"`
	}
	if err := json.Unmarshal([]byte(out), &sums); err != nil || len(sums) != 1 || sums[0].Ops != 3 || len(sums[0].Tables[0].Funcs) != 2 {
		t.Errorf("top --format json: %v\n%s", err, out)
	}
	diffPath := filepath.Join(dir, "diff.pb.gz")
	code, out, errOut = profileRun("profile", "diff", "-o", diffPath, path, path)
	if code != 0 {
		t.Fatalf("diff: exit %d, stderr %s", code, errOut)
	}
	if !strings.Contains(out, "alloc_space per op") || !strings.Contains(out, "none") {
		t.Errorf("diff of a profile with itself:\n%s", out)
	}
	if _, err := os.Stat(diffPath); err != nil {
		t.Error(err)
	}
}

func TestProfileAll(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := profileRun("profile", "--all", "--stores", "optimized", "--scenarios", "rotate-10-of-100", "--ops", "2", "-q", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if !strings.Contains(out, "top site") || !strings.Contains(out, "encoding/pem.Decode") {
		t.Errorf("output:\n%s", out)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), "| rotate-10-of-100.optimized.pb.gz |") {
		t.Errorf("index.md:\n%s", index)
	}
	var sums []map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sums); err != nil || len(sums) != 1 {
		t.Errorf("index.json: %v\n%s", err, data)
	}
}

func TestProfileUsageErrors(t *testing.T) {
	dir := t.TempDir()
	notProfile := filepath.Join(dir, "results.txt")
	if err := os.WriteFile(notProfile, []byte("BenchmarkChurn 1 2 ns/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	heap := filepath.Join(dir, "heap.pb.gz")
	cpu := filepath.Join(dir, "cpu.pb.gz")
	for path, types := range map[string][]string{heap: {"alloc_objects/count", "alloc_space/bytes"}, cpu: {"samples/count", "cpu/nanoseconds"}} {
		p := &profile.Profile{PeriodType: &profile.ValueType{Type: "x", Unit: "y"}}
		for _, ty := range types {
			typ, unit, _ := strings.Cut(ty, "/")
			p.SampleType = append(p.SampleType, &profile.ValueType{Type: typ, Unit: unit})
		}
		var buf bytes.Buffer
		if err := p.Write(&buf); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile"}, "--stores"},
		{[]string{"profile", "--stores", "optimized"}, "--scenarios"},
		{[]string{"profile", "--stores", "nope", "--scenarios", "rotate-10-of-100"}, "nope"},
		{[]string{"profile", "--stores", "optimized", "--scenarios", "nope"}, "nope"},
		{[]string{"profile", "--stores", "optimized", "--scenarios", "rotate-10-of-100", "--top", "0"}, "--top"},
		{[]string{"profile", "--stores", "optimized", "--scenarios", "rotate-10-of-100", "--format", "csv"}, "csv"},
		{[]string{"profile", "--stores", "optimized", "--scenarios", "rotate-10-of-100", "--ops", "-1"}, "--ops"},
		{[]string{"profile", "diff", heap}, "2 arg"},
		{[]string{"profile", "diff", notProfile, heap}, notProfile},
		{[]string{"profile", "diff", heap, notProfile}, notProfile},
		{[]string{"profile", "diff", heap, filepath.Join(dir, "missing.pb.gz")}, "missing.pb.gz"},
		{[]string{"profile", "diff", heap, cpu}, cpu + " has sample types samples/count, cpu/nanoseconds"},
		{[]string{"profile", "diff", "--type", "inuse_space", heap, heap}, "inuse_space"},
		{[]string{"profile", "top", notProfile}, notProfile},
	} {
		code, _, errOut := profileRun(tc.args...)
		if code != cli.ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("certbench %s: exit %d, stderr %q; want exit %d mentioning %q", strings.Join(tc.args, " "), code, errOut, cli.ExitUsage, tc.want)
		}
	}
}

package cost_test

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/cost"
	"github.com/google/pprof/profile"
)

func readOne(t *testing.T, in string) *cost.Part {
	t.Helper()
	ps, err := cost.ReadCallgrind(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("%d parts, want 1", len(ps))
	}
	if err := ps[0].Profile.CheckValid(); err != nil {
		t.Fatal(err)
	}
	return ps[0]
}

// ownCosts returns each function's own value of sample type i, by
// function and line ("f:12").
func ownCosts(p *profile.Profile, i int) map[string]int64 {
	out := map[string]int64{}
	for _, s := range p.Sample {
		l := s.Location[0].Line[0]
		out[l.Function.Name+":"+strconv.FormatInt(l.Line, 10)] += s.Value[i]
	}
	return out
}

func TestReadCallgrindSmall(t *testing.T) {
	b, err := os.ReadFile("testdata/callgrind/small.callgrind")
	if err != nil {
		t.Fatal(err)
	}
	part := readOne(t, string(b))
	if l, ok := part.Label(); part.Number != 3 || !ok || l != "sample 1 scenario=rotate-10-of-100 store=optimized" {
		t.Errorf("part %d, label %q %v", part.Number, l, ok)
	}
	p := part.Profile
	if info := cost.InfoOf(p); info.Scenario != "rotate-10-of-100" || info.Store != "optimized" {
		t.Errorf("info %+v, want the label's scenario and store", info)
	}
	if got := []string{p.SampleType[0].Type, p.SampleType[1].Type}; !slices.Equal(got, []string{cost.Instructions, cost.EstCycles}) {
		t.Errorf("sample types %q", got)
	}
	// Ir 1020, L1 misses 6+5+3, LL misses 2+2+1 (the summary line).
	if ir, _ := cost.Total(p, cost.Instructions); ir != 1020 {
		t.Errorf("instructions %d, want 1020", ir)
	}
	if est, _ := cost.Total(p, cost.EstCycles); est != 1020+cost.L1MissCycles*14+cost.LLMissCycles*5 {
		t.Errorf("est_cycles %d, want %d", est, 1020+cost.L1MissCycles*14+cost.LLMissCycles*5)
	}
	// Own costs by line; the line in strings/builder.go (inlined code) is
	// line 0; runtime.mallocgc'2 is runtime.mallocgc.
	want := map[string]int64{
		"github.com/certbench/certbench/bench.apply:120": 10, "github.com/certbench/certbench/bench.apply:121": 5,
		"github.com/certbench/certbench/bench.apply:122":                     5,
		"github.com/certbench/certbench/stores/optimized.(*Store).Update:40": 200,
		"github.com/certbench/certbench/stores/optimized.(*Store).Update:0":  100,
		"github.com/certbench/certbench/stores/optimized.(*Store).Update:42": 100,
		"memmove:16": 300, "runtime.mallocgc:7": 200, "runtime.mallocgc:8": 100,
	}
	if got := ownCosts(p, 0); !maps.Equal(got, want) {
		t.Errorf("own costs %v, want %v", got, want)
	}
	for _, f := range p.Function {
		if f.Name == "github.com/certbench/certbench/stores/optimized.(*Store).Update" && f.Filename != "/src/stores/optimized/update.go" {
			t.Errorf("Update's file %q", f.Filename)
		}
	}
}

// With --separate-callers, a context names its callers: a sample's stack
// is the context's, each caller at the line of its costliest call of it.
func TestReadCallgrindStacks(t *testing.T) {
	const in = `events: Ir
fl=(1) store.go
fn=(1) example.com/s.Update'bench.apply
10 5
cfn=(2) crypto/x509.Parse'example.com/s.Update'bench.apply
calls=1 20
12 900
cfn=(2)
calls=1 20
13 100
cfn=(3) runtime.memmove'example.com/s.Update'bench.apply
calls=1 1
14 50
fl=(2) x509.go
fn=(2)
20 800
cfn=(4) runtime.memmove'crypto/x509.Parse'example.com/s.Update'bench.apply
calls=1 3
21 100
fl=(3) memmove.s
fn=(4)
1 100
fn=(3)
1 50
`
	p := readOne(t, in).Profile
	stacks := map[string]int64{}
	for _, s := range p.Sample {
		var frames []string
		for _, loc := range s.Location {
			frames = append(frames, loc.Line[0].Function.Name+":"+strconv.FormatInt(loc.Line[0].Line, 10))
		}
		stacks[strings.Join(frames, " ")] += s.Value[0]
	}
	want := map[string]int64{
		"example.com/s.Update:10 bench.apply:0":                                        5,
		"crypto/x509.Parse:20 example.com/s.Update:12 bench.apply:0":                   800,
		"runtime.memmove:1 crypto/x509.Parse:21 example.com/s.Update:12 bench.apply:0": 100,
		"runtime.memmove:1 example.com/s.Update:14 bench.apply:0":                      50,
	}
	if !maps.Equal(stacks, want) {
		t.Errorf("stacks %v, want %v", stacks, want)
	}
}

func TestReadCallgrindReal(t *testing.T) {
	f, err := os.Open("testdata/callgrind/real-cachesim.callgrind.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	p := readOne(t, string(b)).Profile
	// The file's totals: line.
	i := strings.Index(string(b), "\ntotals: ")
	fields := strings.Fields(string(b[i+len("\ntotals: "):]))
	ir, _ := strconv.ParseInt(fields[0], 10, 64)
	if got, _ := cost.Total(p, cost.Instructions); got != ir || ir == 0 {
		t.Errorf("instructions %d, want the totals line's %d", got, ir)
	}
	if _, ok := cost.Total(p, cost.EstCycles); !ok {
		t.Error("no est_cycles with the cache simulation's events")
	}
}

// Parts of one dump (one per thread) are merged; parts of two dumps are
// two parts.
func TestReadCallgrindParts(t *testing.T) {
	b, err := os.ReadFile("testdata/callgrind/small.callgrind")
	if err != nil {
		t.Fatal(err)
	}
	threads, err := cost.ReadCallgrind(strings.NewReader(string(b) + string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if ir, _ := cost.Total(threads[0].Profile, cost.Instructions); len(threads) != 1 || ir != 2040 {
		t.Errorf("%d parts, %d instructions; want one of 2040", len(threads), ir)
	}
	second := strings.Replace(string(b), "part: 3", "part: 4", 1)
	second = second[strings.Index(second, "part: 4"):]
	dumps, err := cost.ReadCallgrind(strings.NewReader(string(b) + "\n" + second))
	if err != nil {
		t.Fatal(err)
	}
	if len(dumps) != 2 || dumps[0].Number != 3 || dumps[1].Number != 4 {
		t.Fatalf("%d parts, want parts 3 and 4", len(dumps))
	}
	// Load reads a file of one window, and refuses two.
	dir := t.TempDir()
	one, two := filepath.Join(dir, "callgrind.out.1"), filepath.Join(dir, "two.callgrind")
	os.WriteFile(one, b, 0o644)
	os.WriteFile(two, []byte(string(b)+"\n"+second), 0o644)
	if p, err := cost.Load(one); err != nil || len(p.Sample) == 0 {
		t.Errorf("Load(callgrind file): %v", err)
	}
	if _, err := cost.Load(two); err == nil || !strings.Contains(err.Error(), "2 dumps") {
		t.Errorf("Load(two dumps): %v", err)
	}
}

func TestReadCallgrindErrors(t *testing.T) {
	const head = "events: Ir\nfn=(1) f\n"
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "line 0: no costs"},
		{"comments only", "# callgrind format\n", "no costs"},
		{"no events", "version: 1\ncmd: x\n", "no events: line"},
		{"version", "version: 2\n", `version "2"`},
		{"cost before fn", "events: Ir\n1 2\n", "before any fn="},
		{"cost before events", "fn=f\n1 2\n", "before the events: line"},
		{"no Ir", "events: Dr\nfn=f\n1 2\n", "no Ir event"},
		{"too many costs", head + "1 2 3\n", "line 3: cost line \"1 2 3\": 2 costs for 1 events"},
		{"bad cost", head + "1 x\n", `cost "x": not a count`},
		{"negative cost", head + "1 -2\n", `cost "-2"`},
		{"undefined id", "events: Ir\nfn=(7)\n", "(7) used before it is defined"},
		{"bad id", "events: Ir\nfn=(x) f\n", "bad id"},
		{"unclosed id", "events: Ir\nfn=(1 f\n", "bad id"},
		{"calls without fn", "events: Ir\ncfn=g\ncalls=1 2\n", "calls= before fn="},
		{"calls without cost", head + "cfn=g\ncalls=1 2\n", "calls= line without the cost line"},
		{"calls then fn", head + "cfn=g\ncalls=1 2\nfn=h\n", "where the cost line of a call must be"},
		{"events after costs", head + "1 2\nevents: Ir Dr\n", "events: after cost lines"},
		{"unknown body line", head + "1 2\nwhat ever\n", "unknown line"},
		{"bad position", head + "+x 2\n", `position "+x"`},
		{"bad positions line", "positions: column\n", "want line, instr or instr line"},
		{"empty name", "events: Ir\nfn=\n", "empty name"},
		{"too many events", "events: " + strings.Repeat("E ", cost.MaxEvents+1) + "\n", "want 1 to 64 event names"},
		{"long line", "events: Ir\nfn=" + strings.Repeat("x", cost.MaxLine+1) + "\n", "line 2: line longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := cost.ReadCallgrind(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			if !errors.Is(err, cost.ErrFormat) {
				t.Errorf("error %v does not wrap ErrFormat", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
	// Load names the file and line.
	name := filepath.Join(t.TempDir(), "bad.callgrind")
	os.WriteFile(name, []byte("events: Ir\nfn=f\n1 x\n"), 0o644)
	if _, err := cost.Load(name); err == nil || !strings.HasPrefix(err.Error(), name+":3: ") {
		t.Errorf("error %v, want it to start with %s:3:", err, name)
	}
}

func TestReadCallgrindSaturates(t *testing.T) {
	p := readOne(t, "events: Ir\nfn=f\n1 9223372036854775807\n1 5\n").Profile
	if got, _ := cost.Total(p, cost.Instructions); got != 1<<63-1 {
		t.Errorf("total %d, want the maximum (no wrap-around)", got)
	}
}

// FuzzReadCallgrind feeds ReadCallgrind arbitrary files: it must return
// parts or an error, never panic, and every profile it returns is valid.
func FuzzReadCallgrind(f *testing.F) {
	small, err := os.ReadFile("testdata/callgrind/small.callgrind")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(small))
	f.Add(string(small[:len(small)/2]))
	f.Add("events: Ir\nfn=(1) a'b'c\n1 2\ncfn=(2) d'a'b'c\ncalls=1 1\n* 3\nfn=(2)\n4 5\n")
	f.Add("positions: instr line\nevents: Ir Dr\nfn=f\n0x4000 12 1 2\n+3 * 4\njump=2 0x4010\n0x4004 13\n")
	f.Add("part: 1\nevents: Ir\nfn=f\n1 1\ntotals: 1\npart: 2\nfn=g\n1 2\n")
	f.Fuzz(func(t *testing.T, in string) {
		ps, err := cost.ReadCallgrind(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, p := range ps {
			if err := p.Profile.CheckValid(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// CompareWindows compares each store line's median over a side's
// windows: a line that cost more in one window of three (the heap grown
// from the system under it) is unchanged; a line that grew in every
// window grew.
func TestCompareWindows(t *testing.T) {
	window := func(parse, grow int) *profile.Profile {
		return readOne(t, fmt.Sprintf(`desc: Trigger: dump scenario=s store=x sample=1 ops=10
events: Ir
fl=(1) store.go
fn=(1) example.com/s.parse
10 %d
cfn=(2) runtime.mmap'example.com/s.parse
calls=1 1
11 %d
fn=(2)
1 %d
`, parse, grow, grow)).Profile
	}
	base := []*profile.Profile{window(1000, 0), window(1000, 50000), window(1002, 0)}
	b, err := cost.CompareWindows(base, []*profile.Profile{window(1000, 0), window(1000, 0), window(1000, 0)}, cost.Instructions)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Lines) != 0 {
		t.Errorf("lines that changed: %+v, want none (the outlier is one window's)", b.Lines)
	}
	b, err = cost.CompareWindows(base, []*profile.Profile{window(1500, 0), window(1500, 0), window(1500, 50000)}, cost.Instructions)
	if err != nil {
		t.Fatal(err)
	}
	if g := b.Grew(0); len(g) != 1 || g[0].Line != 10 || g[0].Base != 100 || g[0].Head != 150 {
		t.Errorf("grew %+v, want store.go:10 from 100 to 150 per op", g)
	}
}

package callgrind_test

import (
	"compress/gzip"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/callgrind"
)

func parseOne(t *testing.T, name string) *callgrind.Profile {
	t.Helper()
	ps, err := callgrind.ParseFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("%s: %d parts, want 1", name, len(ps))
	}
	return ps[0]
}

func TestParseSmall(t *testing.T) {
	p := parseOne(t, "testdata/small.callgrind")
	if p.Creator != "callgrind-3.19.0" || p.PID != 4242 || p.Part != 3 || p.Cmd != "./certbench run --instrument simulate" {
		t.Errorf("header: creator %q pid %d part %d cmd %q", p.Creator, p.PID, p.Part, p.Cmd)
	}
	if l, ok := p.Label(); !ok || l != "sample 1 scenario=rotate-10-of-100 store=optimized" {
		t.Errorf("Label() = %q, %v", l, ok)
	}
	wantEvents := []string{"Ir", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"}
	if !slices.Equal(p.Events, wantEvents) {
		t.Errorf("Events = %q, want %q", p.Events, wantEvents)
	}
	if ir, ok := p.Total("Ir"); !ok || ir != 1020 {
		t.Errorf("Total(Ir) = %d, %v; want 1020", ir, ok)
	}
	if _, ok := p.Total("Bc"); ok {
		t.Error("Total(Bc) found in a file without branch simulation")
	}
	if len(p.Desc) != 4 {
		t.Errorf("Desc = %q, want the 4 desc lines other than the trigger", p.Desc)
	}
	self := map[string][]uint64{
		"github.com/certbench/certbench/bench.apply":                      {20, 1, 0, 0, 0, 0, 0},
		"github.com/certbench/certbench/stores/optimized.(*Store).Update": {400, 3, 2, 1, 0, 0, 0},
		"memmove":            {300, 0, 2, 1, 1, 1, 0},
		"runtime.mallocgc'2": {300, 2, 1, 1, 1, 1, 1},
	}
	if len(p.Functions) != len(self) {
		t.Errorf("%d functions, want %d", len(p.Functions), len(self))
	}
	sum := make([]uint64, len(p.Events))
	for _, f := range p.Functions {
		want, ok := self[f.Name]
		if !ok {
			t.Errorf("unexpected function %q", f.Name)
			continue
		}
		if !slices.Equal(f.Self, want) {
			t.Errorf("%s: Self = %v, want %v", f.Name, f.Self, want)
		}
		for i, v := range f.Self {
			sum[i] += v
		}
	}
	if !slices.Equal(sum, p.Totals) {
		t.Errorf("self costs add up to %v, totals are %v", sum, p.Totals)
	}
	up := p.Func("github.com/certbench/certbench/stores/optimized.(*Store).Update")
	if up.Object != "/tmp/certbench" || up.File != "/src/stores/optimized/update.go" {
		t.Errorf("Update: object %q file %q", up.Object, up.File)
	}
	if len(up.Calls) != 2 || up.Calls[0].Callee.Name != "memmove" || up.Calls[0].Count != 10 || up.Calls[0].Callee.Object != "/usr/lib/libc.so.6" {
		t.Fatalf("Update's calls: %+v", up.Calls)
	}
	if got := up.Inclusive()[0]; got != 400+300+300 {
		t.Errorf("Update inclusive Ir = %d, want 1000", got)
	}
	apply := p.Func("github.com/certbench/certbench/bench.apply")
	if len(apply.Calls) != 1 || apply.Calls[0].Count != 2 || apply.Calls[0].Inclusive[0] != 1100 {
		t.Errorf("apply's calls: %+v", apply.Calls[0])
	}
}

func TestParseReal(t *testing.T) {
	f, err := os.Open("testdata/real-cachesim.callgrind.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := callgrind.Parse(zr)
	if err != nil {
		t.Fatal(err)
	}
	p := ps[0]
	if len(p.Events) != 9 {
		t.Errorf("events %q, want the 9 of the cache simulation", p.Events)
	}
	sum := make([]uint64, len(p.Events))
	for _, fn := range p.Functions {
		for i, v := range fn.Self {
			sum[i] += v
		}
		if strings.Contains(fn.Name, "'") {
			t.Errorf("function %q: recursion levels are not separated with --separate-recs=1", fn.Name)
		}
	}
	if !slices.Equal(sum, p.Totals) {
		t.Errorf("self costs add up to %v, totals are %v", sum, p.Totals)
	}
	if _, ok := p.Label(); !ok {
		t.Errorf("trigger %q: no client request label", p.Trigger)
	}
}

func TestParseCombined(t *testing.T) {
	b, err := os.ReadFile("testdata/small.callgrind")
	if err != nil {
		t.Fatal(err)
	}
	second := strings.Replace(string(b), "part: 3", "part: 4", 1)
	second = second[strings.Index(second, "part: 4"):]
	ps, err := callgrind.Parse(strings.NewReader(string(b) + "\n" + second))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Part != 3 || ps[1].Part != 4 {
		t.Fatalf("parts: %d", len(ps))
	}
	if ps[1].PID != 4242 || ps[1].Creator != "callgrind-3.19.0" || !slices.Equal(ps[0].Totals, ps[1].Totals) {
		t.Errorf("second part: pid %d creator %q totals %v", ps[1].PID, ps[1].Creator, ps[1].Totals)
	}
}

func TestParseMergesThreads(t *testing.T) {
	b, err := os.ReadFile("testdata/small.callgrind")
	if err != nil {
		t.Fatal(err)
	}
	one, err := callgrind.Parse(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	// Two threads' files of one dump (--separate-threads=yes), as
	// Session.Read keeps them: one part, every cost twice.
	ps, err := callgrind.Parse(strings.NewReader(string(b) + string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || len(ps[0].Functions) != 2*len(one[0].Functions) {
		t.Fatalf("%d parts, want 1 with every function twice", len(ps))
	}
	for i, v := range one[0].Totals {
		if ps[0].Totals[i] != 2*v {
			t.Errorf("totals %v, want twice %v", ps[0].Totals, one[0].Totals)
			break
		}
	}
	if l, _ := ps[0].Label(); l != "sample 1 scenario=rotate-10-of-100 store=optimized" {
		t.Errorf("label %q", l)
	}
}

func TestParseErrors(t *testing.T) {
	const head = "events: Ir\nfn=(1) f\n"
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "line 0: empty file"},
		{"comments only", "# callgrind format\n", "empty file"},
		{"no events", "version: 1\ncmd: x\n", "no events: line"},
		{"version", "version: 2\n", `version "2"`},
		{"cost before fn", "events: Ir\n1 2\n", "before any fn="},
		{"cost before events", "fn=f\n1 2\n", "before the events: line"},
		{"too many costs", head + "1 2 3\n", "line 3: cost line \"1 2 3\": 2 costs for 1 events"},
		{"bad cost", head + "1 x\n", `cost "x": not a count`},
		{"negative cost", head + "1 -2\n", `cost "-2"`},
		{"undefined id", "events: Ir\nfn=(7)\n", "(7) used before it is defined"},
		{"bad id", "events: Ir\nfn=(x) f\n", "bad id"},
		{"unclosed id", "events: Ir\nfn=(1 f\n", "no ) after the id"},
		{"calls without fn", "events: Ir\ncfn=g\ncalls=1 2\n", "calls= before fn="},
		{"calls without cost", head + "cfn=g\ncalls=1 2\n", "calls= line without the cost line"},
		{"calls then fn", head + "cfn=g\ncalls=1 2\nfn=h\n", "where the cost line of a call must be"},
		{"bad calls", head + "cfn=g\ncalls=x 2\n", "not a count"},
		{"events after costs", head + "1 2\nevents: Ir Dr\n", "events: after cost lines"},
		{"unknown body line", head + "1 2\nwhat ever\n", "unknown line"},
		{"bad position", head + "+x 2\n", `position "+x"`},
		{"bad positions line", "positions: column\n", "unknown position"},
		{"empty name", "events: Ir\nfn=\n", "empty name"},
		{"too many events", "events: " + strings.Repeat("E ", callgrind.MaxEvents+1) + "\n", "want 1 to 64 event names"},
		{"long line", "events: Ir\nfn=" + strings.Repeat("x", callgrind.MaxLine+1) + "\n", "line 2: line longer than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := callgrind.Parse(strings.NewReader(tc.in))
			if err == nil {
				t.Fatalf("no error, want one containing %q", tc.want)
			}
			if !errors.Is(err, callgrind.ErrFormat) {
				t.Errorf("error %v does not wrap ErrFormat", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestParseFileNamesFile(t *testing.T) {
	name := t.TempDir() + "/bad.out"
	if err := os.WriteFile(name, []byte("events: Ir\nfn=f\n1 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := callgrind.ParseFile(name)
	if err == nil || !strings.HasPrefix(err.Error(), name+":3: ") {
		t.Errorf("error %v, want it to start with %s:3:", err, name)
	}
}

func TestSaturatingSums(t *testing.T) {
	in := "events: Ir\nfn=f\n1 18446744073709551615\n2 5\n"
	ps, err := callgrind.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := ps[0].Functions[0].Self[0]; got != 1<<64-1 {
		t.Errorf("Self = %d, want the maximum (no wrap-around)", got)
	}
}

func TestEstCycles(t *testing.T) {
	p := parseOne(t, "testdata/small.callgrind")
	// Ir 1020, L1 misses 6+5+3, LL misses 2+2+1.
	if got, ok := p.EstCycles(); !ok || got != 1020+10*14+100*5 {
		t.Errorf("EstCycles() = %v, %v; want %d", got, ok, 1020+10*14+100*5)
	}
	ps, err := callgrind.Parse(strings.NewReader("events: Ir\nfn=f\n1 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ps[0].EstCycles(); ok {
		t.Error("EstCycles of a part without cache simulation reports true")
	}
}

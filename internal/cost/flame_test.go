package cost_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/internal/cost"
	_ "github.com/certbench/certbench/stores/naive"
	"github.com/google/pprof/profile"
)

// pprofTop returns go tool pprof -top's flat and cum of every function of
// a sample type of the profile file, totals in the profile's unit.
func pprofTop(t *testing.T, file, sampleType, unit string) map[string][2]int64 {
	t.Helper()
	args := []string{"tool", "pprof", "-top", "-nodecount=100000", "-nodefraction=0", "-sample_index=" + sampleType}
	if unit == "bytes" {
		args = append(args, "-unit=B")
	}
	out, err := exec.Command("go", append(args, file)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	num := func(s string) int64 {
		n, err := strconv.ParseInt(strings.TrimSuffix(s, "B"), 10, 64)
		if err != nil {
			t.Fatalf("pprof printed %q: %v\n%s", s, err, out)
		}
		return n
	}
	top := map[string][2]int64{}
	rows := false
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 5 && f[0] == "flat" {
			rows = true
			continue
		}
		if rows && len(f) >= 6 {
			// A function inlined at some calls is a row of its own, "f (inline)".
			name := cost.ShortName(strings.TrimSuffix(strings.Join(f[5:], " "), " (inline)"))
			v := top[name]
			top[name] = [2]int64{v[0] + num(f[0]), v[1] + num(f[3])}
		}
	}
	if len(top) == 0 {
		t.Fatalf("no rows in pprof's output:\n%s", out)
	}
	return top
}

// flameTop returns each function's flat and cum in a flame graph's tree of
// the head: flat its frames' own values, cum its frames that are not
// below another of its frames.
func flameTop(root *cost.Frame) map[string][2]int64 {
	top := map[string][2]int64{}
	var walk func(n *cost.Frame, above map[string]bool)
	walk = func(n *cost.Frame, above map[string]bool) {
		self := n.Head
		for _, c := range n.Callees {
			self -= c.Head
		}
		v := top[n.Function]
		v[0] += self
		if !above[n.Function] {
			v[1] += n.Head
		}
		top[n.Function] = v
		was := above[n.Function]
		above[n.Function] = true
		for _, c := range n.Callees {
			if c.Head != 0 {
				walk(c, above)
			}
		}
		above[n.Function] = was
	}
	for _, c := range root.Callees {
		if c.Head != 0 {
			walk(c, map[string]bool{})
		}
	}
	return top
}

// checkAgainstPprof compares every function's flat and cum in the flame
// graph of head with pprof's, to the digit, and finds the figures of the
// largest root frame in the rendered file.
func checkAgainstPprof(t *testing.T, base, head *profile.Profile, headFile, sampleType string) {
	t.Helper()
	f, err := cost.NewFlame(base, head, sampleType)
	if err != nil {
		t.Fatal(err)
	}
	unit := ""
	for _, st := range head.SampleType {
		if st.Type == sampleType {
			unit = st.Unit
		}
	}
	want, got := pprofTop(t, headFile, sampleType, unit), flameTop(f.HeadRoot)
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s %s: flame graph flat %d cum %d, pprof flat %d cum %d", sampleType, name, got[name][0], got[name][1], w[0], w[1])
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok && g != [2]int64{} {
			t.Errorf("%s %s: in the flame graph (flat %d cum %d), not in pprof's top", sampleType, name, g[0], g[1])
		}
	}
	var b bytes.Buffer
	if err := cost.WriteFlames(&b, "svg", "test", []*cost.Flame{f}); err != nil {
		t.Fatal(err)
	}
	top := f.HeadRoot.Callees[0]
	for _, c := range f.HeadRoot.Callees {
		if c.Head > top.Head {
			top = c
		}
	}
	if s := fmt.Sprintf("totals: head %d over", top.Head); !strings.Contains(b.String(), s) {
		t.Errorf("the SVG has no %q (the figures of %s)", s, top.Function)
	}
}

// shrinkPath follows the base's tree from the root along the callee that
// shrank most, and returns the first frame on it that is not the store's.
func shrinkPath(root *cost.Frame) *cost.Frame {
	n := root
	for len(n.Callees) > 0 {
		next := n.Callees[0]
		for _, c := range n.Callees {
			if c.Base-c.Head > next.Base-next.Head {
				next = c
			}
		}
		n = next
		if !n.Store {
			return n
		}
	}
	return n
}

// The flame graph of naive against optimized (rotate-10-of-100, heap
// profiles): RSA key generation is what shrank most below the stores,
// and every function's figures are pprof's.
func TestFlameHeap(t *testing.T) {
	sc := scenario(t, "rotate-10-of-100")
	dir := t.TempDir()
	var ps [2]*profile.Profile
	for i, st := range []string{"naive", "optimized"} {
		p, err := bench.HeapProfile(factory(t, st), st, sc, 3)
		if err != nil {
			t.Fatal(err)
		}
		if err := cost.Save(p, filepath.Join(dir, st+".pb.gz")); err != nil {
			t.Fatal(err)
		}
		ps[i] = p
	}
	for _, st := range []string{cost.AllocSpace, cost.AllocObjects} {
		f, err := cost.NewFlame(ps[0], ps[1], st)
		if err != nil {
			t.Fatal(err)
		}
		if n := shrinkPath(f.BaseRoot); n.Function != "crypto/rsa.GenerateKey" || 2*n.Base < f.BaseRoot.Base {
			t.Errorf("%s: the widest shrinking frame below the store is %s (%d of %d), want crypto/rsa.GenerateKey with most of it",
				st, n.Function, n.Base, f.BaseRoot.Base)
		}
		checkAgainstPprof(t, ps[0], ps[1], filepath.Join(dir, "optimized.pb.gz"), st)
		checkAgainstPprof(t, ps[1], ps[0], filepath.Join(dir, "naive.pb.gz"), st)
	}
}

// A callgrind window's flame graph agrees with pprof on the profile it
// is read into.
func TestFlameCallgrind(t *testing.T) {
	base, err := cost.Load("testdata/callgrind/real-cachesim.callgrind.gz")
	if err != nil {
		t.Fatal(err)
	}
	head := base.Copy()
	for _, s := range head.Sample[:len(head.Sample)/2] {
		s.Value[0] *= 2
	}
	file := filepath.Join(t.TempDir(), "head.pb.gz")
	if err := cost.Save(head, file); err != nil {
		t.Fatal(err)
	}
	checkAgainstPprof(t, base, head, file, cost.Instructions)
	var b bytes.Buffer
	f, _ := cost.NewFlame(base, head, cost.Instructions)
	// One self-contained page: nothing fetched from elsewhere.
	if err := cost.WriteFlames(&b, "html", "test", []*cost.Flame{f}); err != nil || !strings.HasPrefix(b.String(), "<!DOCTYPE html>") ||
		strings.Contains(b.String(), "src=") || strings.Contains(b.String(), "href=") {
		t.Errorf("HTML page: %v", err)
	}
	if err := cost.WriteFlames(os.Stdout, "png", "", nil); err == nil {
		t.Error("format png: no error")
	}
}

package callgrind_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/internal/callgrind"
)

func TestPackageOf(t *testing.T) {
	for sym, want := range map[string]string{
		"github.com/certbench/certbench/stores/optimized.(*Store).Update": "github.com/certbench/certbench/stores/optimized",
		"github.com/a/b.F'2":                  "github.com/a/b",
		"slices.SortFunc[go.shape.string]":    "slices",
		"crypto/x509.ParseCertificate":        "crypto/x509",
		"runtime.mallocgc":                    "runtime",
		"memmove":                             "",
		"example.com/mystore.(*Store).Update": "example.com/mystore",
		"main.main":                           "main",
	} {
		if got := callgrind.PackageOf(sym); got != want {
			t.Errorf("PackageOf(%q) = %q, want %q", sym, got, want)
		}
	}
	if got := callgrind.FunctionName("runtime.mallocgc'2"); got != "runtime.mallocgc" {
		t.Errorf("FunctionName = %q", got)
	}
}

// smallPair returns the small fixture as base and, as head, the same
// with Update's calls of memmove costing 5000 more instructions and its
// own code 1000 more.
func smallPair(t *testing.T) (base, head *callgrind.Profile) {
	t.Helper()
	b, err := os.ReadFile("testdata/small.callgrind")
	if err != nil {
		t.Fatal(err)
	}
	ps, err := callgrind.Parse(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	h := strings.Replace(string(b), "calls=10 0x10\n* 300 0 2 1 1 1", "calls=10 0x10\n* 5300 0 2 1 1 1", 1)
	h = strings.Replace(h, "40 200 2 1\n", "40 1200 2 1\n", 1)
	h = strings.Replace(h, "16 300 0 2 1 1 1", "16 5300 0 2 1 1 1", 1)
	hs, err := callgrind.Parse(strings.NewReader(h))
	if err != nil {
		t.Fatal(err)
	}
	return ps[0], hs[0]
}

func TestCompareChargesLibraryCodeToTheStore(t *testing.T) {
	base, head := smallPair(t)
	if got := callgrind.StorePackages(base, head); !slices.Equal(got, []string{"github.com/certbench/certbench/stores/optimized"}) {
		t.Fatalf("StorePackages = %q", got)
	}
	b, err := callgrind.Compare(base, head, 2, 2, callgrind.Instructions)
	if err != nil {
		t.Fatal(err)
	}
	grew := b.Grew(0)
	if len(grew) != 1 {
		t.Fatalf("grew: %+v, want the store's Update only", grew)
	}
	up := grew[0]
	// Per op (2 ops): own 400 -> 1400, plus memmove 300 -> 5300 and
	// mallocgc 300 below it.
	if up.Function != "github.com/certbench/certbench/stores/optimized.(*Store).Update" || up.Base != 500 || up.Head != 3500 {
		t.Errorf("Update: %+v, want 500 -> 3500 per op", up)
	}
	if len(up.Callees) != 1 || up.Callees[0].Function != "memmove" || up.Callees[0].Growth() != 2500 {
		t.Errorf("Update's callees: %+v, want memmove +2500", up.Callees)
	}
	if b.BaseTotal != 510 || b.HeadTotal != 510+3000 {
		t.Errorf("totals %v -> %v", b.BaseTotal, b.HeadTotal)
	}
}

func TestCompareWithoutStoreCode(t *testing.T) {
	in := "events: Ir\nfn=runtime.a\n1 10\nfn=b\n1 5\n"
	base, err := callgrind.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	head, err := callgrind.Parse(strings.NewReader(strings.Replace(in, "1 5", "1 25", 1)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := callgrind.Compare(base[0], head[0], 1, 1, callgrind.Instructions)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.StorePackages) != 0 || len(b.Changes) != 1 || b.Changes[0].Function != "b" || b.Changes[0].Growth() != 20 {
		t.Errorf("blame %+v", b)
	}
	if _, err := callgrind.Compare(base[0], head[0], 0, 1, callgrind.Instructions); err == nil {
		t.Error("zero ops accepted")
	}
	if _, err := callgrind.Compare(base[0], head[0], 1, 1, callgrind.EstimatedCycles); err == nil || !strings.Contains(err.Error(), "cache") {
		t.Errorf("estimated cycles without cache events: %v", err)
	}
}

func TestCompareEstimatedCycles(t *testing.T) {
	base, head := smallPair(t)
	b, err := callgrind.Compare(base, base, 1, 1, callgrind.EstimatedCycles)
	if err != nil || len(b.Changes) != 0 {
		t.Fatalf("a window against itself: %+v, %v", b, err)
	}
	est, _ := base.EstCycles()
	if b.BaseTotal != est {
		t.Errorf("total %v, want EstCycles %v", b.BaseTotal, est)
	}
	if b, err = callgrind.Compare(base, head, 1, 1, callgrind.EstimatedCycles); err != nil || len(b.Grew(1)) != 1 {
		t.Errorf("%+v, %v", b, err)
	}
}

func TestLabelValueAndOps(t *testing.T) {
	l := "scenario=rotate-10-of-100 store=optimized sample=3 ops=10"
	if v, ok := callgrind.LabelValue(l, "store"); !ok || v != "optimized" {
		t.Errorf("LabelValue(store) = %q, %v", v, ok)
	}
	if _, ok := callgrind.LabelValue(l, "round"); ok {
		t.Error("LabelValue found a missing key")
	}
	p := &callgrind.Profile{Trigger: "dump " + l}
	if p.Ops() != 10 {
		t.Errorf("Ops() = %d", p.Ops())
	}
	if (&callgrind.Profile{Trigger: "Program termination"}).Ops() != 0 {
		t.Error("Ops of a part without a label")
	}
}

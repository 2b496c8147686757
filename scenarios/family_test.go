package scenarios

import (
	"strings"
	"testing"
)

func TestFamilyNames(t *testing.T) {
	for _, tc := range []struct {
		family string
		size   int
		name   string
		ops    int
	}{
		{"renew-1", 100, "renew-1-of-100", 10},
		{"renew-1", 100000, "renew-1-of-100000", 1},
		{"noop", 10000, "noop-10000", 3},
		{"rotate-10", 1000, "rotate-10-of-1000", 10},
		{"startup", 1000, "startup-1000", 5},
		{"lookup", 100000, "lookup-100000", SweepLookups},
	} {
		f, err := FamilyByName(tc.family)
		if err != nil {
			t.Fatal(err)
		}
		sc := f.At(tc.size)
		if sc.Name != tc.name || sc.Ops != tc.ops || sc.Pool.Count != tc.size || sc.Pool.Seed != SweepSeed {
			t.Errorf("%s at %d: %s with %d ops, pool %+v; want %s with %d ops", tc.family, tc.size, sc.Name, sc.Ops, sc.Pool, tc.name, tc.ops)
		}
	}
	if _, err := FamilyByName("renew-2"); err == nil {
		t.Error("unknown family gave no error")
	}
	if sc := Families[0].At(100000); sc.Name != "renew-1-of-100000" || !strings.HasSuffix(sc.Description, " (100,000 certificates)") {
		t.Errorf("renew-1 at 100000: %q, %q; want the size without separators in the name, with them in the description", sc.Name, sc.Description)
	}
}

// TestHeldFamily checks that the held family's size is its held
// generations, on a pool of HeldPool, one refresh per held generation.
func TestHeldFamily(t *testing.T) {
	f, err := FamilyByName("held")
	if err != nil {
		t.Fatal(err)
	}
	sc := f.At(30)
	if sc.Name != "held-30" || sc.Kind != Held || sc.Held != 30 || sc.Ops != 30 || sc.Pool.Count != HeldPool {
		t.Errorf("held at 30: %+v", sc)
	}
	if f.Counts() != "held generations" || Families[0].Counts() != "certificates" {
		t.Errorf("sizes count %q (held), %q (%s)", f.Counts(), Families[0].Counts(), Families[0].Name)
	}
	if fam, size, ok := FamilyAt("held-30"); fam != "held" || size != 30 || !ok {
		t.Errorf("FamilyAt(held-30) = %s, %d, %t", fam, size, ok)
	}
	if _, _, ok := FamilyAt("held-100-renew-1-of-1000"); ok {
		t.Error("FamilyAt takes the catalogue's held-100-renew-1-of-1000 for a family scenario")
	}
	if f.At(30).Hash() == f.At(31).Hash() {
		t.Error("held generations are not part of the definition")
	}
	w, err := sc.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Configs) != 31 || w.Next == nil || len(w.Hellos) != 1 || w.Store == "" {
		t.Errorf("held-30: %d configs, next %v, %d hellos, store %q; want 31, a next, 1 and the default", len(w.Configs), w.Next != nil, len(w.Hellos), w.Store)
	}
	if _, err := f.At(MaxHeld + 1).Build(0); err == nil || !strings.Contains(err.Error(), "held generations") {
		t.Errorf("held at %d: %v, want an error naming the bound", MaxHeld+1, err)
	}
}

func TestFamilyBuilds(t *testing.T) {
	f, _ := FamilyByName("renew-1")
	w, err := f.At(30).Build(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Configs) != 3 || w.Certs != 30 {
		t.Errorf("renew-1-of-30: %d configs of %d certs", len(w.Configs), w.Certs)
	}
}

func TestChurnWorkload(t *testing.T) {
	sc, err := ByName("handshake-under-churn")
	if err != nil {
		t.Fatal(err)
	}
	w, err := sc[0].Build(500)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Configs) != ChurnSteps+1 || len(w.Hellos) != ChurnHellos || w.Scenario.Ops != 500 || w.Certs != 1000 {
		t.Fatalf("workload: %d configs, %d hellos, ops %d, certs %d", len(w.Configs), len(w.Hellos), w.Scenario.Ops, w.Certs)
	}
	// Every step of the walk changes exactly one certificate.
	prev := w.Configs[0]
	for k := 1; k <= 3*ChurnSteps; k++ {
		cur := w.Configs[ChurnStep(k, ChurnSteps)]
		changed := 0
		for i := range cur.Certificates {
			if &cur.Certificates[i].CertPEM[0] != &prev.Certificates[i].CertPEM[0] {
				changed++
			}
		}
		if changed != 1 {
			t.Fatalf("step %d changes %d certificates, want 1", k, changed)
		}
		prev = cur
	}
}

func TestChurnStep(t *testing.T) {
	var got []int
	for k := 1; k <= 9; k++ {
		got = append(got, ChurnStep(k, 3))
	}
	want := []int{1, 2, 3, 2, 1, 0, 1, 2, 3}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ChurnStep walk %v, want %v", got, want)
		}
	}
	if ChurnStep(5, 0) != 0 {
		t.Error("ChurnStep with one configuration is not 0")
	}
}

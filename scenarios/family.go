package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/results"
)

// Family is a scenario shape that can be made at any pool size (sweeps).
type Family struct {
	Name, Description string // Name as in "renew-1"; Description one line for listings
	Kind              Kind   // Kind and Window of the scenarios it makes
	Window            int
}

// SweepSeed is the pool seed of every family scenario: the pool of 1,000
// is the first 1,000 of the pool of 100,000.
const SweepSeed = 5

// Families lists the scenario families.
var Families = []Family{
	{Name: "renew-1", Kind: Renew, Description: "the whole pool re-applied on every refresh, one certificate renewed"},
	{Name: "noop", Kind: Noop, Description: "the same whole pool re-applied on every refresh"},
	{Name: "rotate-10", Kind: Rotate, Window: 10, Description: "the next 10 certificates of the pool on every refresh"},
	{Name: "startup", Kind: Startup, Description: "the whole pool loaded into a fresh store"},
	{Name: "lookup", Kind: Lookup, Description: "handshake lookups: 60% exact, 20% wildcard, 20% misses"},
	{Name: "held", Kind: Held, Description: "renew-1 of 100 certificates while connections hold the last generations (the size: held generations)"},
}

// HeldPool is the pool of the held family at every size, whose size is
// the number of held generations: small, so that a store that keeps a
// whole configuration per held generation stays within memory at 1,000.
const HeldPool = 100

// Counts names what the family's size counts: "held generations" for
// the held family, else "certificates" (the pool).
func (f Family) Counts() string {
	if f.Kind == Held {
		return "held generations"
	}
	return "certificates"
}

// SweepLookups is the number of lookups per sample of the lookup family,
// at every size: a lookup's cost should not grow with the pool.
const SweepLookups = 20000

// FamilyByName returns the named family, or an error listing the valid
// names.
func FamilyByName(name string) (Family, error) {
	i := slices.IndexFunc(Families, func(f Family) bool { return f.Name == name })
	if i < 0 {
		var names []string
		for _, f := range Families {
			names = append(names, f.Name)
		}
		return Family{}, fmt.Errorf("unknown scenario family %q (valid: %s)", name, strings.Join(names, ", "))
	}
	return Families[i], nil
}

// SweepOps is the number of timed ops per sample at a pool size: 10 up to
// 3,000 certificates, then 30,000/size (3 at 10,000), and at least 1 (1 at
// 100,000), so that a sample costs about the same at every size for a store
// that is linear in the pool.
func SweepOps(size int) int {
	if size <= 0 {
		return 10
	}
	return max(1, min(10, 30000/size))
}

// FamilyAt finds the family and size a scenario name of At's naming
// stands for ("renew-1-of-1000": renew-1 at 1000).
func FamilyAt(name string) (family string, size int, ok bool) {
	for _, f := range Families {
		for _, sep := range []string{"-of-", "-"} {
			if rest, found := strings.CutPrefix(name, f.Name+sep); found {
				if n, err := strconv.Atoi(rest); err == nil && n > 0 && f.At(n).Name == name {
					return f.Name, n, true
				}
			}
		}
	}
	return "", 0, false
}

// At returns the family's scenario at a pool of size certificates, named
// as the catalogue names its scenarios: "renew-1-of-1000", "noop-1000",
// "rotate-10-of-1000", "startup-1000", "lookup-1000" (SweepLookups
// lookups per sample); the held family's size is its held generations
// ("held-100": 100 held, on HeldPool certificates, one refresh each).
func (f Family) At(size int) Scenario {
	name := fmt.Sprintf("%s-%d", f.Name, size)
	if f.Kind == Renew || f.Kind == Rotate {
		name = fmt.Sprintf("%s-of-%d", f.Name, size)
	}
	ops := SweepOps(size)
	switch f.Kind {
	case Startup:
		ops = max(1, ops/2)
	case Lookup:
		ops = SweepLookups
	case Held:
		return Scenario{
			Name:        name,
			Description: fmt.Sprintf("%s (%s held generations)", f.Description, results.FormatInt(size)),
			Kind:        Held, Renew: 1, Held: size,
			Pool: certgen.PoolSpec{Seed: SweepSeed, Count: HeldPool},
			Ops:  size,
		}
	}
	return Scenario{
		Name:        name,
		Description: fmt.Sprintf("%s (%s certificates)", f.Description, results.FormatInt(size)),
		Kind:        f.Kind,
		Window:      f.Window,
		Pool:        certgen.PoolSpec{Seed: SweepSeed, Count: size},
		Ops:         ops,
	}
}

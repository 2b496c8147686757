package bench_test

import (
	"math"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"testing/cryptotest"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/cost"
	"github.com/certbench/certbench/scenarios"
	"github.com/google/pprof/profile"

	_ "github.com/certbench/certbench/stores/naive"
	_ "github.com/certbench/certbench/stores/optimized"
)

func factory(t *testing.T, name string) certstore.Factory {
	t.Helper()
	info, err := certstore.LookupFactory(name)
	if err != nil {
		t.Fatal(err)
	}
	return info.New
}

// capture runs bench.HeapProfile and checks that it restored
// MemProfileRate and recorded what it profiled.
func capture(t *testing.T, newStore certstore.Factory, store string, sc scenarios.Scenario, ops int) (*profile.Profile, cost.Info) {
	t.Helper()
	rate := runtime.MemProfileRate
	p, err := bench.HeapProfile(newStore, store, sc, ops)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.MemProfileRate != rate {
		t.Errorf("MemProfileRate left at %d, was %d", runtime.MemProfileRate, rate)
	}
	info := cost.InfoOf(p)
	if info.Ops != ops || info.Store != store || info.Scenario != sc.Name {
		t.Errorf("recorded info %+v, want %d ops of %s on %s", info, ops, sc.Name, store)
	}
	return p, info
}

// topCryptoSite is the rule the capture tests use to skip the store's own
// frames (Update, its helpers) at the top of the cumulative ranking: the
// first site, by cumulative bytes per op, in a standard-library crypto
// package.
func topCryptoSite(t *testing.T, p *profile.Profile) cost.Func {
	t.Helper()
	tab, err := cost.TopSites(p, cost.AllocSpace, 0, cost.ByCum, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tab.Funcs {
		if strings.HasPrefix(s.Function, "crypto/") {
			return s
		}
	}
	t.Fatalf("no crypto site in %+v", tab.Funcs)
	return cost.Func{}
}

// total returns the sum of a sample type, per op.
func total(t *testing.T, p *profile.Profile, sampleType string) float64 {
	t.Helper()
	tab, err := cost.TopSites(p, sampleType, 1, cost.ByFlat, false)
	if err != nil {
		t.Fatal(err)
	}
	return tab.Total
}

func within(got, want, tolerance float64) bool {
	return math.Abs(got-want) <= tolerance*math.Abs(want)
}

// checkStacks checks what HeapProfile guarantees of stacks: no frame of
// the profiler or of what ran the capture (testing, runtime.main) is
// left, and every sample that reached the store starts at the store. A
// harness frame (package bench) is left only as the single location of a
// sample the harness allocated itself, which it keeps so that the
// profile adds up to B/op. That happens now and then even where the
// harness's own code allocates nothing: the runtime's allocations on its
// behalf, such as the cache it builds at random on a type assertion
// (bench.closeStore's), are charged to it, the heap profile hiding
// runtime frames.
func checkStacks(t *testing.T, p *profile.Profile) {
	t.Helper()
	outside := regexp.MustCompile(`^(testing\.|runtime\.main$|runtime/pprof\.)`)
	harness := regexp.MustCompile(`^github\.com/certbench/certbench/bench\.`)
	for _, s := range p.Sample {
		for i, loc := range s.Location {
			for j, line := range loc.Line {
				name := line.Function.Name
				if outside.MatchString(name) {
					t.Fatalf("frame %s left in a sample: %s", name, stack(s))
				}
				if !harness.MatchString(name) {
					continue
				}
				if i > 0 || !harness.MatchString(loc.Line[0].Function.Name) || len(s.Location) > 1 {
					t.Fatalf("harness frame %s (location %d, line %d) in a stack that does not start at the store: %s", name, i, j, stack(s))
				}
				t.Logf("the harness's own allocation: %s %v", stack(s), s.Value)
			}
		}
	}
}

// stack returns the function names of a sample, leaf first.
func stack(s *profile.Sample) string {
	var names []string
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			names = append(names, line.Function.Name)
		}
	}
	return strings.Join(names, " < ")
}

// TestCaptureNaive checks the Traefik analysis: on the naive model of
// Traefik's refresh, RSA-2048 key generation for the default certificate
// dominates what an op allocates.
//
// What RSA key generation allocates depends on how many prime candidates
// it tries, which depends on its random numbers. Two passes with
// independent randomness can differ by more than a factor of 2 over a few
// ops, so the capture and the bench.Measure pass it is compared with both
// start from the same deterministic randomness (testing/cryptotest): they
// then do the same work, and are compared as strictly as the profile is
// compared with the runtime's counters over the same ops.
func TestCaptureNaive(t *testing.T) {
	const (
		ops  = 3
		seed = 0x5eed
	)
	sc := scenario(t, "rotate-10-of-100")
	newStore := factory(t, "naive")
	w, err := sc.Build(ops)
	if err != nil {
		t.Fatal(err)
	}
	cryptotest.SetGlobalRandom(t, seed)
	p, info := capture(t, newStore, "naive", sc, ops)
	cryptotest.SetGlobalRandom(t, seed)
	m, err := bench.Measure(newStore, "naive", w)
	if err != nil {
		t.Fatal(err)
	}
	checkStacks(t, p)

	top := topCryptoSite(t, p)
	if !regexp.MustCompile(`^crypto/(rsa|internal/fips140/rsa)\.`).MatchString(top.Function) {
		t.Errorf("top crypto site by cumulative bytes is %s (%.0f B/op), want RSA key generation", top.Function, top.Cum)
	}
	allocated := total(t, p, cost.AllocSpace)
	if share := top.Cum / (allocated / ops); share < 0.4 {
		t.Errorf("RSA key generation is %.0f%% of the bytes allocated, want most", share*100)
	}

	if !within(allocated, float64(info.MemBytes), 0.10) {
		t.Errorf("profile alloc_space %.0f B, runtime counters %d B over the same ops: more than 10%% apart", allocated, info.MemBytes)
	}
	if objects := total(t, p, cost.AllocObjects); !within(objects, float64(info.MemObjects), 0.10) {
		t.Errorf("profile alloc_objects %.0f, runtime counters %d over the same ops: more than 10%% apart", objects, info.MemObjects)
	}

	perOp := allocated / ops
	benchBytes := float64(m.BytesPerOp)
	if !within(perOp, benchBytes, 0.10) {
		t.Errorf("profile %.0f B/op, bench %.0f B/op over the same ops with the same randomness: more than 10%% apart", perOp, benchBytes)
	}
	// bench's retained-B is a HeapAlloc difference and too noisy to compare
	// run to run; check the figure is plausible: at least 10 P-256
	// certificates parsed (about 1 KB each without Leaf, more with).
	retained := total(t, p, cost.InuseSpace)
	if retained < 10<<10 {
		t.Errorf("profile inuse_space %.0f B: the store cannot hold 10 certificates in that", retained)
	}
	t.Logf("naive: profile %.0f B/op (same-pass counters %d B/op), bench %.0f B/op; rsa keygen %.0f B/op; retained %.0f B (bench %.0f B)",
		perOp, info.MemBytes/ops, benchBytes, top.Cum, retained, float64(m.RetainedBytes))
}

// TestCaptureOptimized checks that on the optimized store parsing the new
// pairs dominates (the private keys, since leaves of certgen's profile are
// read without crypto/x509), and that the profile agrees with bench's B/op.
func TestCaptureOptimized(t *testing.T) {
	const ops = 10
	sc := scenario(t, "rotate-10-of-100")
	newStore := factory(t, "optimized")
	p, _ := capture(t, newStore, "optimized", sc, ops)
	checkStacks(t, p)

	top := topCryptoSite(t, p)
	if !regexp.MustCompile(`^crypto/(tls\.X509KeyPair|x509\.([pP]arseCertificate|ParsePKCS8PrivateKey|ParsePKCS1PrivateKey|ParseECPrivateKey))$`).MatchString(top.Function) {
		t.Errorf("top crypto site by cumulative bytes is %s (%.0f B/op), want certificate or key parsing", top.Function, top.Cum)
	}

	w, err := sc.Build(ops)
	if err != nil {
		t.Fatal(err)
	}
	m, err := bench.Measure(newStore, "optimized", w)
	if err != nil {
		t.Fatal(err)
	}
	perOp := total(t, p, cost.AllocSpace) / ops
	if !within(perOp, float64(m.BytesPerOp), 0.10) {
		t.Errorf("profile %.0f B/op, bench %.0f B/op: more than 10%% apart", perOp, float64(m.BytesPerOp))
	}
	// Tiny allocations sharing a block are counted once in the profile
	// and each in allocs/op; see the package documentation.
	objects := total(t, p, cost.AllocObjects) / ops
	if !within(objects, float64(m.AllocsPerOp), 0.10) {
		t.Errorf("profile %.0f allocs/op, bench %.0f allocs/op: more than 10%% apart", objects, float64(m.AllocsPerOp))
	}
	t.Logf("optimized: profile %.0f B/op %.0f allocs/op, bench %.0f B/op %.0f allocs/op; top crypto site %s %.0f B/op",
		perOp, objects, float64(m.BytesPerOp), float64(m.AllocsPerOp), top.Function, top.Cum)
}

// bloated is the optimized store with a known extra allocation per Update.
type bloated struct {
	certstore.Store
}

// bloatSink keeps bloat's allocation from being optimized away.
var bloatSink []byte

const bloatSize = 64 << 10

// bloat allocates bloatSize bytes: the site the diff must name.
//
//go:noinline
func bloat() []byte { return make([]byte, bloatSize) }

func (b bloated) Update(cfg *certstore.Config) error {
	bloatSink = bloat()
	return b.Store.Update(cfg)
}

func (b bloated) Close() error {
	if c, ok := b.Store.(certstore.Closer); ok {
		return c.Close()
	}
	return nil
}

func TestDiffNamesTheGrownSite(t *testing.T) {
	const ops = 5
	sc := scenario(t, "rotate-10-of-100")
	newStore := factory(t, "optimized")
	base, _ := capture(t, newStore, "optimized", sc, ops)
	head, _ := capture(t, func() certstore.Store { return bloated{newStore()} }, "bloated", sc, ops)

	c, err := cost.Changes(base, head, cost.AllocSpace)
	if err != nil {
		t.Fatal(err)
	}
	grew := c.Grew(3, cost.ByFlat)
	if len(grew) == 0 || grew[0].Function != "bench_test.bloat" {
		t.Fatalf("grew: %+v, want bench_test.bloat first", grew)
	}
	if !within(grew[0].Growth(), bloatSize, 0.05) {
		t.Errorf("bloat grew by %.0f B/op, want about %d", grew[0].Growth(), bloatSize)
	}

	d, err := cost.Diff(base, head)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := cost.TopSites(d, cost.AllocSpace, 1, cost.ByFlat, true)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Funcs[0].Function != "bench_test.bloat" {
		t.Errorf("top of the diff profile: %+v, want bench_test.bloat", tab.Funcs[0])
	}
}

func TestCaptureErrors(t *testing.T) {
	sc := scenario(t, "rotate-10-of-100")
	if _, err := bench.HeapProfile(nil, "x", sc, 1); err == nil {
		t.Error("nil factory: no error")
	}
	bad := sc
	bad.Kind = "nonsense"
	if _, err := bench.HeapProfile(factory(t, "optimized"), "optimized", bad, 1); err == nil {
		t.Error("bad scenario: no error")
	}
	failing := func() certstore.Store { return rejectingStore{} }
	if _, err := bench.HeapProfile(failing, "failing", sc, 1); err == nil || !strings.Contains(err.Error(), "failing") {
		t.Errorf("failing store: err %v", err)
	}
	if rate := runtime.MemProfileRate; rate == 1 {
		t.Error("MemProfileRate left at 1 after an error")
	}
}

// rejectingStore rejects every configuration.
type rejectingStore struct{ certstore.Store }

func (rejectingStore) Update(*certstore.Config) error { return errBad }

var errBad = &certstore.CertificateError{Index: 0, Err: errString("rejected")}

type errString string

func (e errString) Error() string { return string(e) }

// TestCaptureOtherKinds profiles a fresh-store (startup), a held and a
// lookup workload on small pools: a fresh-store profile retains one store,
// as much as a refreshed one, a held one more; lookups are attributed to
// Certificate.
func TestCaptureOtherKinds(t *testing.T) {
	newStore := factory(t, "optimized")
	pool := certgen.PoolSpec{Seed: 1, Count: 100}
	startup, startupInfo := capture(t, newStore, "optimized", scenarios.Scenario{Name: "startup-100", Kind: scenarios.Startup, Pool: pool, Ops: 2}, 2)
	noop, _ := capture(t, newStore, "optimized", scenarios.Scenario{Name: "noop-100", Kind: scenarios.Noop, Pool: pool, Ops: 2}, 2)
	checkStacks(t, startup)
	checkStacks(t, noop)
	if s, n := total(t, startup, cost.InuseSpace), total(t, noop, cost.InuseSpace); !within(s, n, 0.2) {
		t.Errorf("startup retains %.0f B, a refreshed store %.0f B: want one store's worth each", s, n)
	}
	if a := total(t, startup, cost.AllocSpace); !within(a, float64(startupInfo.MemBytes), 0.10) {
		t.Errorf("startup: profile %.0f B, runtime counters %d B", a, startupInfo.MemBytes)
	}
	// A held workload's profile keeps the generations its connections
	// hold: at least the renewed entry (over 1 KiB) of each.
	const held = 20
	heldP, _ := capture(t, newStore, "optimized", scenarios.Scenario{Name: "held-20", Kind: scenarios.Held, Renew: 1, Held: held, Pool: pool, Ops: held}, held)
	if h, n := total(t, heldP, cost.InuseSpace), total(t, noop, cost.InuseSpace); h < n+held<<10 {
		t.Errorf("held: retains %.0f B, a refreshed store %.0f B: want %d held generations more", h, n, held)
	}

	lookup, _ := capture(t, newStore, "optimized", scenarios.Scenario{Name: "lookup-100", Kind: scenarios.Lookup, Pool: pool, Ops: 200}, 200)
	checkStacks(t, lookup)
	tab, err := cost.TopSites(lookup, cost.InuseSpace, 0, cost.ByCum, false)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Total <= 0 {
		t.Errorf("lookup profile: the store retains nothing (%+v)", tab)
	}
}

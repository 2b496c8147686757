package bench_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/results"
	"github.com/certbench/certbench/scenarios"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// simpleStore is a small correct store: it parses everything on every
// update and publishes a new map.
type simpleStore struct{ cur atomic.Pointer[simpleGen] }

type simpleGen map[string]*tls.Certificate

func (g simpleGen) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := g[certstore.NormalizeServerName(hello.ServerName)]; c != nil {
		return c, nil
	}
	return g[""], nil
}

func (s *simpleStore) Update(cfg *certstore.Config) error {
	g := simpleGen{}
	for i := len(cfg.Certificates) - 1; i >= 0; i-- {
		c, err := tls.X509KeyPair(cfg.Certificates[i].CertPEM, cfg.Certificates[i].KeyPEM)
		if err != nil {
			return err
		}
		for _, n := range certstore.Names(c.Leaf) {
			g[n] = &c
		}
		g[""] = &c
	}
	s.cur.Store(&g)
	return nil
}

func (s *simpleStore) Current() certstore.Generation {
	if g := s.cur.Load(); g != nil {
		return *g
	}
	return simpleGen{}
}

func (s *simpleStore) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.Current().Certificate(store, hello)
}

func newSimple() certstore.Store { return &simpleStore{} }

func scenario(t testing.TB, name string) scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc[0]
}

// TestRunWritesEveryMetric checks that what run writes reads back through
// benchfmt with every metric, the configuration lines and the names
// benchstat projects on.
func TestRunWritesEveryMetric(t *testing.T) {
	opts := bench.Options{
		Stores:    []certstore.Info{{Name: "simple", New: newSimple}, {Name: "simple2", New: newSimple}},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100"), scenario(t, "lookup-1000")},
		Count:     2,
		Ops:       3,
	}
	var buf bytes.Buffer
	w := results.NewWriter(&buf)
	var order []string
	err := bench.Run(context.Background(), opts, func(s bench.Sample) error {
		order = append(order, s.Store)
		return w.Write(s)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Interleaved: simple, simple2, simple, simple2 per scenario.
	if got := strings.Join(order, " "); got != "simple simple2 simple simple2 simple simple2 simple simple2" {
		t.Errorf("sample order %q, want stores interleaved", got)
	}

	text := buf.String()
	r := benchfmt.NewReader(&buf, "results.txt")
	n := 0
	allocs := map[string][]float64{} // benchmark -> allocs/op of its samples
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue
		}
		n++
		name := res.Name.String()
		if !strings.HasPrefix(name, "Churn/scenario=") || !strings.Contains(name, "/store=simple") {
			t.Errorf("name %q, want Churn/scenario=.../store=...", name)
		}
		for _, unit := range []string{"sec/op", "B/op", "allocs/op", results.UnitRetained, results.UnitRetainedPerCert, results.UnitGoroutines} {
			if _, ok := res.Value(unit); !ok {
				t.Errorf("%s: no %s", name, unit)
			}
		}
		if v, _ := res.Value("sec/op"); v <= 0 {
			t.Errorf("%s: sec/op %v, want > 0", name, v)
		}
		v, _ := res.Value("allocs/op")
		allocs[name] = append(allocs[name], v)
		if v <= 0 && strings.Contains(name, "rotate") {
			t.Errorf("%s: allocs/op %v, want > 0 for a store that parses", name, v)
		}
		for _, key := range []string{"goos", "goarch", "cpu", "go", "gomaxprocs"} {
			if res.GetConfig(key) == "" {
				t.Errorf("%s: no %s configuration line", name, key)
			}
		}
		if res.Iters != 3 && strings.Contains(name, "rotate") {
			t.Errorf("%s: %d iterations, want the fixed 3", name, res.Iters)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 8 {
		t.Errorf("read %d results, want 8", n)
	}
	// allocs/op is declared exact if and only if every benchmark's two
	// samples agree.
	exact := true
	for _, vs := range allocs {
		exact = exact && len(vs) == 2 && vs[0] == vs[1]
	}
	if a := r.Units().GetAssumption("allocs/op"); (a == benchmath.AssumeExact) != exact {
		t.Errorf("allocs/op assumption %v, samples %v", a, allocs)
	}
	// certbench reads it whole: its version (a comment line), every unit
	// known, the closing line there.
	set, err := results.Read(strings.NewReader(text), "results.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Warnings) != 0 {
		t.Errorf("warnings reading a run's results: %v", set.Warnings)
	}
	for _, s := range set.Series {
		if s.GetConfig(results.VersionKey) == "" {
			t.Errorf("%s: no %s", s.Name, results.VersionKey)
		}
	}
}

func TestMeasureRetained(t *testing.T) {
	w, err := scenario(t, "rotate-10-of-100").Build(2)
	if err != nil {
		t.Fatal(err)
	}
	s, err := bench.Measure(newSimple, "simple", w)
	if err != nil {
		t.Fatal(err)
	}
	// Ten parsed certificates with leaves hold at least their DER.
	if s.RetainedPerCert < 500 {
		t.Errorf("retained %.0f B/cert for a store holding parsed certificates, want >= 500", s.RetainedPerCert)
	}
	if s.Goroutines != 0 {
		t.Errorf("%d goroutines left by a store that starts none", s.Goroutines)
	}
}

type failingStore struct{ simpleStore }

func (s *failingStore) Update(cfg *certstore.Config) error {
	if s.cur.Load() != nil {
		return &certstore.CertificateError{Index: 3, Err: errTest}
	}
	return s.simpleStore.Update(cfg)
}

var errTest = &testError{}

type testError struct{}

func (*testError) Error() string { return "broken on purpose" }

func TestRunReportsStoreErrors(t *testing.T) {
	opts := bench.Options{
		Stores:    []certstore.Info{{Name: "failing", New: func() certstore.Store { return &failingStore{} }}},
		Scenarios: []scenarios.Scenario{scenario(t, "rotate-10-of-100")},
		Count:     1,
	}
	err := bench.Run(context.Background(), opts, func(bench.Sample) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "failing") || !strings.Contains(err.Error(), "certificate 3") {
		t.Fatalf("error %v, want one naming the store and the certificate", err)
	}
}

package optimized

import (
	"crypto/tls"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/certbench/certbench/certgen"

	"github.com/certbench/certbench/certstore"
)

// Pools are deterministic and shared by the benchmarks (and tests) of one
// binary; making the 10,000-certificate pool takes about a second.
var pools sync.Map // int -> func() (*certgen.Pool, error)

func pool(tb testing.TB, n int) *certgen.Pool {
	tb.Helper()
	f, _ := pools.LoadOrStore(n, sync.OnceValues(func() (*certgen.Pool, error) {
		return certgen.NewPool(certgen.PoolSpec{Seed: 1, Count: n})
	}))
	p, err := f.(func() (*certgen.Pool, error))()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// cpuMeter reports the process CPU time per op (metric cpu-ns/op) of the
// loop it brackets.
type cpuMeter struct{ start time.Duration }

func startCPU() cpuMeter { return cpuMeter{processCPU()} }

func (m cpuMeter) report(b *testing.B) {
	if m.start > 0 && b.N > 0 {
		b.ReportMetric(float64(processCPU()-m.start)/float64(b.N), "cpu-ns/op")
	}
}

func configOf(p *certgen.Pool, from, to int) *certstore.Config {
	return &certstore.Config{Certificates: p.Certificates(from, to)}
}

// BenchmarkRotate10of100: each op applies the next window of 10 of a pool
// of 100 P-256 certificates. Windows advance by 10, so consecutive windows
// do not overlap and every op parses 10 certificates (the worst case).
func BenchmarkRotate10of100(b *testing.B) {
	benchRotate(b, 10)
}

// BenchmarkRotate10of100Stride3 is BenchmarkRotate10of100 with windows
// advancing by 3: each op reuses 7 entries and parses 3.
func BenchmarkRotate10of100Stride3(b *testing.B) {
	benchRotate(b, 3)
}

func benchRotate(b *testing.B, stride int) {
	p := pool(b, 100)
	var cfgs []*certstore.Config
	for start := 0; ; start += stride {
		if start+10 > 100 {
			break
		}
		cfgs = append(cfgs, configOf(p, start, start+10))
	}
	s := New()
	if err := s.Update(cfgs[len(cfgs)-1]); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	m := startCPU()
	for i := 0; b.Loop(); i++ {
		if err := s.Update(cfgs[i%len(cfgs)]); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// BenchmarkX509KeyPair10 is the baseline for BenchmarkRotate10of100:
// parsing the 10 certificates of a window with tls.X509KeyPair alone.
func BenchmarkX509KeyPair10(b *testing.B) {
	p := pool(b, 100)
	b.ReportAllocs()
	m := startCPU()
	for i := 0; b.Loop(); i++ {
		start := (i * 10) % 100
		for _, f := range p.Certs[start : start+10] {
			if _, err := tls.X509KeyPair(f.Pair.CertPEM, f.Pair.KeyPEM); err != nil {
				b.Fatal(err)
			}
		}
	}
	m.report(b)
}

// BenchmarkNoop10000 re-applies an unchanged configuration of 10,000
// certificates.
func BenchmarkNoop10000(b *testing.B) {
	p := pool(b, 10000)
	cfg := configOf(p, 0, 10000)
	s := New()
	if err := s.Update(cfg); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	m := startCPU()
	for b.Loop() {
		if err := s.Update(cfg); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// BenchmarkRenew1of1000 applies all 1,000 certificates of a pool with one
// of them renewed, alternating with the original: every op parses one
// certificate and rebuilds the indexes.
func BenchmarkRenew1of1000(b *testing.B) {
	p := pool(b, 1000)
	orig := configOf(p, 0, 1000)
	renewed := configOf(p, 0, 1000)
	r, err := p.Renewed(500, 1)
	if err != nil {
		b.Fatal(err)
	}
	renewed.Certificates[500].KeyPair = r.Pair
	cfgs := []*certstore.Config{renewed, orig}
	s := New()
	if err := s.Update(orig); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	m := startCPU()
	for i := 0; b.Loop(); i++ {
		if err := s.Update(cfgs[i%2]); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

func benchLookup(b *testing.B, sni string) {
	p := pool(b, 1000)
	s := New()
	if err := s.Update(configOf(p, 0, 1000)); err != nil {
		b.Fatal(err)
	}
	hello := &tls.ClientHelloInfo{ServerName: sni}
	b.ReportAllocs()
	m := startCPU()
	for b.Loop() {
		if c, err := s.Certificate(certstore.DefaultStore, hello); c == nil || err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// Lookups in a store of 1,000 certificates.
func BenchmarkLookupHit(b *testing.B)      { benchLookup(b, "svc-000123.example.test") }
func BenchmarkLookupWildcard(b *testing.B) { benchLookup(b, "x.wild-000124.example.test") }
func BenchmarkLookupMiss(b *testing.B)     { benchLookup(b, "nothing.example.test") }
func BenchmarkLookupUpper(b *testing.B)    { benchLookup(b, "SVC-000123.Example.Test") }
func BenchmarkLookupIP(b *testing.B)       { benchLookup(b, "192.0.2.1") }

// BenchmarkRetained10000 measures the heap a store retains per certificate
// when it holds 10,000 P-256 certificates (metric retained-B/cert). The
// pool and the configuration are alive for both measurements, so their
// bytes cancel out: what remains is the store's own, including its index
// maps, the generated default and the interned issuer.
func BenchmarkRetained10000(b *testing.B) {
	const n = 10000
	p := pool(b, n)
	var total float64
	for b.Loop() {
		per, err := retainedPerCert(p, n)
		if err != nil {
			b.Fatal(err)
		}
		total += per
	}
	b.ReportMetric(total/float64(b.N), "retained-B/cert")
}

// retainedPerCert returns the heap a new store retains per certificate
// after an Update with the first n certificates of p.
func retainedPerCert(p *certgen.Pool, n int) (float64, error) {
	cfg := configOf(p, 0, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := New()
	if err := s.Update(cfg); err != nil {
		return 0, err
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(cfg)
	runtime.KeepAlive(p)
	if c, err := s.Certificate(certstore.DefaultStore, &tls.ClientHelloInfo{ServerName: p.Certs[n-1].Names[0]}); err != nil || c == nil {
		return 0, fmt.Errorf("store lost certificate %d: %v", n-1, err)
	}
	return (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n), nil
}

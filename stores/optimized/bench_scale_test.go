package optimized

import (
	"crypto/tls"
	"testing"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// cachedPool returns the scenario pool of n certificates (seed 3, as the
// catalogue's 10,000-certificate scenarios use), from the on-disk pool
// cache when there is one.
func cachedPool(b *testing.B, n int) *certgen.Pool {
	b.Helper()
	p, err := certgen.CachedPool(certgen.PoolSpec{Seed: 3, Count: n})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// renewConfigs returns the whole pool, then ops configurations of which
// op k renews certificate k once more, as the renew-1-of-N scenarios do.
func renewConfigs(b *testing.B, p *certgen.Pool, ops int) []*certstore.Config {
	b.Helper()
	n := len(p.Certs)
	cfgs := []*certstore.Config{{Certificates: p.Certificates(0, n)}}
	for op := range ops {
		f, err := p.Renewed(op%n, 1+op/n)
		if err != nil {
			b.Fatal(err)
		}
		prev := cfgs[len(cfgs)-1].Certificates
		cfg := &certstore.Config{Certificates: make([]certstore.Certificate, n)}
		copy(cfg.Certificates, prev)
		cfg.Certificates[op%n].KeyPair = f.Pair
		cfgs = append(cfgs, cfg)
	}
	return cfgs
}

// benchRenew measures renew-1 refreshes of a pool of n: every op applies
// the whole pool with one more certificate renewed.
func benchRenew(b *testing.B, n int) {
	p := cachedPool(b, n)
	const ops = 64
	cfgs := renewConfigs(b, p, ops)
	s := New()
	if err := s.Update(cfgs[0]); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	m := startCPU()
	for i := 0; b.Loop(); i++ {
		if i > 0 && i%ops == 0 { // out of renewals: start over
			b.StopTimer()
			s = New()
			if err := s.Update(cfgs[0]); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if err := s.Update(cfgs[1+i%ops]); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// benchNoop measures no-op refreshes of a pool of n, side by side with
// benchRenew (the hashing floor).
func benchNoop(b *testing.B, n int) {
	p := cachedPool(b, n)
	cfgs := []*certstore.Config{{Certificates: p.Certificates(0, n)}, {Certificates: p.Certificates(0, n)}}
	s := New()
	if err := s.Update(cfgs[0]); err != nil {
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

func BenchmarkRenew1of10000(b *testing.B)  { benchRenew(b, 10000) }
func BenchmarkNoop10000Pool(b *testing.B)  { benchNoop(b, 10000) }
func BenchmarkRenew1of100000(b *testing.B) { benchRenew(b, 100000) }
func BenchmarkNoop100000(b *testing.B)     { benchNoop(b, 100000) }

// BenchmarkStartup10000 loads 10,000 certificates into a fresh store.
func BenchmarkStartup10000(b *testing.B) {
	p := cachedPool(b, 10000)
	cfg := &certstore.Config{Certificates: p.Certificates(0, 10000)}
	b.ReportAllocs()
	m := startCPU()
	for b.Loop() {
		if err := New().Update(cfg); err != nil {
			b.Fatal(err)
		}
	}
	m.report(b)
}

// benchLookupN looks up one name in a store of the first n certificates
// of the cached pool.
func benchLookupN(b *testing.B, n int, sni func(p *certgen.Pool) string) {
	p := cachedPool(b, n)
	s := New()
	if err := s.Update(&certstore.Config{Certificates: p.Certificates(0, n)}); err != nil {
		b.Fatal(err)
	}
	hello := &tls.ClientHelloInfo{ServerName: sni(p)}
	b.ReportAllocs()
	for b.Loop() {
		if c, err := s.Certificate(certstore.DefaultStore, hello); c == nil || err != nil {
			b.Fatal(err)
		}
	}
}

func exactName(p *certgen.Pool) string { return p.Certs[len(p.Certs)/2].Names[0] }

func wildName(p *certgen.Pool) string {
	for _, f := range p.Certs[len(p.Certs)/2:] {
		for _, n := range f.Names {
			if len(n) > 2 && n[:2] == "*." {
				return "x." + n[2:]
			}
		}
	}
	panic("pool without a wildcard name")
}

func missName(*certgen.Pool) string { return "nothing.nowhere.test" }

// Lookups in a store of 100,000 certificates (BenchmarkLookupHit and the
// others measure 1,000).
func BenchmarkLookupHit100000(b *testing.B)      { benchLookupN(b, 100000, exactName) }
func BenchmarkLookupWildcard100000(b *testing.B) { benchLookupN(b, 100000, wildName) }
func BenchmarkLookupMiss100000(b *testing.B)     { benchLookupN(b, 100000, missName) }

package naive

import (
	"crypto/tls"
	"testing"

	"github.com/certbench/certbench/certgen"

	"github.com/certbench/certbench/certstore"
)

func benchPool(b *testing.B, n int) *certgen.Pool {
	b.Helper()
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 1, Count: n})
	if err != nil {
		b.Fatal(err)
	}
	return pool
}

// BenchmarkRotate10of100 applies windows of 10 certificates from a pool of
// 100 P-256 certificates, as Traefik PR #10302's benchmark does: one store,
// no store named, no configured default (so every refresh generates an
// RSA-2048 default certificate, as Traefik does).
func BenchmarkRotate10of100(b *testing.B) {
	pool := benchPool(b, 100)
	cfgs := make([]*certstore.Config, 90)
	for i := range cfgs {
		cfgs[i] = &certstore.Config{Certificates: pool.Certificates(i, i+10)}
	}
	s := New()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		// A fixed stride through the windows instead of random starts, so
		// that runs are comparable.
		if err := s.Update(cfgs[(i*37)%len(cfgs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkRotate10of100ConfiguredDefault is BenchmarkRotate10of100 with a
// configured default certificate: the refresh cost without RSA key
// generation.
func BenchmarkRotate10of100ConfiguredDefault(b *testing.B) {
	pool := benchPool(b, 100)
	def := pool.Certs[99].Pair
	cfgs := make([]*certstore.Config, 90)
	for i := range cfgs {
		cfgs[i] = &certstore.Config{
			Certificates: pool.Certificates(i, i+10),
			Stores:       map[string]certstore.StoreConfig{certstore.DefaultStore: {DefaultCertificate: &def}},
		}
	}
	s := New()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := s.Update(cfgs[(i*37)%len(cfgs)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkNoopRefresh1000 re-applies the same 1,000 certificates.
func BenchmarkNoopRefresh1000(b *testing.B) {
	pool := benchPool(b, 1000)
	cfg := &certstore.Config{Certificates: pool.Certificates(0, 1000)}
	s := New()
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Update(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func lookupStore(b *testing.B, n int) (*Store, *certgen.Pool) {
	b.Helper()
	pool := benchPool(b, n)
	def := pool.Certs[0].Pair
	s := New()
	err := s.Update(&certstore.Config{
		Certificates: pool.Certificates(0, n),
		Stores:       map[string]certstore.StoreConfig{certstore.DefaultStore: {DefaultCertificate: &def}},
	})
	if err != nil {
		b.Fatal(err)
	}
	return s, pool
}

// BenchmarkLookupHit looks up a name of one of 1,000 certificates, answered
// from the store's cache after the first lookup.
func BenchmarkLookupHit(b *testing.B) {
	s, pool := lookupStore(b, 1000)
	hello := &tls.ClientHelloInfo{ServerName: pool.Certs[500].Names[0]}
	if _, err := s.Certificate(certstore.DefaultStore, hello); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Certificate(certstore.DefaultStore, hello); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookupMiss looks up a name no certificate of 1,000 has: misses
// are not cached, so every lookup sorts every key and compares every name.
// The cost per name grows with the number of labels in the SNI (Traefik's
// matchDomain joins one wildcard candidate per label), so the miss is
// measured with a three-label and a one-label SNI.
func BenchmarkLookupMiss(b *testing.B) {
	s, _ := lookupStore(b, 1000)
	for _, sni := range []string{"nomatch.example.test", "nomatch"} {
		b.Run("sni="+sni, func(b *testing.B) {
			hello := &tls.ClientHelloInfo{ServerName: sni}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Certificate(certstore.DefaultStore, hello); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

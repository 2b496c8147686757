package certgen

import (
	"bytes"
	"os"
	"slices"
	"testing"
)

func TestPoolCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	spec := PoolSpec{Seed: 11, Count: 40, MaxSANs: 3}
	want, err := NewPool(spec)
	if err != nil {
		t.Fatal(err)
	}
	p, fromCache, err := LoadPool(spec, dir)
	if err != nil {
		t.Fatal(err)
	}
	if fromCache {
		t.Fatal("first load came from an empty cache")
	}
	if _, err := os.Stat(PoolCachePath(dir, spec)); err != nil {
		t.Fatalf("no cache file written: %v", err)
	}
	p, fromCache, err = LoadPool(spec, dir)
	if err != nil {
		t.Fatal(err)
	}
	if !fromCache {
		t.Fatal("second load did not come from the cache")
	}
	samePool(t, p, want)
	if p.Issuer() == nil || !bytes.Equal(p.Issuer().Certificate().Raw, want.Issuer().Certificate().Raw) {
		t.Error("cached pool has a different issuer")
	}
	// Renewals work on a cached pool as on a generated one.
	r1, err := p.Renewed(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := want.Renewed(3, 1)
	if !bytes.Equal(r1.Pair.CertPEM, r2.Pair.CertPEM) {
		t.Error("renewal from a cached pool differs")
	}
	// A different spec does not use this file.
	other := PoolSpec{Seed: 12, Count: 40, MaxSANs: 3}
	if PoolCachePath(dir, other) == PoolCachePath(dir, spec) {
		t.Fatal("two specs share a cache file")
	}
}

func TestPoolCacheCorruptRegenerates(t *testing.T) {
	dir := t.TempDir()
	spec := PoolSpec{Seed: 13, Count: 25}
	want, err := NewPool(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadPool(spec, dir); err != nil {
		t.Fatal(err)
	}
	path := PoolCachePath(dir, spec)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	corruptions := map[string][]byte{
		"flipped byte": func() []byte { b := bytes.Clone(good); b[len(b)/2] ^= 0x40; return b }(),
		"truncated":    good[:len(good)/3],
		"empty":        {},
		"not a pool":   []byte("hello, world\n"),
	}
	for name, data := range corruptions {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p, fromCache, err := LoadPool(spec, dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fromCache {
			t.Errorf("%s: corrupted cache file was used", name)
		}
		samePool(t, p, want)
		if b, _ := os.ReadFile(path); !bytes.Equal(b, good) {
			t.Errorf("%s: cache file not rewritten", name)
		}
	}

	// A well-formed file for the same spec whose contents the generator
	// does not make (a stale cache) is detected by the spot checks.
	stale, _ := NewPool(PoolSpec{Seed: 14, Count: 25})
	stale.Spec = want.Spec
	data, err := encodePool(stale)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodePool(want.Spec, data); err == nil {
		t.Error("a cache file with other certificates passed the checks")
	}
}

func TestPoolCacheUnwritableDir(t *testing.T) {
	file := t.TempDir() + "/file"
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A "directory" that is a file: the cache cannot be written, the pool
	// is generated anyway.
	p, fromCache, err := LoadPool(PoolSpec{Seed: 1, Count: 3}, file)
	if err != nil || fromCache || len(p.Certs) != 3 {
		t.Fatalf("LoadPool with an unusable cache: %v, fromCache %v", err, fromCache)
	}
}

func TestPoolCacheDirSetting(t *testing.T) {
	t.Setenv(PoolCacheEnv, "off")
	if d := PoolCacheDir(); d != "" {
		t.Errorf("CERTBENCH_CACHE=off gave dir %q", d)
	}
	t.Setenv(PoolCacheEnv, "/some/where")
	if d := PoolCacheDir(); d != "/some/where" {
		t.Errorf("CERTBENCH_CACHE=/some/where gave dir %q", d)
	}
}

func samePool(t *testing.T, got, want *Pool) {
	t.Helper()
	if len(got.Certs) != len(want.Certs) || got.Spec != want.Spec {
		t.Fatalf("pool %v of %d, want %v of %d", got.Spec, len(got.Certs), want.Spec, len(want.Certs))
	}
	for i := range want.Certs {
		g, w := got.Certs[i], want.Certs[i]
		if g.Index != w.Index || !bytes.Equal(g.Pair.CertPEM, w.Pair.CertPEM) || !bytes.Equal(g.Pair.KeyPEM, w.Pair.KeyPEM) || !slices.Equal(g.Names, w.Names) {
			t.Fatalf("certificate %d differs", i)
		}
	}
}

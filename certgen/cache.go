package certgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/certbench/certbench/certstore"
)

// The on-disk pool cache: pools of DiskCacheMin certificates or more (a key
// and a signature each) are kept in PoolCacheDir, one file per PoolSpec
// (<sha256(spec)[:16]>.pool): poolMagic, a gob-encoded cacheFile and a
// SHA-256 of both. Any problem with a file falls back to generating the
// pool; loading also regenerates four certificates and compares them, so
// that a file of a generator that has since changed is never used.

// PoolCacheEnv sets the on-disk pool cache directory; "off" or "none"
// disables the cache.
const PoolCacheEnv = "CERTBENCH_CACHE"

// DiskCacheMin is the smallest pool CachedPool keeps on disk.
const DiskCacheMin = 5000

// PoolCacheDir returns the directory CachedPool keeps large pools in:
// $CERTBENCH_CACHE, else os.UserCacheDir()/certbench/pools; "" when the
// cache is off or no directory can be found.
func PoolCacheDir() string {
	switch env := os.Getenv(PoolCacheEnv); env {
	case "off", "none":
		return ""
	case "":
	default:
		return env
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "certbench", "pools")
}

// PoolCachePath returns the file that holds spec's pool in dir.
func PoolCachePath(dir string, spec PoolSpec) string {
	sum := sha256.Sum256([]byte(spec.withDefaults().String()))
	return filepath.Join(dir, hex.EncodeToString(sum[:8])+".pool")
}

// loadPool makes CachedPool's pools: large ones from the on-disk cache
// when there is one, else generated.
func loadPool(spec PoolSpec) (*Pool, error) {
	spec = spec.withDefaults()
	dir := PoolCacheDir()
	if dir == "" || spec.Count < DiskCacheMin {
		return NewPool(spec)
	}
	p, _, err := LoadPool(spec, dir)
	return p, err
}

// LoadPool returns the pool for spec from its cache file in dir, or
// generates it and writes the file (write errors ignored: the cache is an
// optimization); fromCache says which. It fails only if generating does.
func LoadPool(spec PoolSpec, dir string) (p *Pool, fromCache bool, err error) {
	spec = spec.withDefaults()
	if err := spec.validate(); err != nil {
		return nil, false, err
	}
	path := PoolCachePath(dir, spec)
	if data, err := os.ReadFile(path); err == nil {
		if p, err := decodePool(spec, data); err == nil {
			return p, true, nil
		}
	}
	p, err = NewPool(spec)
	if err != nil {
		return nil, false, err
	}
	_ = writePoolFile(path, p) // best effort
	return p, false, nil
}

// poolMagic begins a cache file; a new format gets a new one.
const poolMagic = "certbench-pool-2\n"

// cacheFile is a cache file's contents: the spec (PoolSpec.String) and per
// certificate its names, leaf DER and PKCS#8 key DER.
type cacheFile struct {
	Spec  string
	Certs []cachedCert
}

type cachedCert struct {
	Names     []string
	Leaf, Key []byte
}

// encodePool serializes p in the cache file format.
func encodePool(p *Pool) ([]byte, error) {
	f := cacheFile{Spec: p.Spec.String(), Certs: make([]cachedCert, len(p.Certs))}
	for i := range p.Certs {
		c := &p.Certs[i]
		if c.Version != 0 || c.Index != i {
			return nil, fmt.Errorf("certgen: certificate %d is not an original pool certificate", i)
		}
		leaf, _ := pem.Decode(c.Pair.CertPEM)
		key, _ := pem.Decode(c.Pair.KeyPEM)
		if leaf == nil || key == nil {
			return nil, fmt.Errorf("certgen: certificate %d: PEM does not decode", i)
		}
		f.Certs[i] = cachedCert{Names: c.Names, Leaf: leaf.Bytes, Key: key.Bytes}
	}
	b := bytes.NewBufferString(poolMagic)
	if err := gob.NewEncoder(b).Encode(&f); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b.Bytes())
	return append(b.Bytes(), sum[:]...), nil
}

// writePoolFile writes p's cache file atomically (temporary file, then
// rename), so that concurrent writers and readers never see half a file.
func writePoolFile(path string, p *Pool) error {
	data, err := encodePool(p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pool-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err = errors.Join(err, tmp.Close()); err == nil {
		_ = os.Chmod(tmp.Name(), 0o644) // CreateTemp makes it private
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

var errBadCache = errors.New("certgen: pool cache file is corrupt or stale")

// decodePool parses a cache file made for spec and checks it against the
// generator.
func decodePool(spec PoolSpec, data []byte) (*Pool, error) {
	if len(data) < len(poolMagic)+sha256.Size || !bytes.HasPrefix(data, []byte(poolMagic)) {
		return nil, errBadCache
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, errBadCache
	}
	var f cacheFile
	if err := gob.NewDecoder(bytes.NewReader(body[len(poolMagic):])).Decode(&f); err != nil || f.Spec != spec.String() || len(f.Certs) != spec.Count {
		return nil, errBadCache
	}
	p := &Pool{Spec: spec, Certs: make([]Fixture, spec.Count), issuer: NewIssuer(spec.Seed)}
	for i, c := range f.Certs {
		certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Leaf})
		p.Certs[i] = Fixture{Index: i, Names: c.Names, Pair: certstore.KeyPair{
			CertPEM: append(certPEM, p.issuer.certPEM...),
			KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: c.Key}),
		}}
	}
	// Spot checks against the generator as it is now.
	n := len(p.Certs)
	for _, i := range []int{0, n - 1, n / 3, 2 * n / 3} {
		if i < 0 || i >= n {
			continue
		}
		want, err := p.fixture(i, 0)
		if err != nil {
			return nil, err
		}
		got := p.Certs[i]
		if !bytes.Equal(got.Pair.CertPEM, want.Pair.CertPEM) || !bytes.Equal(got.Pair.KeyPEM, want.Pair.KeyPEM) || !slices.Equal(got.Names, want.Names) {
			return nil, errBadCache
		}
	}
	return p, nil
}

var poolCache sync.Map // PoolSpec -> func() (*Pool, error)

// CachedPool returns the pool for spec, made once per process (large ones
// from the on-disk cache, see PoolCacheDir).
func CachedPool(spec PoolSpec) (*Pool, error) {
	spec = spec.withDefaults()
	f, _ := poolCache.LoadOrStore(spec, sync.OnceValues(func() (*Pool, error) { return loadPool(spec) }))
	return f.(func() (*Pool, error))()
}

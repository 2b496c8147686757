package certgen

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
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
// (<sha256(spec)[:16]>.pool). Any problem with a file falls back to
// generating the pool. A file holds a magic, a version byte, the spec,
// the count, per certificate its names, leaf DER and PKCS#8 key DER
// (uvarint-prefixed), and a SHA-256 of it all; loading also regenerates
// four certificates and compares them, so that a file of a generator that
// has since changed is never used.

// PoolCacheEnv sets the on-disk pool cache directory; "off" or "none"
// disables the cache.
const PoolCacheEnv = "CERTBENCH_CACHE"

// DiskCacheMin is the smallest pool CachedPool keeps on disk.
const DiskCacheMin = 5000

var (
	cacheDirMu  sync.Mutex
	cacheDirSet bool
	cacheDir    string
)

// PoolCacheDir returns the directory CachedPool keeps large pools in:
// $CERTBENCH_CACHE, else os.UserCacheDir()/certbench/pools; "" when the
// cache is off or no directory can be found.
func PoolCacheDir() string {
	cacheDirMu.Lock()
	defer cacheDirMu.Unlock()
	if cacheDirSet {
		return cacheDir
	}
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

const (
	poolMagic   = "certbench-pool\n"
	poolVersion = 1
)

// encodePool serializes p in the cache file format.
func encodePool(p *Pool) ([]byte, error) {
	var b []byte
	b = append(b, poolMagic...)
	b = append(b, poolVersion)
	b = appendBytes(b, []byte(p.Spec.String()))
	b = binary.AppendUvarint(b, uint64(len(p.Certs)))
	for i := range p.Certs {
		f := &p.Certs[i]
		if f.Version != 0 || f.Index != i {
			return nil, fmt.Errorf("certgen: certificate %d is not an original pool certificate", i)
		}
		leaf, _ := pem.Decode(f.Pair.CertPEM)
		key, _ := pem.Decode(f.Pair.KeyPEM)
		if leaf == nil || key == nil {
			return nil, fmt.Errorf("certgen: certificate %d: PEM does not decode", i)
		}
		b = binary.AppendUvarint(b, uint64(len(f.Names)))
		for _, n := range f.Names {
			b = appendBytes(b, []byte(n))
		}
		b = appendBytes(b, leaf.Bytes)
		b = appendBytes(b, key.Bytes)
	}
	sum := sha256.Sum256(b)
	return append(b, sum[:]...), nil
}

func appendBytes(b, v []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
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
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	_ = os.Chmod(tmp.Name(), 0o644) // CreateTemp makes it private
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

var errBadCache = errors.New("certgen: pool cache file is corrupt or stale")

// decodePool parses a cache file made for spec and checks it against the
// generator.
func decodePool(spec PoolSpec, data []byte) (*Pool, error) {
	if len(data) < len(poolMagic)+1+sha256.Size || !bytes.HasPrefix(data, []byte(poolMagic)) {
		return nil, errBadCache
	}
	body, sum := data[:len(data)-sha256.Size], data[len(data)-sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return nil, errBadCache
	}
	r := &byteReader{b: body[len(poolMagic):]}
	if v := r.byte(); v != poolVersion {
		return nil, errBadCache
	}
	if string(r.bytes()) != spec.String() {
		return nil, errBadCache
	}
	if n := r.uvarint(); r.err != nil || n != uint64(spec.Count) {
		return nil, errBadCache
	}
	p := &Pool{Spec: spec, Certs: make([]Fixture, spec.Count), issuer: NewIssuer(spec.Seed)}
	issuerPEM := p.issuer.certPEM
	for i := range p.Certs {
		nn := r.uvarint()
		if r.err != nil || nn > 1000 {
			return nil, errBadCache
		}
		names := make([]string, nn)
		for k := range names {
			names[k] = string(r.bytes())
		}
		leaf, key := r.bytes(), r.bytes()
		if r.err != nil {
			return nil, errBadCache
		}
		certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leaf})
		certPEM = append(certPEM, issuerPEM...)
		p.Certs[i] = Fixture{Index: i, Names: names, Pair: certstore.KeyPair{
			CertPEM: certPEM,
			KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}),
		}}
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, errBadCache
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

// byteReader reads the cache format; the first error sticks.
type byteReader struct {
	b   []byte
	err error
}

func (r *byteReader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = errBadCache
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *byteReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errBadCache
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *byteReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errBadCache
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

var poolCache sync.Map // PoolSpec -> func() (*Pool, error)

// CachedPool returns the pool for spec, made once per process (large ones
// from the on-disk cache, see PoolCacheDir).
func CachedPool(spec PoolSpec) (*Pool, error) {
	spec = spec.withDefaults()
	f, _ := poolCache.LoadOrStore(spec, sync.OnceValues(func() (*Pool, error) { return loadPool(spec) }))
	return f.(func() (*Pool, error))()
}

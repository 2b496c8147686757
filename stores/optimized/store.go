package optimized

import (
	"crypto/tls"
	"errors"
	"hash/maphash"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/certstore"
)

func init() {
	certstore.Register("optimized",
		"parse once, share unchanged entries, atomic whole-config publish, allocation-free lookups",
		func() certstore.Store { return New() })
}

// Store is a certstore.Store that parses each distinct key pair once,
// shares unchanged entries between generations and publishes every
// configuration as one immutable generation. Its zero value is not usable;
// make one with New.
//
// Certificates returned by lookups are shared by every generation that
// holds the same key pair: callers must treat them as read-only, as
// crypto/tls does.
type Store struct {
	// mu serializes Update and guards the fields below cur.
	mu sync.Mutex
	// cur is the published generation; lookups load it without locking.
	cur atomic.Pointer[generation]

	seeds [4]maphash.Seed
	// chains interns intermediate chains by the content of their PEM
	// text, ders interns their DER certificates by content. Both hold
	// only what the current generation's entries use.
	chains map[pairKey]*chain
	ders   map[pairKey]*der
	// generated is the default certificate served by stores that have
	// no configured one; made on first need and kept for the store's
	// lifetime (renewed only when it nears expiry).
	generated *entry
	genExpiry time.Time
	// keyScratch holds the content keys of large configurations while
	// they are hashed in parallel (see contentKeys); reused across
	// updates so an unchanged refresh allocates nothing.
	keyScratch []pairKey
}

// New returns an empty store. Its lookups return certstore.ErrNoCertificate
// until the first successful Update.
func New() *Store {
	s := &Store{
		chains: make(map[pairKey]*chain),
		ders:   make(map[pairKey]*der),
	}
	for i := range s.seeds {
		s.seeds[i] = maphash.MakeSeed()
	}
	s.cur.Store(&generation{})
	return s
}

// Current returns the published generation. It never changes, whatever
// updates happen after Current returns.
func (s *Store) Current() certstore.Generation { return s.cur.Load() }

// Certificate looks hello up in the named store of the current generation,
// following the certstore lookup rules. It takes no lock, and allocates
// nothing for host names and IP addresses, lowercase or not.
func (s *Store) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.cur.Load().Certificate(store, hello)
}

// errNilConfig is returned by Update(nil).
var errNilConfig = errors.New("optimized: nil configuration")

// parallelMin is the number of new key pairs from which Update parses them
// on GOMAXPROCS goroutines (which all finish before Update returns); below
// it the cost of starting goroutines is not worth it and Update parses on
// the caller's goroutine. perWorker is the least work a worker is given.
const (
	parallelMin = 32
	perWorker   = 8
)

// job is one new key pair to parse.
type job struct {
	pair  *certstore.KeyPair
	key   pairKey
	index int    // position in Config.Certificates, or -1 for a default
	store string // store of a default certificate
	res   parsed
	err   error
}

// Update validates cfg and publishes it as the new generation. On error
// the published generation is left as it was and the error is a
// *certstore.CertificateError (except for a nil cfg). Store names are
// checked first, before anything is parsed (certstore.CheckStores: the
// lowest index naming an unknown or empty store); then the certificate with
// the lowest index that fails to parse is reported, then configured
// defaults in store name order.
func (s *Store) Update(cfg *certstore.Config) error {
	if cfg == nil {
		return errNilConfig
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := certstore.CheckStores(cfg); err != nil {
		return err
	}
	old := s.cur.Load()
	certs := cfg.Certificates
	now := time.Now()

	// Content keys. While they match the published generation's, in
	// order, they are not even stored: an unchanged refresh allocates
	// nothing.
	var keys []pairKey
	sameLen := old.configured && len(old.keys) == len(certs)
	if len(certs) >= parallelHashMin {
		all := s.contentKeys(certs)
		if !sameLen || !slices.Equal(all, old.keys) {
			keys = slices.Clone(all)
		}
	} else {
		for i := range certs {
			k := s.keyOf(&certs[i].KeyPair)
			if keys == nil {
				if sameLen && k == old.keys[i] {
					continue
				}
				keys = make([]pairKey, len(certs))
				copy(keys, old.keys[:i]) // i is 0 unless sameLen
			}
			keys[i] = k
		}
	}
	same := sameLen && keys == nil
	if same {
		keys = old.keys // immutable, shared with the new generation if one is built
	}
	defStores := configuredDefaults(cfg)
	if same && old.sameStores(s, cfg, defStores, now, s.genExpiry) {
		// Nothing changed: the published generation already is this
		// configuration, byte for byte.
		return nil
	}

	// Reuse what the current generation holds; queue the rest, once per
	// distinct pair.
	entries := make(map[pairKey]*entry, len(certs)+len(defStores))
	order := make([]*entry, len(certs)) // reused entries now, new ones after parsing
	var jobs []job
	for i, k := range keys {
		if e := old.entries[k]; e != nil {
			order[i] = e
			entries[k] = e
			continue
		}
		if _, queued := entries[k]; queued {
			continue
		}
		entries[k] = nil
		jobs = append(jobs, job{pair: &certs[i].KeyPair, key: k, index: i})
	}
	defKeys := make([]pairKey, len(defStores))
	for j, name := range defStores {
		pair := cfg.Stores[name].DefaultCertificate
		k := s.keyOf(pair)
		defKeys[j] = k
		if _, have := entries[k]; have {
			continue
		}
		if e := old.entries[k]; e != nil {
			entries[k] = e
			continue
		}
		entries[k] = nil
		jobs = append(jobs, job{pair: pair, key: k, index: -1, store: name})
	}

	if j := s.parseJobs(jobs); j >= 0 {
		jb := &jobs[j]
		return &certstore.CertificateError{Index: jb.index, Store: jb.store, Name: jb.res.name, Err: jb.err}
	}

	// The generated default, made once and shared by every store without
	// a configured one.
	var generated *entry
	if len(defStores) < len(cfg.StoreNames()) {
		if s.generated == nil || !now.Before(s.genExpiry) {
			e, expiry, err := generateDefault(now)
			if err != nil && s.generated == nil {
				return err
			}
			if err == nil {
				s.generated, s.genExpiry = e, expiry
			}
		}
		generated = s.generated
	}

	// Commit: from here on nothing fails.
	for j := range jobs {
		s.acquireChain(&jobs[j].res)
		entries[jobs[j].key] = jobs[j].res.e
	}
	for i, e := range order {
		if e == nil {
			order[i] = entries[keys[i]]
		}
	}
	if old.configured && len(entries)-len(jobs) < len(old.entries) {
		for k, e := range old.entries {
			if entries[k] != e {
				s.releaseChain(e)
			}
		}
	}
	var defaults map[string]*entry
	if len(defStores) > 0 {
		defaults = make(map[string]*entry, len(defStores))
		for j, name := range defStores {
			defaults[name] = entries[defKeys[j]]
		}
	}
	s.cur.Store(build(cfg, entries, keys, order, defaults, generated))
	return nil
}

// configuredDefaults returns the names of the stores cfg gives a default
// certificate, sorted.
func configuredDefaults(cfg *certstore.Config) []string {
	var names []string
	for name, sc := range cfg.Stores {
		if sc.DefaultCertificate != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// parseJobs parses every job and returns the index of the first one that
// failed, or -1. With enough jobs it spreads them over GOMAXPROCS
// goroutines and waits for all of them.
func (s *Store) parseJobs(jobs []job) int {
	workers := min(runtime.GOMAXPROCS(0), len(jobs)/perWorker)
	if len(jobs) < parallelMin || workers < 2 {
		for j := range jobs {
			if jobs[j].res, jobs[j].err = s.parse(jobs[j].pair); jobs[j].err != nil {
				return j
			}
		}
		return -1
	}
	var (
		next     atomic.Int64
		firstBad atomic.Int64
		wg       sync.WaitGroup
	)
	firstBad.Store(int64(len(jobs)))
	for range workers {
		wg.Go(func() {
			for {
				j := next.Add(1) - 1
				// Jobs are claimed in increasing order: once one
				// failed, no later job can change the answer.
				if j >= int64(len(jobs)) || j > firstBad.Load() {
					return
				}
				jb := &jobs[j]
				if jb.res, jb.err = s.parse(jb.pair); jb.err != nil {
					for {
						cur := firstBad.Load()
						if j >= cur || firstBad.CompareAndSwap(cur, j) {
							break
						}
					}
				}
			}
		})
	}
	wg.Wait()
	if j := firstBad.Load(); j < int64(len(jobs)) {
		return int(j)
	}
	return -1
}

// parallelHashMin is the configuration size from which content keys are
// computed on every core: hashing reads every PEM byte twice, about 60 ms
// on one core for 100,000 certificates, and below this size a goroutine
// costs more than it saves.
var parallelHashMin = 16384

// contentKeys returns the content keys of every certificate, computed on
// GOMAXPROCS goroutines that finish before it returns, in s.keyScratch
// (valid until the next call; the caller holds s.mu).
func (s *Store) contentKeys(certs []certstore.Certificate) []pairKey {
	if cap(s.keyScratch) < len(certs) {
		s.keyScratch = make([]pairKey, len(certs))
	}
	out := s.keyScratch[:len(certs)]
	workers := max(1, min(runtime.GOMAXPROCS(0), 8))
	chunk := (len(certs) + workers - 1) / workers
	hash := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = s.keyOf(&certs[i].KeyPair)
		}
	}
	var wg sync.WaitGroup
	for lo := chunk; lo < len(certs); lo += chunk {
		wg.Go(func() { hash(lo, min(lo+chunk, len(certs))) })
	}
	hash(0, min(chunk, len(certs)))
	wg.Wait()
	return out
}

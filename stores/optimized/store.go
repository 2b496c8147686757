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

// Store is the optimized certstore.Store (see the package doc); make one
// with New. Certificates it returns are shared between generations:
// callers must treat them as read-only, as crypto/tls does.
type Store struct {
	// mu serializes Update and guards the fields below cur.
	mu sync.Mutex
	// cur is the published generation; lookups load it without locking.
	cur atomic.Pointer[generation]

	seeds [4]maphash.Seed
	// chains and ders intern intermediate chains (by PEM text) and their
	// DER (by content), holding only what the current generation uses.
	chains map[pairKey]*chain
	ders   map[pairKey]*der
	// generated is the default of stores without one; renewed near expiry.
	generated *entry
	genExpiry time.Time
	// keyScratch holds a large configuration's content keys (contentKeys).
	keyScratch []pairKey

	// The published configuration, for the next Update to find what
	// changed; changed in place under mu once a configuration has parsed.
	configured  bool
	keys        []pairKey          // content keys of Config.Certificates, in order
	order       []*entry           // their entries
	setOf       []uint32           // per certificate: 0 for no Stores, else 1 + index in sets; nil while all are 0
	sets        [][]string         // interned non-empty Certificate.Stores lists
	setNames    [][]string         // per set id (0 too): the distinct stores it resolves to
	setIDs      map[string]uint32  // encoded list -> set id
	entries     map[pairKey]*entry // every entry in use, certificates and configured defaults
	defaults    map[string]*entry  // configured default certificates by store
	defaultKeys map[string]pairKey // and their content keys
	declared    map[string]bool    // the stores of the configuration
	usesGen     bool               // a store serves the generated default
}

// New returns an empty store; lookups fail with certstore.ErrNoCertificate
// until the first successful Update.
func New() *Store {
	s := &Store{
		chains:   make(map[pairKey]*chain),
		ders:     make(map[pairKey]*der),
		entries:  make(map[pairKey]*entry),
		setNames: [][]string{{certstore.DefaultStore}},
		setIDs:   make(map[string]uint32),
	}
	for i := range s.seeds {
		s.seeds[i] = maphash.MakeSeed()
	}
	s.cur.Store(&generation{})
	return s
}

// Current returns the published generation, which never changes.
func (s *Store) Current() certstore.Generation { return s.cur.Load() }

// Certificate looks hello up in the named store of the current generation.
func (s *Store) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.cur.Load().Certificate(store, hello)
}

// errNilConfig is returned by Update(nil).
var errNilConfig = errors.New("optimized: nil configuration")

// parallelMin is the number of new key pairs from which Update parses them
// on GOMAXPROCS goroutines; perWorker is the least work a worker is given.
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

// configuredDefaults returns the sorted names of the stores cfg gives a default.
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

// parseJobs parses every job (on GOMAXPROCS goroutines when many) and
// returns the index of the first that failed, or -1.
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
// computed on every core; below it a goroutine costs more than it saves.
var parallelHashMin = 16384

// contentKeys returns the content keys of every certificate; from
// parallelHashMin on, computed on every core into s.keyScratch (valid
// until the next call; the caller holds s.mu), so that an unchanged large
// refresh allocates nothing.
func (s *Store) contentKeys(certs []certstore.Certificate) []pairKey {
	if len(certs) < parallelHashMin {
		out := make([]pairKey, len(certs))
		for i := range certs {
			out[i] = s.keyOf(&certs[i].KeyPair)
		}
		return out
	}
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

package conformance

// Stores for testing the suite itself: a small correct reference store and
// broken variants of it that the suite must catch.

import (
	"crypto/tls"
	"encoding/pem"
	"errors"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/regressions"
	"github.com/certbench/certbench/stores/optimized"
)

// refStore is a minimal correct store: every Update parses the whole
// configuration into new maps and publishes them with one atomic pointer
// store.
type refStore struct {
	cur atomic.Pointer[refGen]
	mu  sync.Mutex // serializes Update

	deepWildcard bool // bug switch: wildcards cover any number of labels
}

// refGen is one generation; nil stores means no configuration yet.
type refGen struct {
	stores map[string]*refTable
	noCfg  bool
}

type refTable struct {
	names map[string]*tls.Certificate // exact names and "*.parent" names
	def   *tls.Certificate
}

func newRefStore() *refStore {
	s := &refStore{}
	s.cur.Store(&refGen{noCfg: true})
	return s
}

// generatedDefault is the certificate the reference stores serve when a
// store has no configured default: a self-signed P-256 certificate made once.
var generatedDefault = sync.OnceValues(func() (*tls.Certificate, error) {
	return certstore.SelfSigned("reference-default.invalid")
})

// parse parses one key pair and returns it with its names.
func parse(p *certstore.KeyPair) (*tls.Certificate, []string, error) {
	c, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM)
	if err != nil {
		return nil, nil, err
	}
	names := certstore.Names(c.Leaf)
	if len(names) == 0 {
		return nil, nil, errors.New("no names")
	}
	return &c, names, nil
}

// build validates cfg and makes its generation.
func build(cfg *certstore.Config) (*refGen, error) {
	if err := certstore.CheckStores(cfg); err != nil {
		return nil, err
	}
	g := &refGen{stores: map[string]*refTable{}}
	for _, st := range cfg.StoreNames() {
		t := &refTable{names: map[string]*tls.Certificate{}}
		if p := cfg.Stores[st].DefaultCertificate; p != nil {
			c, _, err := parse(p)
			if err != nil {
				return nil, &certstore.CertificateError{Index: -1, Store: st, Err: err}
			}
			t.def = c
		} else {
			c, err := generatedDefault()
			if err != nil {
				return nil, err
			}
			t.def = c
		}
		g.stores[st] = t
	}
	for i := range cfg.Certificates {
		c, names, err := parse(&cfg.Certificates[i].KeyPair)
		if err != nil {
			return nil, &certstore.CertificateError{Index: i, Err: err}
		}
		for _, st := range certstore.StoresOf(&cfg.Certificates[i]) {
			t := g.stores[st]
			for _, n := range names {
				if _, dup := t.names[n]; !dup {
					t.names[n] = c
				}
			}
		}
	}
	return g, nil
}

func (s *refStore) Update(cfg *certstore.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := build(cfg)
	if err != nil {
		return err
	}
	s.cur.Store(g)
	return nil
}

func (s *refStore) Current() certstore.Generation { return &refLookup{s.cur.Load(), s.deepWildcard} }

func (s *refStore) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return (&refLookup{s.cur.Load(), s.deepWildcard}).Certificate(store, hello)
}

type refLookup struct {
	g    *refGen
	deep bool
}

func (l *refLookup) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if l.g.noCfg {
		return nil, certstore.ErrNoCertificate
	}
	t, ok := l.g.stores[store]
	if !ok {
		return nil, certstore.ErrUnknownStore
	}
	return t.lookup(certstore.NormalizeServerName(hello.ServerName), l.deep), nil
}

func (t *refTable) lookup(sni string, deep bool) *tls.Certificate {
	if sni == "" {
		return t.def
	}
	if c, ok := t.names[sni]; ok {
		return c
	}
	if _, err := netip.ParseAddr(sni); err == nil {
		return t.def
	}
	for name := sni; ; {
		parent, ok := certstore.WildcardParent(name)
		if !ok {
			break
		}
		if c, ok := t.names["*."+parent]; ok {
			return c
		}
		if !deep {
			break
		}
		name = parent
	}
	return t.def
}

// panicStore panics on a certificate whose PEM does not decode, the way
// code that ignores pem.Decode's nil result does.
type panicStore struct{ *refStore }

func (s panicStore) Update(cfg *certstore.Config) error {
	for _, c := range cfg.Certificates {
		block, _ := pem.Decode(c.CertPEM)
		_ = block.Type // nil dereference on bad PEM
	}
	return s.refStore.Update(cfg)
}

// forgetfulStore drops its published configuration before validating a new
// one, so a rejected update leaves it empty.
type forgetfulStore struct{ *refStore }

func (s forgetfulStore) Update(cfg *certstore.Config) error {
	s.refStore.cur.Store(&refGen{stores: map[string]*refTable{}})
	return s.refStore.Update(cfg)
}

// leakyStore starts a goroutine per update (like a cache janitor per
// refresh) that only Close stops.
type leakyStore struct {
	*refStore
	quit chan struct{}
}

func (s leakyStore) Update(cfg *certstore.Config) error {
	go func() { <-s.quit }()
	return s.refStore.Update(cfg)
}

func (s leakyStore) Close() error {
	close(s.quit)
	return nil
}

// unstoppedStore starts one janitor goroutine on its first update and
// does not stop it on Close: nothing grows, but it outlives the store.
type unstoppedStore struct {
	*refStore
	once  *sync.Once
	never chan struct{}
}

func (s unstoppedStore) Update(cfg *certstore.Config) error {
	s.once.Do(func() { go func() { <-s.never }() })
	return s.refStore.Update(cfg)
}

func (s unstoppedStore) Close() error { return nil }

// hoardingStore keeps every generation it published, for ever: no
// goroutine, but its heap grows with every refresh.
type hoardingStore struct {
	*refStore
	mu   *sync.Mutex
	kept *[]certstore.Generation
}

func (s hoardingStore) Update(cfg *certstore.Config) error {
	err := s.refStore.Update(cfg)
	s.mu.Lock()
	*s.kept = append(*s.kept, s.Current())
	s.mu.Unlock()
	return err
}

// inPlaceStore has a single mutable generation that Update changes entry
// by entry, each entry safe on its own (sync.Map) but the whole not: a
// reader holding Current() sees a mix of two configurations while an update
// runs. With clear set, Update first empties the maps, then refills them;
// otherwise it overwrites entries in place, then deletes stale ones.
type inPlaceStore struct {
	mu         sync.Mutex // serializes Update
	clear      bool
	configured atomic.Bool
	defaults   sync.Map // store -> *tls.Certificate
	names      sync.Map // store + "\x00" + name -> *tls.Certificate
}

func (s *inPlaceStore) Update(cfg *certstore.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, err := build(cfg) // validates first: only the publication is wrong
	if err != nil {
		return err
	}
	if s.clear {
		s.names.Range(func(k, _ any) bool {
			s.names.Delete(k)
			runtime.Gosched()
			return true
		})
	}
	fresh := map[string]bool{}
	for st, t := range g.stores {
		for n, c := range t.names {
			k := st + "\x00" + n
			fresh[k] = true
			s.names.Store(k, c)
			runtime.Gosched()
		}
	}
	for st, t := range g.stores {
		s.defaults.Store(st, t.def)
		runtime.Gosched()
	}
	s.names.Range(func(k, _ any) bool {
		if !fresh[k.(string)] {
			s.names.Delete(k)
		}
		return true
	})
	s.defaults.Range(func(k, _ any) bool {
		if _, ok := g.stores[k.(string)]; !ok {
			s.defaults.Delete(k)
		}
		return true
	})
	s.configured.Store(true)
	return nil
}

func (s *inPlaceStore) Current() certstore.Generation { return s }

func (s *inPlaceStore) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if !s.configured.Load() {
		return nil, certstore.ErrNoCertificate
	}
	def, ok := s.defaults.Load(store)
	if !ok {
		return nil, certstore.ErrUnknownStore
	}
	sni := certstore.NormalizeServerName(hello.ServerName)
	if sni == "" {
		return def.(*tls.Certificate), nil
	}
	if c, ok := s.names.Load(store + "\x00" + sni); ok {
		return c.(*tls.Certificate), nil
	}
	if _, err := netip.ParseAddr(sni); err != nil {
		if parent, ok := certstore.WildcardParent(sni); ok {
			if c, ok := s.names.Load(store + "\x00*." + parent); ok {
				return c.(*tls.Certificate), nil
			}
		}
	}
	return def.(*tls.Certificate), nil
}

// brokenStores are the stores the suite must fail, by the name the helper
// test reads from the environment, with the subtest that must catch each.
var brokenStores = map[string]struct {
	factory certstore.Factory
	run     string // -test.run pattern under the helper test
	want    []string
}{
	"inplace": {
		factory: func() certstore.Store { return &inPlaceStore{clear: true} },
		run:     "/^Atomicity$",
		want:    []string{"--- FAIL: TestHelperBrokenStore/Atomicity"},
	},
	"overwrite": {
		factory: func() certstore.Store { return &inPlaceStore{} },
		run:     "/^Atomicity$",
		want:    []string{"--- FAIL: TestHelperBrokenStore/Atomicity", "mixes two configurations"},
	},
	"panic": {
		factory: func() certstore.Store { return panicStore{newRefStore()} },
		run:     "/^Reject$",
		want:    []string{"--- FAIL: TestHelperBrokenStore/Reject/CertNotPEM", "store panicked", "nil pointer dereference"},
	},
	"forgetful": {
		factory: func() certstore.Store { return forgetfulStore{newRefStore()} },
		run:     "/^Reject$",
		want:    []string{"--- FAIL: TestHelperBrokenStore/Reject/KeyNotMatchingCert", "after the rejected Update"},
	},
	"leaky": {
		factory: func() certstore.Store { return leakyStore{newRefStore(), make(chan struct{})} },
		run:     "/^Goroutines$",
		want:    []string{"--- FAIL: TestHelperBrokenStore/Goroutines", "goroutines grew", "× github.com/certbench/certbench/conformance.leakyStore.Update.func1 (started by github.com/certbench/certbench/conformance.leakyStore.Update)"},
	},
	"unstopped": {
		factory: func() certstore.Store { return unstoppedStore{newRefStore(), new(sync.Once), make(chan struct{})} },
		run:     "/^Goroutines$",
		want:    []string{"--- FAIL: TestHelperBrokenStore/Goroutines", "still running after Close", "unstoppedStore.Update"},
	},
	"janitor": {
		factory: regressions.Wrap(regressions.Janitor, func() certstore.Store { return optimized.New() }),
		run:     "/^HeldGenerations$",
		want: []string{"--- FAIL: TestHelperBrokenStore/HeldGenerations/WhileHeld", "64 generations held", "+64 goroutines (+1 a held generation)",
			"64 × github.com/certbench/certbench/internal/regressions.janitor (started by github.com/certbench/certbench/internal/regressions.(*janitorStore).Update)"},
	},
	"hoarding": {
		factory: func() certstore.Store {
			return hoardingStore{newRefStore(), new(sync.Mutex), new([]certstore.Generation)}
		},
		run:  "/^HeldGenerations$",
		want: []string{"--- FAIL: TestHelperBrokenStore/HeldGenerations/Released", "after all 64 held generations were released and collected: +0 goroutines"},
	},
	"deepwildcard": {
		factory: func() certstore.Store { s := newRefStore(); s.deepWildcard = true; return s },
		run:     "/^Lookup$",
		want:    []string{"--- FAIL: TestHelperBrokenStore/Lookup/WildcardNotTwoLabels", "--- FAIL: TestHelperBrokenStore/Lookup/WildcardDeeperParentNotTwoLabels"},
	},
}

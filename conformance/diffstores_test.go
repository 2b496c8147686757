package conformance

// A small store with switches for the bugs the differential pass must find
// by itself, without a rule written for them.

import (
	"crypto/tls"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/certbench/certbench/certstore"
)

// diffBug selects the bug of a diffStore; zero is a correct store.
type diffBug int

const (
	bugNone            diffBug = iota
	bugWildcardTwo             // a wildcard also covers two labels
	bugFirstDNSOnly            // only the first DNS name of a certificate is indexed
	bugLastOnTie               // the last certificate wins a tie
	bugNoV6Compression         // IPv6 SNI only lowercased, not compared as an address
)

// diffStore is a correct store (maps rebuilt per Update, published with one
// atomic pointer) unless bug says otherwise.
type diffStore struct {
	bug diffBug
	mu  sync.Mutex
	cur atomic.Pointer[diffGen]
}

type diffGen struct {
	bug    diffBug
	stores map[string]*diffTable // nil before the first Update
}

type diffTable struct {
	names map[string]*tls.Certificate
	def   *tls.Certificate
}

func newDiffStore(bug diffBug) *diffStore {
	s := &diffStore{bug: bug}
	s.cur.Store(&diffGen{bug: bug})
	return s
}

func (s *diffStore) names(c *tls.Certificate) []string {
	if s.bug == bugFirstDNSOnly && len(c.Leaf.DNSNames) > 1 {
		l := *c.Leaf
		l.DNSNames = l.DNSNames[:1]
		return certstore.Names(&l)
	}
	return certstore.Names(c.Leaf)
}

func (s *diffStore) Update(cfg *certstore.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cfg == nil {
		return &certstore.CertificateError{Index: -1, Err: errNilConfig}
	}
	if err := certstore.CheckStores(cfg); err != nil {
		return err
	}
	g := &diffGen{bug: s.bug, stores: map[string]*diffTable{}}
	for _, st := range cfg.StoreNames() {
		t := &diffTable{names: map[string]*tls.Certificate{}}
		if p := cfg.Stores[st].DefaultCertificate; p != nil {
			c, _, err := parse(p)
			if err != nil {
				return &certstore.CertificateError{Index: -1, Store: st, Err: err}
			}
			t.def = c
		} else {
			c, err := generatedDefault()
			if err != nil {
				return err
			}
			t.def = c
		}
		g.stores[st] = t
	}
	for i := range cfg.Certificates {
		c, _, err := parse(&cfg.Certificates[i].KeyPair)
		if err != nil {
			return &certstore.CertificateError{Index: i, Err: err}
		}
		for _, st := range certstore.StoresOf(&cfg.Certificates[i]) {
			t := g.stores[st]
			for _, n := range s.names(c) {
				if _, dup := t.names[n]; !dup || s.bug == bugLastOnTie {
					t.names[n] = c
				}
			}
		}
	}
	s.cur.Store(g)
	return nil
}

func (s *diffStore) Current() certstore.Generation { return s.cur.Load() }

func (s *diffStore) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.cur.Load().Certificate(store, hello)
}

func (g *diffGen) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if g.stores == nil {
		return nil, certstore.ErrNoCertificate
	}
	t, ok := g.stores[store]
	if !ok {
		return nil, certstore.ErrUnknownStore
	}
	var sni string
	if g.bug == bugNoV6Compression && strings.Contains(hello.ServerName, ":") {
		sni = strings.ToLower(hello.ServerName)
	} else {
		sni = certstore.NormalizeServerName(hello.ServerName)
	}
	if sni == "" {
		return t.def, nil
	}
	if c, ok := t.names[sni]; ok {
		return c, nil
	}
	if _, err := netip.ParseAddr(sni); err == nil {
		return t.def, nil
	}
	parent, ok := certstore.WildcardParent(sni)
	if !ok {
		return t.def, nil
	}
	if c, ok := t.names["*."+parent]; ok {
		return c, nil
	}
	if g.bug == bugWildcardTwo {
		if p2, ok := certstore.WildcardParent(parent); ok {
			if c, ok := t.names["*."+p2]; ok {
				return c, nil
			}
		}
	}
	return t.def, nil
}

var errNilConfig = errorString("nil configuration")

type errorString string

func (e errorString) Error() string { return string(e) }

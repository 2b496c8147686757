package conformance

// A small store with switches for the bugs the differential pass must find
// by itself, without a rule written for them.

import (
	"bytes"
	"crypto/tls"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/certbench/certbench/certstore"
)

// diffBug selects the bug of a diffStore; zero is a correct store.
type diffBug int

const (
	bugNone             diffBug = iota
	bugWildcardTwo              // a wildcard also covers two labels
	bugFirstDNSOnly             // only the first DNS name of a certificate is indexed
	bugLastOnTie                // the last certificate wins a tie
	bugNoV6Compression          // IPv6 SNI only lowercased, not compared as an address
	bugWildcardWins             // a wildcard wins over an exact name
	bugRandomTie                // a random one of tied certificates wins, per generation
	bugAcceptUndeclared         // a certificate in an undeclared store creates the store
)

// diffStore is a correct store (maps rebuilt per Update, published with one
// atomic pointer) unless bug says otherwise.
type diffStore struct {
	bug   diffBug
	picks func() int // with bugRandomTie: the picks, instead of random ones
	mu    sync.Mutex
	cur   atomic.Pointer[diffGen]
}

type diffGen struct {
	bug    diffBug
	stores map[string]*diffTable // nil before the first Update
}

type diffTable struct {
	names map[string][]*tls.Certificate // every certificate with the name, in order
	def   *tls.Certificate
	pick  int // with bugRandomTie: which of tied certificates wins
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
	if err := certstore.CheckStores(cfg); err != nil && s.bug != bugAcceptUndeclared {
		return err
	}
	g := &diffGen{bug: s.bug, stores: map[string]*diffTable{}}
	for _, st := range cfg.StoreNames() {
		t := &diffTable{names: map[string][]*tls.Certificate{}, pick: rand.IntN(1 << 20)}
		if s.picks != nil {
			t.pick = s.picks()
		}
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
			if t == nil { // bugAcceptUndeclared
				t = &diffTable{names: map[string][]*tls.Certificate{}, def: g.stores[certstore.DefaultStore].def}
				g.stores[st] = t
			}
			for _, n := range s.names(c) {
				if !slices.ContainsFunc(t.names[n], func(o *tls.Certificate) bool { return bytes.Equal(o.Certificate[0], c.Certificate[0]) }) {
					t.names[n] = append(t.names[n], c)
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
	wild := ""
	if _, err := netip.ParseAddr(sni); err != nil {
		if parent, ok := certstore.WildcardParent(sni); ok {
			wild = "*." + parent
		}
	}
	order := []string{sni, wild}
	if g.bug == bugWildcardWins {
		order = []string{wild, sni}
	}
	for _, n := range order {
		if c := t.get(g.bug, n); c != nil {
			return c, nil
		}
	}
	if g.bug == bugWildcardTwo && wild != "" {
		if p2, ok := certstore.WildcardParent(wild[2:]); ok {
			if c := t.get(g.bug, "*."+p2); c != nil {
				return c, nil
			}
		}
	}
	return t.def, nil
}

// get returns the certificate for name that the store's tie-break picks.
func (t *diffTable) get(bug diffBug, name string) *tls.Certificate {
	cs := t.names[name]
	switch {
	case name == "" || len(cs) == 0:
		return nil
	case bug == bugLastOnTie:
		return cs[len(cs)-1]
	case bug == bugRandomTie:
		return cs[t.pick%len(cs)]
	}
	return cs[0]
}

var errNilConfig = errorString("nil configuration")

type errorString string

func (e errorString) Error() string { return string(e) }

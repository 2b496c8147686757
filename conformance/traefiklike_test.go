package conformance

// A model of Traefik's certificate lookup at two releases, for the test
// that Compare finds, by itself, the two behaviour changes between them:
// v3.6 keeps the matching names in a map keyed by name and serves the
// certificate of the name that sorts last, so a tie on a shared name goes
// to whichever certificate the map visits last (random); v3.7 walks the
// certificates' SAN keys in reverse order and serves the first that
// matches exactly or by wildcard, so ties are fixed but a wildcard whose
// key sorts later beats an exact name.

import (
	"crypto/tls"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/certbench/certbench/certstore"
)

type traefikLike struct {
	v37 bool
	mu  sync.Mutex
	cur atomic.Pointer[tlGen]
}

type tlGen struct {
	v37    bool
	stores map[string]*tlStore // nil before the first Update
}

type tlStore struct {
	certs map[string]*tls.Certificate // by SAN key; the first certificate of a key wins
	def   *tls.Certificate
	mu    sync.Mutex
	cache map[string]*tls.Certificate // by server name, as Traefik caches its answers
}

func newTraefikLike(v37 bool) *traefikLike {
	s := &traefikLike{v37: v37}
	s.cur.Store(&tlGen{v37: v37})
	return s
}

// sanKey is Traefik's key of a certificate: its lowercased common name,
// DNS names and IP addresses, sorted and joined with ",".
func sanKey(leaf *tls.Certificate) string {
	x := leaf.Leaf
	var sans []string
	if x.Subject.CommonName != "" {
		sans = append(sans, strings.ToLower(x.Subject.CommonName))
	}
	for _, n := range x.DNSNames {
		if n != x.Subject.CommonName {
			sans = append(sans, strings.ToLower(n))
		}
	}
	for _, ip := range x.IPAddresses {
		if ip.String() != x.Subject.CommonName {
			sans = append(sans, ip.String())
		}
	}
	sort.Strings(sans)
	return strings.Join(sans, ",")
}

func (s *traefikLike) Update(cfg *certstore.Config) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := certstore.CheckStores(cfg); err != nil {
		return err
	}
	g := &tlGen{v37: s.v37, stores: map[string]*tlStore{}}
	for _, st := range cfg.StoreNames() {
		t := &tlStore{certs: map[string]*tls.Certificate{}, cache: map[string]*tls.Certificate{}}
		if p := cfg.Stores[st].DefaultCertificate; p != nil {
			c, _, err := parse(p)
			if err != nil {
				return &certstore.CertificateError{Index: -1, Store: st, Err: err}
			}
			t.def = c
		} else if t.def, _ = generatedDefault(); t.def == nil {
			return errNilConfig
		}
		g.stores[st] = t
	}
	for i := range cfg.Certificates {
		c, _, err := parse(&cfg.Certificates[i].KeyPair)
		if err != nil {
			return &certstore.CertificateError{Index: i, Err: err}
		}
		k := sanKey(c)
		for _, st := range certstore.StoresOf(&cfg.Certificates[i]) {
			if _, dup := g.stores[st].certs[k]; !dup {
				g.stores[st].certs[k] = c
			}
		}
	}
	s.cur.Store(g)
	return nil
}

func (s *traefikLike) Current() certstore.Generation { return s.cur.Load() }

func (s *traefikLike) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.cur.Load().Certificate(store, hello)
}

func (g *tlGen) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if g.stores == nil {
		return nil, certstore.ErrNoCertificate
	}
	t, ok := g.stores[store]
	if !ok {
		return nil, certstore.ErrUnknownStore
	}
	sni := strings.ToLower(strings.TrimSpace(hello.ServerName))
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.cache[sni]; ok {
		return c, nil
	}
	var c *tls.Certificate
	if g.v37 {
		keys := slices.Sorted(maps.Keys(t.certs))
		slices.Reverse(keys)
		for _, k := range keys {
			if slices.ContainsFunc(strings.Split(k, ","), func(d string) bool { return matchDomain(sni, d, true) }) {
				c = t.certs[k]
				break
			}
		}
	} else {
		matched := map[string]*tls.Certificate{}
		for k, cert := range t.certs { // map order: random
			for _, d := range strings.Split(k, ",") {
				if matchDomain(sni, d, false) {
					matched[d] = cert
				}
			}
		}
		if len(matched) > 0 {
			c = matched[slices.Max(slices.Collect(maps.Keys(matched)))]
		}
	}
	if c == nil {
		return t.def, nil
	}
	t.cache[sni] = c
	return c, nil
}

// matchDomain is Traefik's: the name itself, or (v3.7) the name with its
// first label replaced by "*", or (v3.6) with its first 1, 2, ... labels
// replaced.
func matchDomain(sni, d string, v37 bool) bool {
	if sni == d {
		return true
	}
	d = strings.TrimRight(d, ".")
	labels := strings.Split(sni, ".")
	for i := range labels {
		labels[i] = "*"
		if d == strings.Join(labels, ".") {
			return true
		}
		if v37 {
			break
		}
	}
	return false
}

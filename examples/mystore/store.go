// Package mystore is an example of a third-party certificate store measured
// with certbench: small, correct, and plain about its costs.
//
// Every Update parses every certificate of the configuration again
// (tls.X509KeyPair) and builds one map per store from each name to its
// certificate; nothing is shared between generations. The new generation
// is published with one atomic pointer store, so lookups never lock and
// never see a mix of two configurations. Lookups allocate only when the SNI
// has to be lowercased or put in canonical form. The default certificate a
// store serves when none is configured is made once per Store
// (certstore.SelfSigned) and kept for a year.
//
// Importing the package registers the store as "mystore" with certstore, so
// a certbench binary that imports it (see cmd/certbench) can measure it.
package mystore

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/certbench/certbench/certstore"
)

func init() {
	certstore.Register("mystore", "example third-party store: reparse all, one map per store, atomic publish",
		func() certstore.Store { return New() })
}

// Store is a certstore.Store. The zero value is not usable; call New.
type Store struct {
	mu  sync.Mutex // serialises Update
	cur atomic.Pointer[generation]

	// def is the generated default certificate, made on the first Update
	// that needs it and replaced when it nears expiry; guarded by mu.
	def      *tls.Certificate
	defRenew time.Time
}

var _ certstore.Store = (*Store)(nil)

// New returns an empty store: its lookups return certstore.ErrNoCertificate
// until the first successful Update.
func New() *Store {
	s := &Store{}
	s.cur.Store(&generation{})
	return s
}

// generation is one published configuration; never modified once published.
type generation struct {
	configured bool
	stores     map[string]*index
}

// index is one store of a generation.
type index struct {
	// names maps each certificate name (certstore.Names) to the first
	// certificate in configuration order that has it; wildcard names are
	// kept as written ("*.example.com").
	names map[string]*tls.Certificate
	// wild maps the parent of each wildcard name ("example.com" for
	// "*.example.com") to the first certificate that has it.
	wild map[string]*tls.Certificate
	def  *tls.Certificate
}

var errNilConfig = errors.New("mystore: nil configuration")

// Update validates cfg, builds a new generation from it and publishes it.
// On an error nothing is published: the error is a *certstore.CertificateError
// for the first bad certificate (by index), then the first bad configured
// default (by store name), or errNilConfig for a nil cfg. Update keeps no
// reference to cfg; the parsed certificates hold copies of its bytes.
func (s *Store) Update(cfg *certstore.Config) error {
	if cfg == nil {
		return errNilConfig
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := certstore.CheckStores(cfg); err != nil {
		return err
	}
	g := &generation{configured: true, stores: make(map[string]*index, 1+len(cfg.Stores))}
	for _, name := range cfg.StoreNames() {
		g.stores[name] = &index{names: map[string]*tls.Certificate{}, wild: map[string]*tls.Certificate{}}
	}
	for i := range cfg.Certificates {
		c := &cfg.Certificates[i]
		cert, names, err := parse(&c.KeyPair)
		if err != nil {
			return &certstore.CertificateError{Index: i, Name: c.FirstName(), Err: err}
		}
		for _, st := range certstore.StoresOf(c) {
			g.stores[st].add(cert, names)
		}
	}
	declared := make([]string, 0, len(cfg.Stores))
	for name := range cfg.Stores {
		declared = append(declared, name)
	}
	slices.Sort(declared)
	for _, name := range declared {
		kp := cfg.Stores[name].DefaultCertificate
		if kp == nil {
			continue
		}
		cert, _, err := parse(kp)
		if err != nil {
			return &certstore.CertificateError{Index: -1, Store: name, Name: kp.FirstName(), Err: err}
		}
		g.stores[name].def = cert
	}
	for _, ix := range g.stores {
		if ix.def == nil {
			def, err := s.generatedDefault()
			if err != nil {
				return err
			}
			ix.def = def
		}
	}
	s.cur.Store(g)
	return nil
}

// generatedDefault returns the store's self-signed default, made on first
// use and again a month before it expires. s.mu is held.
func (s *Store) generatedDefault() (*tls.Certificate, error) {
	if s.def != nil && time.Now().Before(s.defRenew) {
		return s.def, nil
	}
	def, err := certstore.SelfSigned()
	if err != nil {
		return nil, err
	}
	s.def, s.defRenew = def, def.Leaf.NotAfter.Add(-30*24*time.Hour)
	return def, nil
}

// parse reads a key pair and the names its leaf is served for.
func parse(kp *certstore.KeyPair) (*tls.Certificate, []string, error) {
	cert, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		return nil, nil, err
	}
	if cert.Leaf == nil { // GODEBUG=x509keypairleaf=0
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, nil, err
		}
	}
	names := certstore.Names(cert.Leaf)
	if len(names) == 0 {
		return nil, nil, errors.New("the certificate has no name (no DNS name, IP address or common name)")
	}
	return &cert, names, nil
}

// add indexes cert under names, unless an earlier certificate has them.
func (ix *index) add(cert *tls.Certificate, names []string) {
	for _, n := range names {
		if _, ok := ix.names[n]; !ok {
			ix.names[n] = cert
		}
		if parent, ok := strings.CutPrefix(n, "*."); ok {
			if _, ok := ix.wild[parent]; !ok {
				ix.wild[parent] = cert
			}
		}
	}
}

// Current returns the published generation.
func (s *Store) Current() certstore.Generation { return s.cur.Load() }

// Certificate looks hello up in the published generation.
func (s *Store) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.cur.Load().Certificate(store, hello)
}

// Certificate follows certstore's lookup rules: exact names, then a
// wildcard covering the first label (never for an IP address), then the
// store's default. A nil hello is a hello without SNI.
func (g *generation) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if !g.configured {
		return nil, certstore.ErrNoCertificate
	}
	ix := g.stores[store]
	if ix == nil {
		return nil, certstore.ErrUnknownStore
	}
	var sni string
	if hello != nil {
		sni = certstore.NormalizeServerName(hello.ServerName)
	}
	if sni == "" {
		return ix.def, nil
	}
	if c := ix.names[sni]; c != nil {
		return c, nil
	}
	if parent, ok := certstore.WildcardParent(sni); ok {
		if c := ix.wild[parent]; c != nil && !isIP(sni) {
			return c, nil
		}
	}
	return ix.def, nil
}

// isIP reports whether sni is an IP address literal. Only names of digits,
// dots and colons (and hex digits, with a colon) are parsed, as a failed
// netip.ParseAddr allocates its error.
func isIP(sni string) bool {
	if !strings.ContainsRune(sni, ':') && strings.Trim(sni, "0123456789.") != "" {
		return false
	}
	_, err := netip.ParseAddr(sni)
	return err == nil
}

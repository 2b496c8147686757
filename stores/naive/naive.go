package naive

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/certbench/certbench/certstore"
)

// ACMEStore is the TLS-ALPN-01 store Traefik always creates, without a
// default; hidden from lookups unless the configuration declares it.
const ACMEStore = "acme-tls/1"

func init() {
	certstore.Register("naive",
		"model of Traefik v3's TLS manager: parse all, wipe and rebuild, RSA default per refresh",
		func() certstore.Store { return New() })
}

// Store is the model of Traefik v3's TLS manager; make one with New.
type Store struct {
	updateMu sync.Mutex // a whole Update runs under it, as UpdateConfigs does

	// mu guards gen: write-locked only for the swap (Traefik's GetStore).
	mu  sync.RWMutex
	gen *generation
}

var _ certstore.Store = (*Store)(nil)

// New returns an empty store: lookups return certstore.ErrNoCertificate
// until the first successful Update.
func New() *Store {
	return &Store{}
}

// Update builds and publishes a whole new generation from cfg. On error
// nothing changes; a bad certificate's error is a *certstore.CertificateError.
func (s *Store) Update(cfg *certstore.Config) error {
	if cfg == nil {
		return errors.New("naive: nil configuration")
	}
	s.updateMu.Lock()
	defer s.updateMu.Unlock()

	gen, err := build(cfg)
	if err != nil {
		return err
	}

	s.mu.Lock()
	s.gen = gen
	s.mu.Unlock()
	return nil
}

// Current returns the published generation. Before the first successful
// Update its lookups return certstore.ErrNoCertificate.
func (s *Store) Current() certstore.Generation {
	return s.current()
}

func (s *Store) current() *generation {
	s.mu.RLock()
	g := s.gen
	s.mu.RUnlock()
	if g == nil {
		return noGeneration
	}
	return g
}

// Certificate looks up hello in the named store of the current generation.
func (s *Store) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.current().Certificate(store, hello)
}

// parsedCert is one configured certificate after parsing.
type parsedCert struct {
	cert  *tls.Certificate
	names []string
	key   string
}

// build validates and parses cfg into a generation, touching no published state.
func build(cfg *certstore.Config) (*generation, error) {
	if err := certstore.CheckStores(cfg); err != nil {
		return nil, err
	}

	// Parse everything first, so that a bad one rejects the whole configuration.
	parsed := make([]parsedCert, len(cfg.Certificates))
	for i := range cfg.Certificates {
		c, names, err := parseKeyPair(&cfg.Certificates[i].KeyPair)
		if err != nil {
			return nil, &certstore.CertificateError{Index: i, Name: firstName(names, &cfg.Certificates[i].KeyPair), Err: err}
		}
		parsed[i] = parsedCert{cert: c, names: names, key: sanKey(names)}
	}

	// Configured defaults, in name order so that the error for a bad one is
	// deterministic.
	declared := make([]string, 0, len(cfg.Stores))
	for name := range cfg.Stores {
		declared = append(declared, name)
	}
	sort.Strings(declared)
	defaults := make(map[string]*tls.Certificate, len(declared))
	for _, name := range declared {
		kp := cfg.Stores[name].DefaultCertificate
		if kp == nil {
			continue
		}
		c, names, err := parseKeyPair(kp)
		if err != nil {
			return nil, &certstore.CertificateError{Index: -1, Store: name, Name: firstName(names, kp), Err: err}
		}
		defaults[name] = c
	}

	storesCerts := make(map[string]map[string]*entry)
	for i := range cfg.Certificates {
		p := &parsed[i]
		for _, name := range certstore.StoresOf(&cfg.Certificates[i]) {
			appendCertificate(storesCerts, name, p.key, &entry{index: i, cert: p.cert, names: p.names})
		}
	}

	// Every store is new, with a new lookup cache.
	storeNames := cfg.StoreNames()
	stores := make(map[string]*certStore, len(storeNames)+1)
	for _, name := range storeNames {
		stores[name] = newCertStore(storesCerts[name])
	}
	if _, ok := stores[ACMEStore]; !ok {
		st := newCertStore(nil)
		st.internal = true
		stores[ACMEStore] = st
	}

	for name, st := range stores {
		if st.internal {
			continue
		}
		if c, ok := defaults[name]; ok {
			st.defaultCert = c
			continue
		}
		c, err := generateDefaultCertificate()
		if err != nil {
			return nil, fmt.Errorf("naive: generating the default certificate of store %q: %w", name, err)
		}
		st.defaultCert = c
	}
	return &generation{stores: stores}, nil
}

// parseKeyPair reads and parses a pair as Traefik does, returning its names.
func parseKeyPair(kp *certstore.KeyPair) (*tls.Certificate, []string, error) {
	certPEM := readContent(kp.CertPEM)
	keyPEM := readContent(kp.KeyPEM)
	if len(certPEM) == 0 {
		return nil, nil, errors.New("empty certificate PEM")
	}
	if len(keyPEM) == 0 {
		return nil, nil, errors.New("empty key PEM")
	}
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, err
	}
	if c.Leaf == nil {
		// tls.X509KeyPair fills Leaf since Go 1.23 (unless
		// GODEBUG=x509keypairleaf=0); parse it ourselves otherwise.
		leaf, err := x509.ParseCertificate(c.Certificate[0])
		if err != nil {
			return nil, nil, err
		}
		c.Leaf = leaf
	}
	names := certstore.Names(c.Leaf)
	if len(names) == 0 {
		return nil, nil, errors.New("certificate has no name (no DNS name, IP address or common name)")
	}
	return &c, names, nil
}

// firstName names a certificate for an error message.
func firstName(names []string, kp *certstore.KeyPair) string {
	if len(names) > 0 {
		return names[0]
	}
	return kp.FirstName()
}

// sanKey is Traefik's certificate key: the names sorted and comma-joined.
func sanKey(names []string) string {
	sorted := slices.Clone(names)
	sort.Strings(sorted)
	return strings.Join(sorted, ",")
}

// appendCertificate adds e under key unless the key is there; the check is
// a linear scan, as in Traefik.
func appendCertificate(certs map[string]map[string]*entry, store, key string, e *entry) {
	st := certs[store]
	if st == nil {
		st = make(map[string]*entry)
		certs[store] = st
	} else {
		for k := range st {
			if k == key {
				return
			}
		}
	}
	st[key] = e
}

// readContent models FileOrContent.Read: tried as a path (never read: the
// contract hands over content), then copied.
func readContent(content []byte) []byte {
	if len(content) > 0 {
		_, _ = os.Stat(string(content))
	}
	return bytes.Clone(content)
}

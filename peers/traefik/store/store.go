// Package store adapts Traefik v3's TLS manager (github.com/traefik/traefik/v3/pkg/tls)
// to the certstore contract and registers it as store "traefik".
//
// It is the real thing, not a model: every Update calls Manager.UpdateConfigs
// with a dynamic configuration built from the certstore.Config, and every
// lookup goes through the tls.Config.GetCertificate closure that
// Manager.Get builds, as Traefik's routers do after each refresh.
//
// # Mapping
//
//   - certstore.Certificate becomes a tls.CertAndStores whose CertFile and
//     KeyFile are FileOrContent holding the PEM content (as Traefik's
//     providers inline it) and whose Stores are the certificate's stores.
//     The PEM bytes are turned into strings without copying (unsafe.String):
//     a provider hands Traefik strings it already holds, so the conversion is
//     not Traefik's cost; the contract lets a store keep the bytes read-only.
//   - certstore.Config.Stores becomes the map of tls.Store, a configured
//     default certificate becoming Store.DefaultCertificate.
//   - TLS options: one option set, "default" = tls.DefaultTLSOptions (a nil
//     map makes Manager.Get fail), as Traefik's configuration aggregator
//     adds it when none is configured.
//   - The manager is made without an OCSP stapler, Traefik's default
//     (NewManager(nil); NewManager() before v3.5, in manager_noocsp.go).
//   - Traefik's logger is silenced when the package is initialised:
//     Traefik logs every skipped certificate (zerolog in v3, log.go;
//     logrus in v2, log_v2.go).
//
// # Eras
//
// The adapter builds against Traefik v2.10 and later. Where Traefik's API
// changed, a file with a build constraint holds each shape: certbench peer
// build reads the tree's module path and NewManager's declaration and keeps
// the files of that era (tags traefik_v2, traefik_noocsp; see
// internal/peer/peerbuild). Without a tag, as in this module, the files are
// those of the current release. Certificate.CertFile is assigned through a
// type parameter (setPEM), so the adapter does not name the package that
// declares FileOrContent (pkg/tls in v2, pkg/types since v3).
//
// # Generations
//
// Traefik's manager replaces its whole map of certificate stores on every
// UpdateConfigs and never mutates a published store (only each store's
// lookup cache fills in). Handshakes do not go through the manager: the
// routers call Manager.Get after each refresh and the tls.Config they get
// holds the *CertificateStore of that refresh in its GetCertificate
// closure. The adapter does the same: after UpdateConfigs it calls
// Manager.Get(store, "default") for every store of the configuration and
// publishes the resulting closures, by store name, as one generation (one
// atomic pointer swap). A held generation therefore keeps answering from
// the stores of its own refresh, exactly as a live connection's tls.Config
// does in Traefik. The stores exposed are those of the configuration:
// Traefik's own store for ACME TLS-ALPN-01 challenges ("acme-tls/1") is
// built on every refresh but not exposed unless the configuration declares
// it.
//
// # Where Traefik differs from the contract (not hidden)
//
//   - UpdateConfigs cannot fail: Traefik logs and skips a certificate it
//     cannot parse, creates any store a certificate names, and leaves a store
//     without default when its configured default does not parse. Update
//     therefore always returns nil (for a non-nil configuration); the
//     conformance table in peers/README.md shows which Reject rules that
//     breaks.
//   - Matching is Traefik's: reverse-sorted SAN keys, first match wins;
//     IP SNI values are only lowercased.
//   - With no SNI, Traefik matches the connection's local IP address. A
//     ClientHelloInfo without a connection would make Traefik dereference a
//     nil net.Conn, so for those the adapter passes a copy of the hello whose
//     connection has no IP address (as over a pipe): no SNI then gets the
//     default certificate.
//   - A store whose default certificate Traefik could not build has none;
//     Traefik's GetDefaultCertificate dereferences it anyway. The adapter
//     lets that happen (TestBadDefaultPanics shows it).
package store

import (
	"context"
	"crypto/tls"
	"errors"
	"github.com/certbench/certbench/peers/internal/pipeconn"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/certbench/certbench/certstore"
	traefiktls "github.com/traefik/traefik/v3/pkg/tls"
)

// Name is the name the store is registered under.
const Name = "traefik"

func init() {
	// The errors Traefik logs here (skipped certificates) are the
	// adapter's business to report, not to print.
	silenceLogs()
	certstore.Register(Name,
		"Traefik pkg/tls Manager (the real one): UpdateConfigs + Get per store",
		func() certstore.Store { return New() })
}

// Store is Traefik's TLS manager behind the certstore contract.
type Store struct {
	// mu serializes Updates: UpdateConfigs and the Get calls that follow
	// it must not interleave with another refresh.
	mu      sync.Mutex
	manager *traefiktls.Manager
	gen     atomic.Pointer[generation]
}

var _ certstore.Store = (*Store)(nil)

// New returns an empty store.
func New() *Store {
	return &Store{manager: newManager()}
}

// Manager returns the Traefik manager the store drives.
func (s *Store) Manager() *traefiktls.Manager { return s.manager }

// Update hands cfg to Manager.UpdateConfigs and publishes the stores it
// built. Traefik accepts every configuration, so Update returns an error
// only for a nil one.
func (s *Store) Update(cfg *certstore.Config) error {
	if cfg == nil {
		return errors.New("traefik: nil configuration")
	}
	stores, certs := dynamicConfig(cfg)
	options := map[string]traefiktls.Options{traefiktls.DefaultTLSConfigName: traefiktls.DefaultTLSOptions}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.manager.UpdateConfigs(context.Background(), stores, options, certs)

	// What Traefik's routers do after a refresh: one tls.Config per store,
	// whose GetCertificate closure holds that refresh's store.
	names := cfg.StoreNames()
	for i := range cfg.Certificates {
		for _, st := range cfg.Certificates[i].Stores {
			if !contains(names, st) {
				names = append(names, st) // Traefik creates undeclared stores
			}
		}
	}
	g := &generation{lookups: make(map[string]getCertificateFunc, len(names))}
	for _, name := range names {
		tc, err := s.manager.Get(name, traefiktls.DefaultTLSConfigName)
		if err != nil || tc == nil || tc.GetCertificate == nil {
			continue // cannot happen: the store was just built
		}
		g.lookups[name] = tc.GetCertificate
	}
	s.gen.Store(g)
	return nil
}

// Current returns the published generation.
func (s *Store) Current() certstore.Generation {
	if g := s.gen.Load(); g != nil {
		return g
	}
	return noGeneration
}

// Certificate looks up hello in the current generation.
func (s *Store) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.Current().Certificate(store, hello)
}

// dynamicConfig maps a certstore configuration to Traefik's dynamic TLS
// configuration: a fresh stores map and certificate list on every refresh,
// as Traefik's configuration aggregator builds them.
func dynamicConfig(cfg *certstore.Config) (map[string]traefiktls.Store, []*traefiktls.CertAndStores) {
	stores := make(map[string]traefiktls.Store, len(cfg.Stores)+2)
	for name, sc := range cfg.Stores {
		var st traefiktls.Store
		if kp := sc.DefaultCertificate; kp != nil {
			st.DefaultCertificate = &traefiktls.Certificate{}
			setPEM(st.DefaultCertificate, kp.CertPEM, kp.KeyPEM)
		}
		stores[name] = st
	}
	certs := make([]*traefiktls.CertAndStores, len(cfg.Certificates))
	backing := make([]traefiktls.CertAndStores, len(cfg.Certificates))
	for i := range cfg.Certificates {
		c := &cfg.Certificates[i]
		setPEM(&backing[i].Certificate, c.CertPEM, c.KeyPEM)
		// Traefik writes "default" into Stores when it is empty: give it
		// its own slice, never the caller's.
		backing[i].Stores = append([]string(nil), c.Stores...)
		certs[i] = &backing[i]
	}
	return stores, certs
}

// setPEM sets c's CertFile and KeyFile to the PEM contents.
func setPEM(c *traefiktls.Certificate, certPEM, keyPEM []byte) {
	setContent(&c.CertFile, certPEM)
	setContent(&c.KeyFile, keyPEM)
}

// setContent views PEM bytes as a FileOrContent, whichever package
// declares it, without copying them.
func setContent[T ~string](dst *T, b []byte) {
	if len(b) == 0 {
		*dst = ""
		return
	}
	*dst = T(unsafe.String(&b[0], len(b)))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type getCertificateFunc = func(*tls.ClientHelloInfo) (*tls.Certificate, error)

// generation is the GetCertificate closures Manager.Get built after one
// refresh, by store name.
type generation struct {
	lookups map[string]getCertificateFunc
}

// noGeneration answers before the first Update.
var noGeneration = &generation{}

// Certificate calls the store's GetCertificate closure.
func (g *generation) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if g.lookups == nil {
		return nil, certstore.ErrNoCertificate
	}
	get, ok := g.lookups[store]
	if !ok {
		return nil, certstore.ErrUnknownStore
	}
	if hello == nil {
		hello = &tls.ClientHelloInfo{}
	}
	if hello.ServerName == "" && hello.Conn == nil {
		h := *hello
		h.Conn = pipeconn.Conn{}
		hello = &h
	}
	c, err := get(hello)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, certstore.ErrNoCertificate
	}
	return c, nil
}

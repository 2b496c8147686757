// Package store adapts Caddy's certificate cache (github.com/caddyserver/certmagic)
// to the certstore contract and registers it as store "certmagic".
//
// It drives the real certmagic.Cache with unmanaged certificates (the kind
// Caddy loads from its configuration: load_pem, load_files), and looks
// certificates up through certmagic.Config.GetCertificate, the function
// Caddy installs as tls.Config.GetCertificate.
//
// # Refresh
//
// certmagic has no notion of a whole configuration. A refresh is modelled
// the way Caddy reloads unmanaged certificates: cache every configured
// certificate (certmagic parses each one, then deduplicates by the hash of
// its DER chain, so certificates already cached cost a parse and a hash),
// then Remove the hashes of certificates that are no longer configured. If a
// certificate fails to load, the hashes this refresh added are removed
// again and the error is returned (as a *certstore.CertificateError), so the
// cache ends up as it was; but for the duration of the refresh old and new
// certificates coexist in the one live cache, and a handshake can see any
// mix of them.
//
// # Stores and defaults
//
// certmagic has no named stores: there is one cache per process, shared by
// every certmagic.Config. The adapter keeps one certmagic.Config per store
// of the configuration (so that each has its own default), all over the one
// cache: every certificate is served from every store. Stores named by a
// certificate but not declared are rejected (certstore.CheckStores), as
// Caddy rejects a configuration that refers to something it does not
// define; lookups in a store the configuration does not have return
// certstore.ErrUnknownStore.
//
// certmagic has no default certificate either: a handshake that matches
// nothing fails, unless Config.DefaultServerName (no SNI) or
// Config.FallbackServerName (no match) names a cached certificate. The
// adapter caches a store's configured default and sets both names to it,
// which is how a Caddy user configures default_sni and fallback_sni. A store
// without a configured default gets a certificate the adapter generates
// once per Store (a self-signed Ed25519 certificate for
// "default.certmagic.default", the same bytes every time), cached like any
// other and named the same way; certmagic itself would fail those
// handshakes.
//
// # Generations
//
// There are none: certmagic has one live cache. Current returns a view
// that holds the store list and default names of the last refresh, but
// every lookup reads the live cache, so a held generation sees later
// refreshes. The conformance table in peers/README.md shows the rules that
// breaks.
//
// # Other settings
//
// OCSP stapling is disabled (the fixtures name an OCSP responder that does
// not exist; stapling would go to storage and the network on every
// refresh), logging goes to zap.NewNop(), and the cache's maintenance
// goroutine is stopped by Close.
package store

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"github.com/certbench/certbench/peers/internal/pipeconn"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/certbench/certbench/certstore"
	"go.uber.org/zap"
)

// Name is the name the store is registered under.
const Name = "certmagic"

func init() {
	certstore.Register(Name,
		"Caddy's certmagic Cache (the real one): cache all, then Remove the unconfigured",
		func() certstore.Store { return New() })
}

// Store is a certmagic cache behind the certstore contract. It implements
// certstore.Closer: Close stops the cache's maintenance goroutine.
type Store struct {
	cache  *certmagic.Cache
	loader *certmagic.Config // loads certificates into the cache
	logger *zap.Logger

	// mu serializes Updates and guards the fields below it.
	mu         sync.Mutex
	configured map[string]struct{} // hashes the last good configuration cached
	generated  *defaultCert        // the adapter's own default, made once
	configs    map[string]*certmagic.Config

	view      atomic.Pointer[view]
	closeOnce sync.Once
}

var (
	_ certstore.Store  = (*Store)(nil)
	_ certstore.Closer = (*Store)(nil)
)

// New returns an empty store with its own certmagic cache (and the cache's
// maintenance goroutine; call Close to stop it).
func New() *Store {
	s := &Store{logger: zap.NewNop(), configured: map[string]struct{}{}}
	s.cache = certmagic.NewCache(certmagic.CacheOptions{
		GetConfigForCert: func(certmagic.Certificate) (*certmagic.Config, error) { return s.loader, nil },
		Logger:           s.logger,
	})
	s.loader = s.newConfig("")
	return s
}

// Cache returns the certmagic cache the store drives.
func (s *Store) Cache() *certmagic.Cache { return s.cache }

// newConfig returns a certmagic config over the store's cache whose default
// and fallback server name is defaultName.
func (s *Store) newConfig(defaultName string) *certmagic.Config {
	return certmagic.New(s.cache, certmagic.Config{
		DefaultServerName:  defaultName,
		FallbackServerName: defaultName,
		OCSP:               certmagic.OCSPConfig{DisableStapling: true},
		Logger:             s.logger,
	})
}

// Close stops the cache's maintenance goroutine. The store must not be
// used afterwards.
func (s *Store) Close() error {
	s.closeOnce.Do(s.cache.Stop)
	return nil
}

// defaultCert is a certificate in the cache that serves as a default.
type defaultCert struct {
	hash, name string
}

// Update caches every certificate of cfg, points each store at its
// default, then removes the certificates that are no longer configured.
func (s *Store) Update(cfg *certstore.Config) error {
	if cfg == nil {
		return errors.New("certmagic: nil configuration")
	}
	if err := certstore.CheckStores(cfg); err != nil {
		return err
	}
	ctx := context.Background()
	s.mu.Lock()
	defer s.mu.Unlock()

	now := make(map[string]struct{}, len(cfg.Certificates)+len(cfg.Stores))
	var added []string
	fail := func(err error) error {
		if len(added) > 0 {
			s.cache.Remove(added)
		}
		return err
	}
	keep := func(hash string) {
		if _, ok := s.configured[hash]; !ok {
			if _, dup := now[hash]; !dup && (s.generated == nil || hash != s.generated.hash) {
				added = append(added, hash)
			}
		}
		now[hash] = struct{}{}
	}

	for i := range cfg.Certificates {
		c := &cfg.Certificates[i]
		hash, err := s.loader.CacheUnmanagedCertificatePEMBytes(ctx, c.CertPEM, c.KeyPEM, nil)
		if err != nil {
			return fail(&certstore.CertificateError{Index: i, Err: err})
		}
		keep(hash)
	}

	defaults := make(map[string]string, len(cfg.Stores)+1) // store -> default name
	for _, name := range cfg.StoreNames() {
		kp := cfg.Stores[name].DefaultCertificate
		if kp == nil {
			if s.generated == nil {
				d, err := s.generateDefault(ctx)
				if err != nil {
					return fail(fmt.Errorf("certmagic: generating a default certificate: %w", err))
				}
				s.generated = d
			}
			defaults[name] = s.generated.name
			continue
		}
		d, err := s.cacheDefault(ctx, kp)
		if err != nil {
			return fail(&certstore.CertificateError{Index: -1, Store: name, Err: err})
		}
		keep(d.hash)
		defaults[name] = d.name
	}

	// Publish the stores, reusing the certmagic config of a store whose
	// default did not change (configs are read by live handshakes and
	// never modified).
	configs := make(map[string]*certmagic.Config, len(defaults))
	for name, def := range defaults {
		if old, ok := s.configs[name]; ok && old.FallbackServerName == def {
			configs[name] = old
		} else {
			configs[name] = s.newConfig(def)
		}
	}
	s.configs = configs
	s.view.Store(&view{configs: configs})

	// Then unload what is no longer configured.
	var gone []string
	for hash := range s.configured {
		if _, ok := now[hash]; !ok {
			gone = append(gone, hash)
		}
	}
	if len(gone) > 0 {
		s.cache.Remove(gone)
	}
	s.configured = now
	return nil
}

// cacheDefault caches a configured default certificate and returns its
// hash and the name certmagic indexes it under first.
func (s *Store) cacheDefault(ctx context.Context, kp *certstore.KeyPair) (defaultCert, error) {
	tc, err := tls.X509KeyPair(kp.CertPEM, kp.KeyPEM)
	if err != nil {
		return defaultCert{}, err
	}
	hash, err := s.loader.CacheUnmanagedTLSCertificate(ctx, tc, nil)
	if err != nil {
		return defaultCert{}, err
	}
	return defaultCert{hash: hash, name: firstName(tc.Leaf)}, nil
}

// firstName is the first name certmagic indexes a leaf under: its common
// name, else its first DNS name, else its first IP address, lowercased.
func firstName(leaf *x509.Certificate) string {
	switch {
	case leaf.Subject.CommonName != "":
		return strings.ToLower(leaf.Subject.CommonName)
	case len(leaf.DNSNames) > 0:
		return strings.ToLower(leaf.DNSNames[0])
	case len(leaf.IPAddresses) > 0:
		return leaf.IPAddresses[0].String()
	}
	return ""
}

// generateDefault makes and caches the adapter's default certificate: a
// self-signed Ed25519 certificate for "default.certmagic.default", the
// same bytes every time (a fixed key, validity and serial; Ed25519 signs
// deterministically), so that what the cache holds, and what its lookups
// cost, does not vary from one store to the next.
func (s *Store) generateDefault(ctx context.Context) (*defaultCert, error) {
	seed := sha256.Sum256([]byte(defaultName))
	key := ed25519.NewKeyFromSeed(seed[:])
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: defaultName},
		DNSNames:              []string{defaultName},
		NotBefore:             time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		NotAfter:              time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	hash, err := s.loader.CacheUnmanagedTLSCertificate(ctx, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil)
	if err != nil {
		return nil, err
	}
	return &defaultCert{hash: hash, name: defaultName}, nil
}

// defaultName is the name of the adapter's generated default certificate.
const defaultName = "default.certmagic.default"

// Current returns a view of the live cache with the stores of the last
// refresh; it is not a snapshot of the certificates.
func (s *Store) Current() certstore.Generation {
	if v := s.view.Load(); v != nil {
		return v
	}
	return noView
}

// Certificate looks up hello in the named store.
func (s *Store) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return s.Current().Certificate(store, hello)
}

// view is the stores of one refresh over the live cache.
type view struct {
	configs map[string]*certmagic.Config
}

var noView = &view{}

// Certificate calls the store's certmagic.Config.GetCertificate.
func (v *view) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if v.configs == nil {
		return nil, certstore.ErrNoCertificate
	}
	cfg, ok := v.configs[store]
	if !ok {
		return nil, certstore.ErrUnknownStore
	}
	if hello == nil {
		hello = &tls.ClientHelloInfo{}
	}
	if hello.Conn == nil {
		// A real handshake always has a connection, and certmagic reads
		// its addresses (and dereferences it on some paths): lend it one.
		h := helloPool.Get().(*tls.ClientHelloInfo)
		*h = *hello
		h.Conn = pipeconn.Conn{}
		defer func() {
			*h = tls.ClientHelloInfo{}
			helloPool.Put(h)
		}()
		hello = h
	}
	c, err := cfg.GetCertificate(hello)
	if err != nil {
		return nil, fmt.Errorf("%w: certmagic: %w", certstore.ErrNoCertificate, err)
	}
	if c == nil || len(c.Certificate) == 0 {
		return nil, certstore.ErrNoCertificate
	}
	return c, nil
}

var helloPool = sync.Pool{New: func() any { return new(tls.ClientHelloInfo) }}

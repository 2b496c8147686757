package certstore

import (
	"crypto/tls"
	"errors"
	"fmt"
)

// DefaultStore is the store a certificate belongs to when it names none.
const DefaultStore = "default"

// KeyPair is a certificate chain and its private key, both PEM-encoded, as a
// proxy holds them after reading its configuration.
type KeyPair struct {
	// CertPEM holds the leaf certificate first, then any intermediates.
	CertPEM []byte
	// KeyPEM holds the private key of the leaf (PKCS#1, PKCS#8 or SEC 1).
	KeyPEM []byte
}

// Certificate is one configured certificate and the stores it is served from.
type Certificate struct {
	KeyPair
	// Stores names the stores the certificate belongs to; none means
	// DefaultStore.
	Stores []string
}

// StoreConfig is the configuration of one named store.
type StoreConfig struct {
	// DefaultCertificate, when set, is served for handshakes that match no
	// certificate. When nil the store serves a certificate it generates.
	DefaultCertificate *KeyPair
}

// Config is a whole TLS configuration, handed to a store on every refresh.
//
// Ownership: a Config and everything it references is read-only once it is
// handed to Update, for the caller and the store alike, whether or not
// Update succeeded. The store may keep references to any part of it.
type Config struct {
	// Certificates is every configured certificate, in configuration order.
	Certificates []Certificate
	// Stores declares the named stores and their options. DefaultStore
	// exists whether or not it is declared.
	Stores map[string]StoreConfig
}

// StoreNames returns DefaultStore and every declared store, in no order.
func (c *Config) StoreNames() []string {
	names := []string{DefaultStore}
	for name := range c.Stores {
		if name != DefaultStore {
			names = append(names, name)
		}
	}
	return names
}

// HasStore reports whether the configuration has a store with that name.
func (c *Config) HasStore(name string) bool {
	_, ok := c.Stores[name]
	return ok || name == DefaultStore
}

// Lookup finds certificates in one published generation.
type Lookup interface {
	// Certificate returns the certificate to present for hello in the named
	// store, following the package's lookup rules. It returns ErrUnknownStore
	// for a store the generation does not have and ErrNoCertificate when the
	// store has no certificate at all to offer. A nil hello is a ClientHello
	// without SNI: it gets the store's default, and never panics. The
	// returned certificate is shared: callers must not modify it.
	Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error)
}

// Generation is one published configuration. It never changes after it is
// published: every lookup on a held Generation answers from the same
// configuration, whatever updates happen meanwhile.
type Generation interface {
	Lookup
}

// Store holds a TLS configuration and answers handshakes from it.
//
// All methods are safe for concurrent use. Update publishes a whole
// configuration atomically: once it returns nil, every lookup started after
// it sees the new configuration, and no lookup ever sees a mix of two. When
// Update returns an error the published generation is unchanged.
type Store interface {
	// Update validates cfg and publishes it as the new generation. A nil
	// cfg is rejected with a non-nil error (not necessarily a
	// *CertificateError), never a panic, and the published generation is
	// unchanged; an empty Config (no certificates) is valid. See [Config] for
	// who owns cfg afterwards.
	Update(cfg *Config) error
	// Current returns the published generation, for callers that make
	// several lookups against one configuration. Before the first successful
	// Update it holds no configuration: its lookups return ErrNoCertificate.
	Current() Generation
	// Lookup looks up in the current generation, like Current().Certificate.
	Lookup
}

// Closer is implemented by stores with resources to release.
type Closer interface {
	Close() error
}

// GetCertificateFunc returns a tls.Config.GetCertificate serving store of s.
func GetCertificateFunc(s Store, store string) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		return s.Certificate(store, hello)
	}
}

var (
	// ErrUnknownStore is a lookup in a store the configuration lacks.
	ErrUnknownStore = errors.New("certstore: unknown store")
	// ErrNoCertificate is a lookup with no certificate, not even a default.
	ErrNoCertificate = errors.New("certstore: no certificate")
)

// CertificateError reports a configured certificate that a store rejected.
type CertificateError struct {
	Index int    // in Config.Certificates; -1 for a store's default
	Store string // whose default was rejected, when Index is -1
	Name  string // the certificate's first name, when readable
	Err   error  // what was wrong
}

// Error names the certificate and what was wrong with it.
func (e *CertificateError) Error() string {
	what := fmt.Sprintf("certificate %d", e.Index)
	if e.Index < 0 {
		what = fmt.Sprintf("default certificate of store %q", e.Store)
	}
	if e.Name != "" {
		what += fmt.Sprintf(" (%s)", e.Name)
	}
	return what + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *CertificateError) Unwrap() error { return e.Err }

// CheckStores reports, as a *CertificateError, a declared store with an
// empty name or the first certificate naming an unknown or empty store.
func CheckStores(cfg *Config) error {
	if _, ok := cfg.Stores[""]; ok {
		return &CertificateError{Index: -1, Err: errors.New("a store with an empty name is declared")}
	}
	for i := range cfg.Certificates {
		for _, st := range cfg.Certificates[i].Stores {
			if st == "" {
				return &CertificateError{Index: i, Name: cfg.Certificates[i].FirstName(), Err: errors.New("empty store name")}
			}
			if !cfg.HasStore(st) {
				return &CertificateError{Index: i, Name: cfg.Certificates[i].FirstName(), Err: fmt.Errorf("unknown store %q (not declared in Config.Stores)", st)}
			}
		}
	}
	return nil
}

// StoresOf returns c's Stores, or DefaultStore when it names none.
func StoresOf(c *Certificate) []string {
	if len(c.Stores) == 0 {
		return defaultOnly
	}
	return c.Stores
}

var defaultOnly = []string{DefaultStore}

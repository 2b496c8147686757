package certgen

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/certbench/certbench/certstore"
)

// Certificate sources: a user's certificates from a directory of PEM
// files, a Traefik dynamic configuration or a Kubernetes Secret list.

// SourceKind says what a certificate source is.
type SourceKind string

// The kinds of certificate source Load reads.
const (
	// KindAuto lets Load decide: a directory is KindDir; a file ending in
	// .yaml or .yml is KindTraefikYAML, .toml is KindTraefikTOML, .json is
	// KindSecrets; any other file is KindSecrets when it starts with "{",
	// else KindTraefikTOML when it has a "[tls" table header, else
	// KindTraefikYAML.
	KindAuto SourceKind = ""
	KindDir  SourceKind = "dir" // a directory tree of PEM files
	// KindTraefik is a Traefik dynamic configuration file, YAML or TOML
	// as for KindAuto; KindTraefikYAML and KindTraefikTOML name the format.
	KindTraefik     SourceKind = "traefik"
	KindTraefikYAML SourceKind = "traefik-yaml"
	KindTraefikTOML SourceKind = "traefik-toml"
	KindSecrets     SourceKind = "k8s" // kubectl get secrets -o json
)

// Size caps used when SourceOptions leaves them zero: of a PEM file, and
// of a Traefik configuration or Secret list.
const (
	DefaultMaxPEMFile    = 1 << 20
	DefaultMaxConfigFile = 64 << 20
)

// SourceOptions tunes Load. The zero value detects the kind, skips (and
// lists) what it cannot use, and applies the default size caps.
type SourceOptions struct {
	Kind SourceKind
	// Strict makes Load fail on the first unusable entry instead of
	// skipping it (entries that are not certificates, Skip.Ignored, never
	// fail).
	Strict                     bool
	MaxFileSize, MaxConfigSize int64 // 0: DefaultMaxPEMFile, DefaultMaxConfigFile
	IgnoreNamespaces           bool  // every Secret in the default store, not its namespace's
	Workers                    int   // files parsed at once; 0 means GOMAXPROCS
}

func (o SourceOptions) withDefaults() SourceOptions {
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = DefaultMaxPEMFile
	}
	if o.MaxConfigSize <= 0 {
		o.MaxConfigSize = DefaultMaxConfigFile
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// CertFacts are the facts about one loaded certificate that scenarios and
// Shape use. Names stay in memory: nothing in certgen prints them.
type CertFacts struct {
	KeyType  string // "rsa2048", "rsa4096", "p256", "p384", "p521", "ed25519" or "other"
	KeyBits  int
	ChainLen int      // the leaf included
	SANs     int      // DNS and IP subject alternative names
	Names    []string // served for (certstore.Names)
	NotAfter time.Time
}

// SourceCert is one certificate a source configures, with where it came
// from and its facts.
type SourceCert struct {
	certstore.Certificate
	// File is slash-separated, relative to the source root; Line its PEM
	// block's or entry's (0: unknown); Where the position in the file
	// ("tls.certificates[3]", "items[7]"; "" in a directory).
	File  string
	Line  int
	Where string
	Facts CertFacts
}

// Skip is an entry of a source that Load did not use, and why.
type Skip struct {
	File   string // File, Line and Where as for SourceCert
	Line   int
	Where  string
	Reason string // never holds key material
	// Ignored marks entries that are no certificates to begin with (no
	// PEM, a CRL, a duplicate, an unused CA): they never fail Strict.
	Ignored bool
}

// Err returns the skip as a *SourceError.
func (s Skip) Err() *SourceError {
	return &SourceError{File: s.File, Line: s.Line, Where: s.Where, Err: errors.New(s.Reason)}
}

// String names the entry and the reason.
func (s Skip) String() string { return s.Err().Error() }

// SourceError is a problem with a source: the file (relative to the source
// root), the line or position in it when known, and what is wrong. It
// never holds key material.
type SourceError struct {
	File  string // File, Line and Where as for SourceCert
	Line  int
	Where string
	Err   error
}

// Error names the file, line and position, then what is wrong.
func (e *SourceError) Error() string {
	at := ""
	if e.File != "" {
		at = posString(e.File, e.Line) + ": "
	}
	if e.Where != "" {
		at += e.Where + ": "
	}
	return "certgen: " + at + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *SourceError) Unwrap() error { return e.Err }

// Source is a loaded certificate source.
type Source struct {
	Kind         SourceKind
	Certs        []SourceCert           // a directory's by file and line, else in order
	Defaults     map[string]*SourceCert // per store
	Stores       []string               // declared, sorted (DefaultStore only if declared)
	Skipped      []Skip                 // by file and line
	OtherSecrets int                    // Secrets not of type kubernetes.io/tls

	fingerprint string
}

// Load reads the certificate source at path. Problems with single entries
// are listed in Source.Skipped (or fail the load when opts.Strict is set);
// a source that cannot be read at all is an error. Every error is a
// *SourceError naming the file.
func Load(path string, opts SourceOptions) (*Source, error) {
	opts = opts.withDefaults()
	name := filepath.Base(path)
	fi, err := os.Stat(path)
	if err != nil {
		return nil, &SourceError{File: name, Err: plainFSError(err)}
	}
	kind := opts.Kind
	if kind == KindAuto && fi.IsDir() {
		kind = KindDir
	}
	var src *Source
	switch kind {
	case KindDir:
		if !fi.IsDir() {
			return nil, &SourceError{File: name, Err: errors.New("is not a directory")}
		}
		src, err = loadDir(path, opts)
	case KindAuto, KindTraefik, KindTraefikYAML, KindTraefikTOML, KindSecrets:
		if fi.IsDir() {
			return nil, &SourceError{File: name, Err: fmt.Errorf("is a directory, not a %s file", kind)}
		}
		var data []byte
		if data, err = readCapped(path, opts.MaxConfigSize, "MaxConfigSize"); err != nil {
			return nil, &SourceError{File: name, Err: err}
		}
		if kind == KindAuto || kind == KindTraefik {
			kind = fileKind(path, data, kind == KindAuto)
		}
		if kind == KindSecrets {
			src, err = loadSecrets(name, data, opts)
		} else {
			src, err = loadTraefik(path, data, kind, opts)
		}
	default:
		return nil, fmt.Errorf("certgen: unknown source kind %q (want %s, %s, %s, %s or %s)",
			kind, KindDir, KindTraefik, KindTraefikYAML, KindTraefikTOML, KindSecrets)
	}
	if err != nil {
		return nil, err
	}
	src.Kind = kind
	if err := src.finish(opts); err != nil {
		return nil, err
	}
	return src, nil
}

// fileKind is the kind of a configuration file as KindAuto says (a Secret
// list only when auto), or its Traefik format.
func fileKind(path string, data []byte, auto bool) SourceKind {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		if auto {
			return KindSecrets
		}
	case ".toml":
		return KindTraefikTOML
	case ".yaml", ".yml":
		return KindTraefikYAML
	}
	if t := bytes.TrimLeft(data, " \t\r\n\ufeff"); auto && len(t) > 0 && t[0] == '{' {
		return KindSecrets
	}
	for line := range bytes.Lines(data) {
		if l := bytes.TrimSpace(line); bytes.HasPrefix(l, []byte("[tls")) || bytes.HasPrefix(l, []byte("[[tls")) {
			return KindTraefikTOML
		}
	}
	return KindTraefikYAML
}

// errNoName is why a certificate without any name is refused: every store
// rejects a configuration holding one (certstore's validation rules).
const errNoName = "certificate has no name (no DNS name, IP address or common name), a store would refuse the whole configuration"

// dropUnusable moves the certificates and defaults no store accepts (those
// without a name) from the configuration to the skips, so that a run on
// the source does not fail half-way through.
func (s *Source) dropUnusable() {
	skip := func(c *SourceCert) {
		s.Skipped = append(s.Skipped, Skip{File: c.File, Line: c.Line, Where: c.Where, Reason: errNoName})
	}
	s.Certs = slices.DeleteFunc(s.Certs, func(c SourceCert) bool {
		if len(c.Facts.Names) == 0 {
			skip(&c)
			return true
		}
		return false
	})
	for name, d := range s.Defaults {
		if len(d.Facts.Names) == 0 {
			skip(d)
			delete(s.Defaults, name)
		}
	}
}

// finish drops unusable certificates, sorts the skips, applies Strict, and
// computes the fingerprint.
func (s *Source) finish(opts SourceOptions) error {
	s.dropUnusable()
	slices.SortStableFunc(s.Skipped, func(a, b Skip) int { return cmp.Or(strings.Compare(a.File, b.File), a.Line-b.Line) })
	if i := slices.IndexFunc(s.Skipped, func(sk Skip) bool { return !sk.Ignored }); opts.Strict && i >= 0 {
		return s.Skipped[i].Err()
	}
	slices.Sort(s.Stores)
	s.Stores = slices.Compact(s.Stores)
	ders := make([][]byte, 0, len(s.Certs))
	for i := range s.Certs {
		ders = append(ders, certstore.AppendCertificateDERs(nil, s.Certs[i].CertPEM)[0]) // chainPEM put the leaf first
	}
	slices.SortFunc(ders, bytes.Compare)
	h := sha256.New()
	for _, d := range ders {
		h.Write(d)
	}
	s.fingerprint = hex.EncodeToString(h.Sum(nil))[:16]
	return nil
}

// Config returns the source as a whole configuration. Two loads of the same
// source give equal configurations, byte for byte. The byte slices are
// shared with the Source: treat them as read-only.
func (s *Source) Config() *certstore.Config {
	cfg := &certstore.Config{Certificates: make([]certstore.Certificate, len(s.Certs))}
	for i := range s.Certs {
		cfg.Certificates[i] = s.Certs[i].Certificate
	}
	if len(s.Stores) > 0 || len(s.Defaults) > 0 {
		cfg.Stores = make(map[string]certstore.StoreConfig, len(s.Stores))
		for _, name := range s.Stores {
			cfg.Stores[name] = certstore.StoreConfig{}
		}
		for name, d := range s.Defaults {
			kp := d.KeyPair
			cfg.Stores[name] = certstore.StoreConfig{DefaultCertificate: &kp}
		}
	}
	return cfg
}

func certstoreCert(certPEM, keyPEM []byte, stores []string) certstore.Certificate {
	return certstore.Certificate{KeyPair: certstore.KeyPair{CertPEM: certPEM, KeyPEM: keyPEM}, Stores: stores}
}

// normalizeStores drops empty names and duplicates from a certificate's
// stores, keeping their order; a list that names only the default store
// becomes nil, which means the same.
func normalizeStores(stores []string) []string {
	var out []string
	for _, st := range stores {
		if st != "" && !slices.Contains(out, st) {
			out = append(out, st)
		}
	}
	if len(out) == 0 || (len(out) == 1 && out[0] == certstore.DefaultStore) {
		return nil
	}
	return out
}

// plainFSError strips the path from an fs error, so that messages name
// files relative to the source root only.
func plainFSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return errors.New("does not exist")
		}
		if errors.Is(pe.Err, fs.ErrPermission) {
			return errors.New("permission denied")
		}
		return pe.Err
	}
	return err
}

package conformance

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/certbench/certbench/certstore"
)

// CaseCert is one certificate of a [CaseConfig], described by its names;
// equal CaseCerts issue the same certificate within a process.
type CaseCert struct {
	CommonName string   `json:",omitempty"`
	DNSNames   []string `json:",omitempty"` // as written in the certificate
	IPs        []string `json:",omitempty"` // in any form netip.ParseAddr accepts
	// Stores are the certificate's stores (none: the default store);
	// ignored for a default.
	Stores []string `json:",omitempty"`
	// Variant tells apart certificates with the same names (a renewal).
	Variant int `json:",omitempty"`
}

// CaseConfig is a whole configuration in terms of names.
type CaseConfig struct {
	Certs []CaseCert // in configuration order
	// Stores declares stores (DefaultStore may be listed too); a non-nil
	// value is the store's configured default.
	Stores map[string]*CaseCert `json:",omitempty"`
}

// Case is one differential check: configurations applied in order to a new
// store (each must be accepted), the generation held after Configs[Held]
// (Current() right after that Update), and one lookup in it once every
// update is done, which must answer as certstore.Match; when Held is the
// last, Store.Certificate is checked too.
type Case struct {
	Configs    []CaseConfig
	Held       int
	Store, SNI string
}

// AnswerKind says what a lookup returned, relative to a [Case].
type AnswerKind int

// The kinds of answer.
const (
	// AnswerCertificate is configured certificate Index of Configs[Config].
	AnswerCertificate AnswerKind = iota
	// AnswerDefault is the configured default of Store in Configs[Config].
	AnswerDefault
	// AnswerGenerated is a certificate of the store's own making (none of
	// the case's certificates).
	AnswerGenerated
	// AnswerError is an error (Err).
	AnswerError
	// AnswerNone is no certificate (nil or an empty chain) and no error.
	AnswerNone
)

// Answer is a lookup result described in terms of a Case.
type Answer struct {
	Kind   AnswerKind
	Config int    // index in Case.Configs of the certificate's or default's configuration
	Index  int    // the certificate's index in its Certs
	Store  string // whose configured default it is
	Err    error
}

// describe says what a is, with the names of the certificate.
func (a Answer) describe(c *Case) string {
	var s string
	switch a.Kind {
	case AnswerCertificate:
		s = fmt.Sprintf("certificate %d %s", a.Index, c.Configs[a.Config].Certs[a.Index].names())
	case AnswerDefault:
		s = fmt.Sprintf("the configured default of %q %s", a.Store, c.Configs[a.Config].Stores[a.Store].names())
	case AnswerGenerated:
		return "the store's generated default"
	case AnswerError:
		return "error " + errText(a.Err)
	default:
		return "no certificate and no error"
	}
	if a.Config != c.Held {
		s += fmt.Sprintf(" of configuration %d (not the held one, %d)", a.Config, c.Held)
	}
	return s
}

// names lists a CaseCert's names for messages.
func (c *CaseCert) names() string {
	var ns []string
	if c.CommonName != "" {
		ns = append(ns, "CN="+c.CommonName)
	}
	ns = append(ns, c.DNSNames...)
	ns = append(ns, c.IPs...)
	if c.Variant != 0 {
		ns = append(ns, fmt.Sprintf("variant %d", c.Variant))
	}
	return fmt.Sprintf("%q", ns)
}

// hasName reports whether the certificate has at least one name.
func (c *CaseCert) hasName() bool {
	return c.CommonName != "" || len(c.DNSNames) > 0 || len(c.IPs) > 0
}

// clone returns a deep copy of c.
func (c CaseCert) clone() CaseCert {
	c.DNSNames = slices.Clone(c.DNSNames)
	c.IPs = slices.Clone(c.IPs)
	c.Stores = slices.Clone(c.Stores)
	return c
}

// clone returns a deep copy of cfg.
func (cfg CaseConfig) clone() CaseConfig {
	out := CaseConfig{Certs: mapSlice(cfg.Certs, CaseCert.clone)}
	if cfg.Stores != nil {
		out.Stores = map[string]*CaseCert{}
		for st, d := range cfg.Stores {
			if d != nil {
				dc := d.clone()
				d = &dc
			}
			out.Stores[st] = d
		}
	}
	return out
}

// clone returns a deep copy of c.
func (c Case) clone() Case {
	c.Configs = mapSlice(c.Configs, CaseConfig.clone)
	return c
}

// storeNames returns the stores cfg declares, sorted.
func (cfg *CaseConfig) storeNames() []string { return slices.Sorted(maps.Keys(cfg.Stores)) }

// declares reports whether cfg has the store.
func (cfg *CaseConfig) declares(store string) bool {
	_, ok := cfg.Stores[store]
	return ok || store == certstore.DefaultStore
}

// valid reports whether cfg is a configuration every store must accept:
// every certificate has a name, and names only declared, non-empty stores.
func (cfg *CaseConfig) valid() bool {
	if _, ok := cfg.Stores[""]; ok {
		return false
	}
	for i := range cfg.Certs {
		c := &cfg.Certs[i]
		if !c.hasName() {
			return false
		}
		for _, st := range c.Stores {
			if st == "" || !cfg.declares(st) {
				return false
			}
		}
	}
	for _, d := range cfg.Stores {
		if d != nil && !d.hasName() {
			return false
		}
	}
	return true
}

// built is a CaseConfig with its certificates issued.
type built struct {
	cfg      *certstore.Config
	certs    []*cert
	defaults map[string]*cert
}

// build issues cfg's certificates and makes the certstore.Config.
func (cfg *CaseConfig) build(lc *leafCache) (*built, error) {
	b := &built{cfg: &certstore.Config{}, defaults: map[string]*cert{}}
	for i := range cfg.Certs {
		is, err := lc.get(&cfg.Certs[i])
		if err != nil {
			return nil, fmt.Errorf("issuing certificate %d %s: %w", i, cfg.Certs[i].names(), err)
		}
		b.certs = append(b.certs, is)
		b.cfg.Certificates = append(b.cfg.Certificates, certstore.Certificate{KeyPair: is.pair, Stores: slices.Clone(cfg.Certs[i].Stores)})
	}
	if cfg.Stores != nil {
		b.cfg.Stores = map[string]certstore.StoreConfig{}
		for _, st := range cfg.storeNames() {
			var sc certstore.StoreConfig
			if d := cfg.Stores[st]; d != nil {
				is, err := lc.get(d)
				if err != nil {
					return nil, fmt.Errorf("issuing the default of %q %s: %w", st, d.names(), err)
				}
				b.defaults[st] = is
				p := is.pair
				sc.DefaultCertificate = &p
			}
			b.cfg.Stores[st] = sc
		}
	}
	return b, nil
}

// want is what certstore.Match says the built configuration serves for the
// lookup, as an Answer for configuration index k.
func (b *built) want(cfg *CaseConfig, k int, store, sni string) Answer {
	if !cfg.declares(store) {
		return Answer{Kind: AnswerError, Err: certstore.ErrUnknownStore}
	}
	if m := matchIndex(b.cfg.Certificates, store, sni, func(i int) []string { return b.certs[i].names }); m >= 0 {
		return Answer{Kind: AnswerCertificate, Config: k, Index: m}
	}
	if _, ok := b.defaults[store]; ok {
		return Answer{Kind: AnswerDefault, Config: k, Store: store}
	}
	return Answer{Kind: AnswerGenerated}
}

// matchIndex is the index in certs of the certificate certstore.Match
// serves for sni in store (names gives a certificate's names), or -1.
func matchIndex(certs []certstore.Certificate, store, sni string, names func(i int) []string) int {
	var ns [][]string
	var idx []int
	for i := range certs {
		if slices.Contains(certstore.StoresOf(&certs[i]), store) {
			ns, idx = append(ns, names(i)), append(idx, i)
		}
	}
	if m := certstore.Match(ns, sni); m >= 0 {
		return idx[m]
	}
	return -1
}

// leafOfAnswer is the leaf DER an answer stands for, or nil.
func leafOfAnswer(bs []*built, a Answer) []byte {
	switch a.Kind {
	case AnswerCertificate:
		return bs[a.Config].certs[a.Index].leaf
	case AnswerDefault:
		return bs[a.Config].defaults[a.Store].leaf
	}
	return nil
}

// classify describes a served certificate (or error) in terms of a case's
// built configurations, preferring configuration k, then the first
// certificate in store.
func classify(bs []*built, k int, store string, got *tls.Certificate, err error) Answer {
	if err != nil {
		return Answer{Kind: AnswerError, Err: err}
	}
	leaf := leafOf(got)
	if leaf == nil {
		return Answer{Kind: AnswerNone}
	}
	order := []int{k}
	for j := range bs {
		if j != k {
			order = append(order, j)
		}
	}
	for _, j := range order {
		first := -1
		for i, is := range bs[j].certs {
			if !bytes.Equal(is.leaf, leaf) {
				continue
			}
			if slices.Contains(certstore.StoresOf(&bs[j].cfg.Certificates[i]), store) {
				return Answer{Kind: AnswerCertificate, Config: j, Index: i}
			}
			if first < 0 {
				first = i
			}
		}
		if first >= 0 {
			return Answer{Kind: AnswerCertificate, Config: j, Index: first}
		}
		if is, ok := bs[j].defaults[store]; ok && bytes.Equal(is.leaf, leaf) {
			return Answer{Kind: AnswerDefault, Config: j, Store: store}
		}
		for _, st := range slices.Sorted(maps.Keys(bs[j].defaults)) {
			if bytes.Equal(bs[j].defaults[st].leaf, leaf) {
				return Answer{Kind: AnswerDefault, Config: j, Store: st}
			}
		}
	}
	return Answer{Kind: AnswerGenerated}
}

// agrees reports whether got is an acceptable answer where want is expected.
func agrees(bs []*built, want, got Answer, gotCert *tls.Certificate) bool {
	switch want.Kind {
	case AnswerError:
		return got.Kind == AnswerError && errors.Is(got.Err, want.Err)
	case AnswerGenerated:
		return got.Kind == AnswerGenerated && usable(gotCert) == nil
	}
	return got.Kind != AnswerError && bytes.Equal(leafOf(gotCert), leafOfAnswer(bs, want))
}

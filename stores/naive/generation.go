package naive

import (
	"crypto/tls"
	"net/netip"
	"sort"
	"strings"

	"github.com/certbench/certbench/certstore"
)

// generation is one published configuration: a map of stores that is never
// modified after publication.
type generation struct {
	// stores is nil only for noGeneration, the generation before the first
	// Update.
	stores map[string]*certStore
}

// noGeneration is what Current returns before the first successful Update.
var noGeneration = &generation{}

var _ certstore.Generation = (*generation)(nil)

// entry is one certificate in one store (Traefik's CertificateData).
type entry struct {
	// index is the certificate's position in Config.Certificates, for the
	// contract's first-in-configuration tie-break.
	index int
	cert  *tls.Certificate
	// names are the certificate's names as certstore.Names gives them.
	names []string
}

// certStore is one store of one generation (Traefik's CertificateStore).
type certStore struct {
	// entries maps SAN keys to certificates. It is never modified after
	// the generation is published.
	entries map[string]*entry
	// commaNames is set when a name contains a comma, so that splitting a
	// SAN key on "," would not give back its names.
	commaNames  bool
	defaultCert *tls.Certificate
	cache       *lookupCache
	// internal marks Traefik's always-present tlsalpn-01 store when the
	// configuration does not declare it: built, never looked up.
	internal bool
}

func newCertStore(entries map[string]*entry) *certStore {
	if entries == nil {
		entries = make(map[string]*entry)
	}
	st := &certStore{entries: entries, cache: newLookupCache(cacheTTL)}
	for _, e := range entries {
		for _, n := range e.names {
			if strings.IndexByte(n, ',') >= 0 {
				st.commaNames = true
			}
		}
	}
	return st
}

// Certificate returns the certificate for hello in the named store,
// following the certstore lookup rules, the way Traefik's
// GetBestCertificate finds it.
func (g *generation) Certificate(store string, hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	if g.stores == nil {
		return nil, certstore.ErrNoCertificate
	}
	st, ok := g.stores[store]
	if !ok || st.internal {
		return nil, certstore.ErrUnknownStore
	}
	var sni string
	if hello != nil {
		sni = certstore.NormalizeServerName(hello.ServerName)
	}
	if c := st.bestCertificate(sni); c != nil {
		return c, nil
	}
	if st.defaultCert == nil {
		return nil, certstore.ErrNoCertificate
	}
	return st.defaultCert, nil
}

// Match levels, best last.
const (
	noMatch = iota
	wildcardMatch
	exactMatch
)

// bestCertificate returns the best certificate for sni, or nil when the
// store's default is to be served.
func (st *certStore) bestCertificate(sni string) *tls.Certificate {
	if sni == "" {
		return nil
	}
	if c, ok := st.cache.get(sni); ok {
		return c
	}

	// Miss: every key of the store, sorted in reverse, every miss.
	keys := make([]string, 0, len(st.entries))
	for k := range st.entries {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))

	// The contract's wildcard rule: a name of two labels or more that is
	// not an IP address; decided once per lookup.
	_, hasParent := certstore.WildcardParent(sni)
	wildOK := hasParent && !isIPAddr(sni)
	var best *entry
	bestLevel := noMatch
	for _, k := range keys {
		var e *entry
		level := noMatch
		if st.commaNames {
			e = st.entries[k]
			for _, n := range e.names {
				if level = max(level, matchDomain(sni, n, wildOK)); level == exactMatch {
					break
				}
			}
		} else {
			for n := range strings.SplitSeq(k, ",") {
				if level = max(level, matchDomain(sni, n, wildOK)); level == exactMatch {
					break
				}
			}
		}
		if level == noMatch || level < bestLevel {
			continue
		}
		if e == nil {
			e = st.entries[k]
		}
		if level > bestLevel || e.index < best.index {
			best, bestLevel = e, level
		}
	}
	if best == nil {
		return nil
	}
	st.cache.set(sni, best.cert)
	return best.cert
}

// matchDomain compares an SNI value with one certificate name the way
// Traefik's matchDomain does, including its cost: an equality test, then
// the SNI split on "." and joined back with its first label replaced by
// "*". That candidate matches only when wildOK (the SNI has a parent and is
// not an IP address), so a wildcard covers exactly one label (certstore
// contract).
func matchDomain(sni, name string, wildOK bool) int {
	if sni == name {
		return exactMatch
	}
	labels := strings.Split(sni, ".")
	labels[0] = "*"
	if strings.Join(labels, ".") == name && wildOK {
		return wildcardMatch
	}
	return noMatch
}

// isIPAddr reports whether sni is an IP address. Only IPv6 literals have a
// colon and IPv4 literals are digits and dots, so most names are told apart
// without paying for netip's parse error.
func isIPAddr(sni string) bool {
	if strings.IndexByte(sni, ':') < 0 {
		for i := 0; i < len(sni); i++ {
			if c := sni[i]; c != '.' && (c < '0' || c > '9') {
				return false
			}
		}
	}
	_, err := netip.ParseAddr(sni)
	return err == nil
}

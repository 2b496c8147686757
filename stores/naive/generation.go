package naive

import (
	"crypto/tls"
	"net/netip"
	"sort"
	"strings"

	"github.com/certbench/certbench/certstore"
)

// generation is one published configuration, never modified after.
type generation struct {
	stores map[string]*certStore // nil only for noGeneration
}

// noGeneration is what Current returns before the first successful Update.
var noGeneration = &generation{}

var _ certstore.Generation = (*generation)(nil)

// entry is one certificate in one store (Traefik's CertificateData).
type entry struct {
	index int // in Config.Certificates, for the first-configured tie-break
	cert  *tls.Certificate
	names []string // as certstore.Names gives them
}

// certStore is one store of one generation (Traefik's CertificateStore).
type certStore struct {
	entries map[string]*entry // by SAN key
	// commaNames: a name has a comma, so a SAN key split on "," is not its names.
	commaNames  bool
	defaultCert *tls.Certificate
	cache       *lookupCache
	internal    bool // an undeclared ACMEStore: built, never looked up
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

// Certificate looks hello up in the named store, as GetBestCertificate does.
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

	keys := make([]string, 0, len(st.entries))
	for k := range st.entries {
		keys = append(keys, k)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(keys)))

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

// matchDomain compares sni with one name as Traefik's matchDomain does,
// with its cost (split and join); wildOK limits a wildcard to one label.
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

// isIPAddr reports whether sni is an IP address, most names told apart
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

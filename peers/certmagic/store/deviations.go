package store

import (
	"maps"
	"slices"
	"strings"

	"github.com/caddyserver/certmagic"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
	"github.com/certbench/certbench/peers/internal/peermodel"
	"golang.org/x/net/idna"
)

// The documented deviations of certmagic behind the adapter
// (peers/README.md), in the order the differential pass attributes a
// divergence to them.
const (
	// devOneCache: there is one cache for all stores, so every
	// certificate (and every store's configured default) is served from
	// every store.
	devOneCache = iota
	// devNoGenerations: a held generation keeps its own stores and default
	// names but looks certificates up in the live cache, which later
	// updates changed.
	devNoGenerations
	// devFirstCached: of certificates with the same name, the one cached
	// first wins; a certificate kept from an earlier configuration was
	// cached before the new ones, whatever the new order.
	devFirstCached
	// devIPSpelling: an IP SNI and an IP common name are only lowercased,
	// never put in canonical form.
	devIPSpelling
	// devIDNA: an SNI that matches no certificate is run through
	// idna.Lookup.ToASCII, then certmagic.SubjectQualifiesForCert, before
	// the fallback is tried; when either rejects it (an IPv6 literal's ':',
	// a '*', a trailing dot, ...) the handshake fails.
	devIDNA
	// devDefaultByName: a miss is served through FallbackServerName (and
	// an empty SNI through DefaultServerName), i.e. by the name of the
	// store's configured default: the first cached certificate with that
	// name, which may be a configured certificate sharing it, or nothing
	// once the default left the cache.
	devDefaultByName
)

// The deviations are declared with the store's registration, so that every
// differential pass on it knows them: the peer's own test and
// "certbench conformance --stores certmagic".
func init() { conformance.Declare(Name, deviations...) }

// deviations are the documented deviations of the certmagic store.
var deviations = peermodel.Deviations(certmagicModel,
	"one cache: every certificate in every store",
	"no generations: held generations read the live cache",
	"first cached wins among certificates with a name",
	"IP literals only lowercased",
	"a miss on a name certmagic rejects (IDNA, SubjectQualifiesForCert) fails",
	"default served by its name",
)

// cached is a certificate in the modelled cache.
type cached struct {
	cc    conformance.CaseCert
	group int // certificates of one group were cached in no defined order
}

// cacheAfter is the cache, in caching order, after the adapter's Updates
// with configurations 0..last: each one caches its certificates in order,
// then the stores' configured defaults (in map order, so one group), then
// removes what it does not configure.
func cacheAfter(c *conformance.Case, last int) []cached {
	var cache []cached
	group := 0
	has := func(k string) bool {
		return slices.ContainsFunc(cache, func(e cached) bool { return peermodel.CertKey(e.cc) == k })
	}
	for k := 0; k <= last; k++ {
		cfg := &c.Configs[k]
		now := map[string]bool{}
		for _, cc := range cfg.Certs {
			key := peermodel.CertKey(cc)
			now[key] = true
			if !has(key) {
				cache = append(cache, cached{cc, group})
				group++
			}
		}
		for _, st := range slices.Sorted(maps.Keys(cfg.Stores)) {
			if d := cfg.Stores[st]; d != nil {
				key := peermodel.CertKey(*d)
				now[key] = true
				if !has(key) {
					cache = append(cache, cached{*d, group})
				}
			}
		}
		group++
		cache = slices.DeleteFunc(cache, func(e cached) bool { return !now[peermodel.CertKey(e.cc)] })
	}
	return cache
}

// inConfig is configuration cfg's certificates of store (of every store
// with all) in configuration order, each once, then (with all) its
// configured defaults as one group.
func inConfig(cfg *conformance.CaseConfig, store string, all bool) []cached {
	var out []cached
	seen := map[string]bool{}
	add := func(cc conformance.CaseCert, group int) {
		if k := peermodel.CertKey(cc); !seen[k] {
			seen[k] = true
			out = append(out, cached{cc, group})
		}
	}
	for i, cc := range cfg.Certs {
		if all || peermodel.InStore(cc, store) {
			add(cc, i)
		}
	}
	if all {
		for _, st := range slices.Sorted(maps.Keys(cfg.Stores)) {
			if d := cfg.Stores[st]; d != nil {
				add(*d, len(cfg.Certs))
			}
		}
	}
	return out
}

// certmagicModel is certmagic's lookup (Config.GetCertificate over the one
// Cache, as the adapter sets it up) with the deviations in on, and
// certstore.Match's rules for the others.
func certmagicModel(c *conformance.Case, on peermodel.Features) []string {
	held := &c.Configs[c.Held]
	if !peermodel.Declares(held, c.Store) {
		return []string{peermodel.KeyUnknownStore}
	}
	src := c.Held // the configuration whose certificates are looked up
	if on.Has(devNoGenerations) {
		src = len(c.Configs) - 1
	}
	cfg := &c.Configs[src]
	// The certificates the lookup sees, in the order it tries them.
	var members []cached
	if !on.Has(devFirstCached) {
		members = inConfig(cfg, c.Store, on.Has(devOneCache))
	} else {
		for _, e := range cacheAfter(c, src) {
			key := peermodel.CertKey(e.cc)
			if on.Has(devOneCache) || slices.ContainsFunc(cfg.Certs, func(cc conformance.CaseCert) bool {
				return peermodel.CertKey(cc) == key && peermodel.InStore(cc, c.Store)
			}) {
				members = append(members, e)
			}
		}
	}
	names, norm := peermodel.MatchNames, certstore.NormalizeServerName
	if on.Has(devIPSpelling) {
		names, norm = peermodel.RawNames, strings.ToLower
	}
	groups := func(es []cached) [][]peermodel.Candidate {
		var gs [][]peermodel.Candidate
		for i, e := range es {
			cand := peermodel.Candidate{Key: peermodel.CertKey(e.cc), Names: names(e.cc)}
			if i > 0 && es[i-1].group == e.group {
				gs[len(gs)-1] = append(gs[len(gs)-1], cand)
			} else {
				gs = append(gs, []peermodel.Candidate{cand})
			}
		}
		return gs
	}
	if keys := peermodel.Lookup(groups(members), norm(c.SNI), true); keys != nil {
		return keys
	}
	if on.Has(devIDNA) && c.SNI != "" {
		ascii, err := idna.Lookup.ToASCII(strings.TrimSpace(c.SNI))
		if err != nil {
			return []string{peermodel.KeyIDNAError}
		}
		if !certmagic.SubjectQualifiesForCert(ascii) {
			return []string{peermodel.KeyNotAllowed}
		}
	}
	d := held.Stores[c.Store]
	if d == nil || !on.Has(devDefaultByName) {
		return []string{peermodel.DefaultKey(held, c.Store)}
	}
	// The default's name, as the adapter gives it (firstName), looked up
	// exactly among the cached certificates (with one cache for all stores,
	// all of them; otherwise the store's own and its default).
	name := firstCaseName(*d)
	pool := members
	if !on.Has(devOneCache) {
		pool = append(slices.Clone(members), cached{*d, -1})
	} else if !on.Has(devFirstCached) && !slices.ContainsFunc(pool, func(e cached) bool { return peermodel.CertKey(e.cc) == peermodel.CertKey(*d) }) {
		pool = append(slices.Clone(members), cached{*d, -1})
	}
	for _, g := range groups(pool) {
		var keys []string
		for _, cand := range g {
			if slices.Contains(cand.Names, norm(name)) {
				keys = append(keys, cand.Key)
			}
		}
		if keys != nil {
			return keys
		}
	}
	return []string{peermodel.KeyOtherError}
}

// firstCaseName is the adapter's firstName of the certificate issued for
// cc: the lowercased common name, else the first DNS name, else the first
// IP address.
func firstCaseName(cc conformance.CaseCert) string {
	switch {
	case cc.CommonName != "":
		return strings.ToLower(cc.CommonName)
	case len(cc.DNSNames) > 0:
		return strings.ToLower(cc.DNSNames[0])
	case len(cc.IPs) > 0:
		return peermodel.RawNames(conformance.CaseCert{IPs: cc.IPs[:1]})[0]
	}
	return ""
}

package store

import (
	"maps"
	"slices"
	"strings"

	"github.com/caddyserver/certmagic"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
	"github.com/certbench/certbench/peers/internal/peerconf"
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

// deviations are the Known deviations of the certmagic store, for the
// differential pass.
var deviations = peerconf.Deviations(certmagicModel,
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
		return slices.ContainsFunc(cache, func(e cached) bool { return peerconf.CertKey(e.cc) == k })
	}
	for k := 0; k <= last; k++ {
		cfg := &c.Configs[k]
		now := map[string]bool{}
		for _, cc := range cfg.Certs {
			key := peerconf.CertKey(cc)
			now[key] = true
			if !has(key) {
				cache = append(cache, cached{cc, group})
				group++
			}
		}
		for _, st := range slices.Sorted(maps.Keys(cfg.Stores)) {
			if d := cfg.Stores[st]; d != nil {
				key := peerconf.CertKey(*d)
				now[key] = true
				if !has(key) {
					cache = append(cache, cached{*d, group})
				}
			}
		}
		group++
		cache = slices.DeleteFunc(cache, func(e cached) bool { return !now[peerconf.CertKey(e.cc)] })
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
		if k := peerconf.CertKey(cc); !seen[k] {
			seen[k] = true
			out = append(out, cached{cc, group})
		}
	}
	for i, cc := range cfg.Certs {
		if all || peerconf.InStore(cc, store) {
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
func certmagicModel(c *conformance.Case, on peerconf.Features) []string {
	held := &c.Configs[c.Held]
	if !peerconf.Declares(held, c.Store) {
		return []string{peerconf.KeyUnknownStore}
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
			key := peerconf.CertKey(e.cc)
			if on.Has(devOneCache) || slices.ContainsFunc(cfg.Certs, func(cc conformance.CaseCert) bool {
				return peerconf.CertKey(cc) == key && peerconf.InStore(cc, c.Store)
			}) {
				members = append(members, e)
			}
		}
	}
	names, norm := peerconf.MatchNames, certstore.NormalizeServerName
	if on.Has(devIPSpelling) {
		names, norm = peerconf.RawNames, strings.ToLower
	}
	groups := func(es []cached) [][]peerconf.Candidate {
		var gs [][]peerconf.Candidate
		for i, e := range es {
			cand := peerconf.Candidate{Key: peerconf.CertKey(e.cc), Names: names(e.cc)}
			if i > 0 && es[i-1].group == e.group {
				gs[len(gs)-1] = append(gs[len(gs)-1], cand)
			} else {
				gs = append(gs, []peerconf.Candidate{cand})
			}
		}
		return gs
	}
	if keys := peerconf.Lookup(groups(members), norm(c.SNI), true); keys != nil {
		return keys
	}
	if on.Has(devIDNA) && c.SNI != "" {
		ascii, err := idna.Lookup.ToASCII(strings.TrimSpace(c.SNI))
		if err != nil {
			return []string{peerconf.KeyIDNAError}
		}
		if !certmagic.SubjectQualifiesForCert(ascii) {
			return []string{peerconf.KeyNotAllowed}
		}
	}
	d := held.Stores[c.Store]
	if d == nil || !on.Has(devDefaultByName) {
		return []string{peerconf.DefaultKey(held, c.Store)}
	}
	// The default's name, as the adapter gives it (firstName), looked up
	// exactly among the cached certificates (with one cache for all stores,
	// all of them; otherwise the store's own and its default).
	name := firstCaseName(*d)
	pool := members
	if !on.Has(devOneCache) {
		pool = append(slices.Clone(members), cached{*d, -1})
	} else if !on.Has(devFirstCached) && !slices.ContainsFunc(pool, func(e cached) bool { return peerconf.CertKey(e.cc) == peerconf.CertKey(*d) }) {
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
	return []string{peerconf.KeyOtherError}
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
		return peerconf.RawNames(conformance.CaseCert{IPs: cc.IPs[:1]})[0]
	}
	return ""
}

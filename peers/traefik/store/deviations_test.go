package store

import (
	"slices"
	"sort"
	"strings"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
	"github.com/certbench/certbench/peers/internal/peerconf"
)

// The documented deviations of Traefik's matching (peers/README.md), in the
// order the differential pass attributes a divergence to them.
const (
	// devIPSpelling: an IP SNI and an IP common name are only lowercased,
	// never put in canonical form, so another spelling of an address does
	// not match.
	devIPSpelling = iota
	// devSortedTieBreak: among the certificates of a store that match,
	// Traefik serves the one whose SAN key (its sorted, lowercased names
	// joined with ",") sorts last, not the first configured; of certificates
	// with the same SAN key it keeps only the first configured.
	devSortedTieBreak
	// devWildcardBeforeExact: Traefik tries each SAN key, in that order,
	// for an exact or a wildcard match at once, so a certificate whose key
	// sorts later and matches by wildcard wins over one matching exactly.
	devWildcardBeforeExact
)

// deviations are the Known deviations of the traefik store, for the
// differential pass.
var deviations = peerconf.Deviations(traefikModel,
	"IP literals only lowercased",
	"tie-break by reverse-sorted SAN key",
	"wildcard before exact in SAN key order",
)

// sanKey is the key Traefik files a certificate under in a store
// (parseCertificate, then appendCertificate): the lowercased common name,
// the DNS names and IP addresses that differ from the common name as
// written, lowercased, sorted and joined with ",".
func sanKey(cc conformance.CaseCert) string {
	var sans []string
	if cc.CommonName != "" {
		sans = append(sans, strings.ToLower(cc.CommonName))
	}
	for _, n := range cc.DNSNames {
		if n != cc.CommonName {
			sans = append(sans, strings.ToLower(n))
		}
	}
	for _, ip := range peerconf.RawNames(conformance.CaseCert{IPs: cc.IPs}) {
		if ip != cc.CommonName {
			sans = append(sans, ip)
		}
	}
	sort.Strings(sans)
	return strings.Join(sans, ",")
}

// traefikModel is Traefik's lookup (CertificateStore.GetBestCertificate
// behind Manager.Get's GetCertificate) with the deviations in on, and
// certstore.Match's rules for the others.
func traefikModel(c *conformance.Case, on peerconf.Features) []string {
	cfg := &c.Configs[c.Held]
	if !peerconf.Declares(cfg, c.Store) {
		return []string{peerconf.KeyUnknownStore}
	}
	names, sni := peerconf.MatchNames, certstore.NormalizeServerName(c.SNI)
	if on.Has(devIPSpelling) {
		names, sni = peerconf.RawNames, strings.ToLower(c.SNI)
	}
	type entry struct {
		key  string
		cand peerconf.Candidate
	}
	var es []entry
	for _, cc := range cfg.Certs {
		if !peerconf.InStore(cc, c.Store) {
			continue
		}
		k := sanKey(cc)
		if on.Has(devSortedTieBreak) && slices.ContainsFunc(es, func(e entry) bool { return e.key == k }) {
			continue // appendCertificate skips a second certificate for a key
		}
		es = append(es, entry{k, peerconf.Candidate{Key: peerconf.CertKey(cc), Names: names(cc)}})
	}
	if on.Has(devSortedTieBreak) {
		slices.SortStableFunc(es, func(a, b entry) int { return strings.Compare(b.key, a.key) })
	}
	groups := make([][]peerconf.Candidate, len(es))
	for i, e := range es {
		groups[i] = []peerconf.Candidate{e.cand}
	}
	if keys := peerconf.Lookup(groups, sni, !on.Has(devWildcardBeforeExact)); keys != nil {
		return keys
	}
	return []string{peerconf.DefaultKey(cfg, c.Store)}
}

package store

import (
	"slices"
	"sort"
	"strings"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
	"github.com/certbench/certbench/peers/internal/peermodel"
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

// The deviations are declared with the store's registration, so that every
// differential pass on it knows them: the peer's own test and
// "certbench conformance --stores traefik".
func init() { conformance.Declare(Name, deviations...) }

// deviations are the documented deviations of the traefik store.
var deviations = peermodel.Deviations(traefikModel,
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
	for _, ip := range peermodel.RawNames(conformance.CaseCert{IPs: cc.IPs}) {
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
func traefikModel(c *conformance.Case, on peermodel.Features) []string {
	cfg := &c.Configs[c.Held]
	if !peermodel.Declares(cfg, c.Store) {
		return []string{peermodel.KeyUnknownStore}
	}
	names, sni := peermodel.MatchNames, certstore.NormalizeServerName(c.SNI)
	if on.Has(devIPSpelling) {
		names, sni = peermodel.RawNames, strings.ToLower(c.SNI)
	}
	type entry struct {
		key  string
		cand peermodel.Candidate
	}
	var es []entry
	for _, cc := range cfg.Certs {
		if !peermodel.InStore(cc, c.Store) {
			continue
		}
		k := sanKey(cc)
		if on.Has(devSortedTieBreak) && slices.ContainsFunc(es, func(e entry) bool { return e.key == k }) {
			continue // appendCertificate skips a second certificate for a key
		}
		es = append(es, entry{k, peermodel.Candidate{Key: peermodel.CertKey(cc), Names: names(cc)}})
	}
	if on.Has(devSortedTieBreak) {
		slices.SortStableFunc(es, func(a, b entry) int { return strings.Compare(b.key, a.key) })
	}
	groups := make([][]peermodel.Candidate, len(es))
	for i, e := range es {
		groups[i] = []peermodel.Candidate{e.cand}
	}
	if keys := peermodel.Lookup(groups, sni, !on.Has(devWildcardBeforeExact)); keys != nil {
		return keys
	}
	return []string{peermodel.DefaultKey(cfg, c.Store)}
}

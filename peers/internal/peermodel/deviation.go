// Package peermodel turns a model of a peer store's lookup into the
// conformance deviations the peer declares (conformance.Declare): each
// documented deviation is a switch of the model, and a divergence is
// explained only when the model gives exactly what the store served.
// It is non-test code because the deviations travel with the peer's
// registration, so that "certbench conformance --stores PEER" knows them.
package peermodel

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
)

// Features is a set of a peer's documented deviations, one bit each (bit i
// is the i-th name given to [Deviations]).
type Features uint64

// Has reports whether f includes deviation i.
func (f Features) Has(i int) bool { return f&(1<<i) != 0 }

// Model says what a peer serves for a differential case when the
// deviations in on are in effect: the keys ([AnswerKey]) of the acceptable
// answers (more than one where the peer's order is unspecified, e.g. a
// map's). With on == 0 it must give what certstore.Match gives.
type Model func(c *conformance.Case, on Features) []string

// Deviations turns a model of a peer's documented deviations into the
// suite's Known deviations. The deviation named names[i] explains a
// divergence of a lookup when
//
//   - the model without any deviation agrees with certstore.Match on the
//     case (the model is right about the contract there),
//   - the model with all of them gives exactly what the store gave, and
//   - i is the first deviation, in the order of names, that the model
//     needs to give it (with deviations 0..i-1 it gives something else,
//     with 0..i it gives the store's answer).
//
// So each divergence is counted under one name, and one that the modelled
// behaviour does not produce (a new bug, or an undocumented behaviour) is
// explained by none and fails.
func Deviations(model Model, names ...string) []conformance.Deviation {
	all := Features(1)<<len(names) - 1
	claim := func(d *conformance.Divergence) int {
		if d.Via != "Store.Certificate" && d.Via != "Current().Certificate" {
			return -1
		}
		c := &d.Case
		got := AnswerKey(c, d.Got)
		if !slices.Contains(model(c, 0), AnswerKey(c, d.Want)) || !slices.Contains(model(c, all), got) {
			return -1
		}
		for i := range names {
			if slices.Contains(model(c, Features(1)<<(i+1)-1), got) {
				return i
			}
		}
		return -1
	}
	ds := make([]conformance.Deviation, len(names))
	for i, name := range names {
		ds[i] = conformance.Deviation{Name: name, Explains: func(d *conformance.Divergence) bool { return claim(d) == i }}
	}
	return ds
}

// AnswerKey names an answer by what was served: the certificate's identity
// (CertKey: names and variant, so a configured default equal to a configured
// certificate is the same answer, as the leaf DER is), "generated", "none",
// or "error:" and what the error is ("unknown-store", "idna" for an IDNA
// conversion failure, "not-allowed" for certmagic's refusal of a name, else
// "other").
func AnswerKey(c *conformance.Case, a conformance.Answer) string {
	switch a.Kind {
	case conformance.AnswerCertificate:
		return CertKey(c.Configs[a.Config].Certs[a.Index])
	case conformance.AnswerDefault:
		return CertKey(*c.Configs[a.Config].Stores[a.Store])
	case conformance.AnswerGenerated:
		return KeyGenerated
	case conformance.AnswerError:
		switch {
		case errors.Is(a.Err, certstore.ErrUnknownStore):
			return KeyUnknownStore
		case a.Err != nil && strings.Contains(a.Err.Error(), "idna: "):
			return KeyIDNAError
		case a.Err != nil && strings.Contains(a.Err.Error(), "is not allowed for server name"):
			return KeyNotAllowed
		}
		return KeyOtherError
	}
	return "none"
}

// The keys of answers that are no configured certificate.
const (
	KeyGenerated    = "generated"
	KeyUnknownStore = "error:unknown-store"
	KeyIDNAError    = "error:idna"
	KeyNotAllowed   = "error:not-allowed"
	KeyOtherError   = "error:other"
)

// CertKey is the identity of a case certificate: equal keys give the same
// leaf (stores do not count).
func CertKey(cc conformance.CaseCert) string {
	return fmt.Sprintf("%q|%q|%q|%d", cc.CommonName, cc.DNSNames, cc.IPs, cc.Variant)
}

// MatchNames are the names certstore.Names gives the certificate issued for
// cc: an IP common name and IP SANs in canonical (unmapped) form, the rest
// lowercased.
func MatchNames(cc conformance.CaseCert) []string {
	var ns []string
	if cn := cc.CommonName; cn != "" {
		if a, err := netip.ParseAddr(cn); err == nil {
			ns = append(ns, a.Unmap().String())
		} else {
			ns = append(ns, strings.ToLower(cn))
		}
	}
	for _, n := range cc.DNSNames {
		ns = append(ns, strings.ToLower(n))
	}
	return append(ns, ipSANs(cc)...)
}

// RawNames are the names most proxies index a certificate under: the
// common name and DNS SANs only lowercased, the IP SANs as net.IP.String
// writes them (canonical; a v4-mapped address as IPv4).
func RawNames(cc conformance.CaseCert) []string {
	var ns []string
	if cc.CommonName != "" {
		ns = append(ns, strings.ToLower(cc.CommonName))
	}
	for _, n := range cc.DNSNames {
		ns = append(ns, strings.ToLower(n))
	}
	return append(ns, ipSANs(cc)...)
}

func ipSANs(cc conformance.CaseCert) []string {
	var ns []string
	for _, s := range cc.IPs {
		if a, err := netip.ParseAddr(s); err == nil {
			ns = append(ns, a.WithZone("").Unmap().String())
		}
	}
	return ns
}

// Candidate is a certificate a model matches an SNI against.
type Candidate struct {
	// Key is the certificate's CertKey (or KeyGenerated).
	Key string
	// Names are its names, in the form the SNI is compared with.
	Names []string
}

// Lookup returns the keys of the first group of candidates holding a
// certificate for sni (already normalised as the model's peer does): with
// exactFirst, an exact name in any group before a wildcard in any; without,
// the first group with either. Wildcards are certstore.Match's: "*." and
// the SNI's parent, for an SNI that has one and is no IP address. It
// returns nil when nothing matches.
func Lookup(groups [][]Candidate, sni string, exactFirst bool) []string {
	if sni == "" {
		return nil
	}
	wild := ""
	if p, ok := certstore.WildcardParent(sni); ok {
		if _, err := netip.ParseAddr(sni); err != nil {
			wild = "*." + p
		}
	}
	find := func(exact, wildcard bool) []string {
		for _, g := range groups {
			var keys []string
			for _, c := range g {
				if (exact && slices.Contains(c.Names, sni)) || (wildcard && wild != "" && slices.Contains(c.Names, wild)) {
					keys = append(keys, c.Key)
				}
			}
			if keys != nil {
				return keys
			}
		}
		return nil
	}
	if exactFirst {
		if k := find(true, false); k != nil {
			return k
		}
		return find(false, true)
	}
	return find(true, true)
}

// InStore reports whether a case certificate belongs to store.
func InStore(cc conformance.CaseCert, store string) bool {
	if len(cc.Stores) == 0 {
		return store == certstore.DefaultStore
	}
	return slices.Contains(cc.Stores, store)
}

// Declares reports whether cfg has store.
func Declares(cfg *conformance.CaseConfig, store string) bool {
	if store == certstore.DefaultStore {
		return true
	}
	_, ok := cfg.Stores[store]
	return ok
}

// DefaultKey is what a miss in store gets from configuration cfg: its
// configured default, or KeyGenerated.
func DefaultKey(cfg *conformance.CaseConfig, store string) string {
	if d := cfg.Stores[store]; d != nil {
		return CertKey(*d)
	}
	return KeyGenerated
}

package certstore

import (
	"crypto/x509"
	"net"
	"net/netip"
	"slices"
	"strings"
)

// Names returns the names a leaf is served for: its common name (if any),
// DNS names and IP addresses, without duplicates, in that order; IPs in
// canonical form, the rest lowercased as [NormalizeServerName] does an SNI.
func Names(leaf *x509.Certificate) []string {
	return NamesFrom(leaf.Subject.CommonName, leaf.DNSNames, leaf.IPAddresses)
}

// NamesFrom is [Names] from the fields it reads, for a store that parses
// the DER itself.
func NamesFrom(commonName string, dnsNames []string, ips []net.IP) []string {
	names := make([]string, 0, 1+len(dnsNames)+len(ips))
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if commonName != "" {
		if addr, err := netip.ParseAddr(commonName); err == nil {
			add(addr.Unmap().String())
		} else {
			add(strings.ToLower(commonName))
		}
	}
	for _, n := range dnsNames {
		add(strings.ToLower(n))
	}
	for _, ip := range ips {
		if addr, ok := netip.AddrFromSlice(ip); ok {
			add(addr.Unmap().String())
		}
	}
	return names
}

// NormalizeServerName returns an SNI as names are compared: an IP address
// in canonical (unmapped) form, else strings.ToLower, which lowers
// non-ASCII too (Kelvin sign to "k"). It allocates only on a change.
func NormalizeServerName(sni string) string {
	if maybeIP(sni) {
		if addr, err := netip.ParseAddr(sni); err == nil {
			if s := addr.Unmap().String(); s != sni {
				return s
			}
			return sni
		}
	}
	return strings.ToLower(sni) // sni itself when nothing changes
}

// maybeIP reports whether s could be an IP literal, sparing host names a
// failed netip.ParseAddr (which allocates).
func maybeIP(s string) bool {
	if s == "" {
		return false
	}
	return strings.IndexByte(s, ':') >= 0 || strings.Trim(s, ".0123456789") == ""
}

// WildcardParent returns the name a wildcard for sni is indexed under
// ("a.example.com": "example.com"); false for a single label.
func WildcardParent(sni string) (string, bool) {
	i := strings.IndexByte(sni, '.')
	if i <= 0 || i == len(sni)-1 {
		return "", false
	}
	return sni[i+1:], true
}

// Match is the reference implementation of the lookup rules: given each
// certificate's Names in configuration order and an SNI, the index of the
// certificate to serve, or -1 for the store's default.
func Match(names [][]string, sni string) int {
	sni = NormalizeServerName(sni)
	if sni == "" {
		return -1
	}
	if i := slices.IndexFunc(names, func(ns []string) bool { return slices.Contains(ns, sni) }); i >= 0 {
		return i
	}
	parent, ok := WildcardParent(sni)
	if !ok {
		return -1
	}
	if maybeIP(sni) {
		if _, err := netip.ParseAddr(sni); err == nil {
			return -1
		}
	}
	want := "*." + parent
	return slices.IndexFunc(names, func(ns []string) bool { return slices.Contains(ns, want) })
}

// FirstName returns the first Name of the pair's first certificate, or ""
// when it does not parse; for error messages, it never panics.
func (p *KeyPair) FirstName() (name string) {
	defer func() {
		if recover() != nil {
			name = ""
		}
	}()
	ders := AppendCertificateDERs(nil, p.CertPEM)
	if len(ders) == 0 {
		return ""
	}
	leaf, err := x509.ParseCertificate(ders[0])
	if err != nil {
		return ""
	}
	if names := Names(leaf); len(names) > 0 {
		return names[0]
	}
	return ""
}

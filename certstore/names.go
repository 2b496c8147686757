package certstore

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/netip"
	"strings"
)

// Names returns the names a leaf certificate is served for: its common name
// (when it is not empty), its DNS names and its IP addresses, without
// duplicates, in that order. A common name that is an IP address is put in
// canonical form; every other name is lowercased with strings.ToLower, as
// [NormalizeServerName] lowercases an SNI, so that a name and an SNI that
// differ only in case (ASCII or not) are equal after both are normalised.
func Names(leaf *x509.Certificate) []string {
	return NamesFrom(leaf.Subject.CommonName, leaf.DNSNames, leaf.IPAddresses)
}

// NamesFrom is [Names] from the three fields it reads, for a store that
// reads them from the certificate's DER itself: the subject's common name,
// the DNS names and the IP addresses of its subject alternative names.
func NamesFrom(commonName string, dnsNames []string, ips []net.IP) []string {
	names := make([]string, 0, 1+len(dnsNames)+len(ips))
	add := func(n string) {
		for _, have := range names {
			if have == n {
				return
			}
		}
		names = append(names, n)
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

// NormalizeServerName returns the form of an SNI value that names are
// compared in: an IP address in canonical form (netip.Addr.String of the
// unmapped address), anything else lowercased with strings.ToLower, which
// lowers non-ASCII letters too (the Kelvin sign U+212A gives an ASCII "k")
// and replaces invalid UTF-8 with U+FFFD, as [Names] lowercases
// certificate names. It allocates only when the name has to change.
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

// maybeIP reports whether s could be an IP address literal: it has a colon
// (IPv6) or only digits and dots (IPv4). It spares host names a failed
// netip.ParseAddr, which allocates its error.
func maybeIP(s string) bool {
	if s == "" {
		return false
	}
	if strings.IndexByte(s, ':') >= 0 {
		return true
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '.' && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// WildcardParent returns the name a wildcard certificate for sni is indexed
// under: "a.example.com" gives "example.com" (covered by "*.example.com").
// It reports false for names with a single label.
func WildcardParent(sni string) (string, bool) {
	i := strings.IndexByte(sni, '.')
	if i <= 0 || i == len(sni)-1 {
		return "", false
	}
	return sni[i+1:], true
}

// Match is the reference implementation of the package's lookup rules. Given
// each configured certificate's names (as returned by Names) in configuration
// order and an SNI value, it returns the index of the certificate to serve, or
// -1 when the store's default certificate is to be served.
func Match(names [][]string, sni string) int {
	sni = NormalizeServerName(sni)
	if sni == "" {
		return -1
	}
	for i, ns := range names {
		for _, n := range ns {
			if n == sni {
				return i
			}
		}
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
	for i, ns := range names {
		for _, n := range ns {
			if n == want {
				return i
			}
		}
	}
	return -1
}

// FirstName returns the first name (as Names gives them) of the first
// certificate in the pair's PEM chain, or "" when that does not parse. It
// is meant for error messages, so it never panics.
func (p *KeyPair) FirstName() (name string) {
	defer func() {
		if recover() != nil {
			name = ""
		}
	}()
	rest := p.CertPEM
	for {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return ""
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		leaf, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return ""
		}
		if names := Names(leaf); len(names) > 0 {
			return names[0]
		}
		return ""
	}
}

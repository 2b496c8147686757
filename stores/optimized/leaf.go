package optimized

import (
	"bytes"
	encasn1 "encoding/asn1"
	"math"
	"net"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/cryptobyte"
	"golang.org/x/crypto/cryptobyte/asn1"
)

// The quick read of a leaf.
//
// parse needs three things from a leaf: that crypto/x509 accepts it, its
// names and its public key. readLeaf reads them without
// x509.ParseCertificate's allocations for leaves inside the profile of
// ordinary CA-issued server certificates, checking every rule crypto/x509
// applies there; outside it reports !ok and parse uses crypto/x509, so
// what the store accepts, and every error, stay crypto/x509's.
//
// The profile: version 3, a non-negative serial, one signature algorithm
// inside and out, Printable/UTF8/IA5 name values, no unique identifiers,
// no repeated extension, and of the extensions crypto/x509 interprets only
// key usage, basic constraints, SANs (DNS, IP, e-mail), key identifiers,
// extended key usage, policies, CRL distribution points and AIA of URIs.
// FuzzReadLeaf checks it against x509.ParseCertificate.

// leafFacts is what readLeaf finds in a leaf.
type leafFacts struct {
	// commonName is Subject.CommonName's (the last); dnsNames and ips the
	// SANs (sub-slices of the DER).
	commonName string
	dnsNames   []string
	ips        []net.IP
	spki       []byte // the SubjectPublicKeyInfo DER (a sub-slice)
}

// OIDs readLeaf tells apart, as DER contents.
var (
	oidCommonName = []byte{0x55, 0x04, 0x03}                               // 2.5.4.3
	oidCEPrefix   = []byte{0x55, 0x1d}                                     // 2.5.29
	oidAIA        = []byte{0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01} // 1.3.6.1.5.5.7.1.1
)

// The id-ce extensions (2.5.29.N) of the profile, by N.
const (
	ceSubjectKeyID   = 14
	ceKeyUsage       = 15
	ceSubjectAltName = 17
	ceBasicConstr    = 19
	ceCRLDistPoints  = 31
	ceCertPolicies   = 32
	ceAuthorityKeyID = 35
	ceExtKeyUsage    = 37
)

// readLeaf reads a leaf DER; ok is false outside the profile.
func readLeaf(der []byte) (f leafFacts, ok bool) {
	in := cryptobyte.String(der)
	var cert, tbs, sigAI, outerAI cryptobyte.String
	var sig encasn1.BitString
	if !in.ReadASN1(&cert, asn1.SEQUENCE) || !in.Empty() ||
		!cert.ReadASN1(&tbs, asn1.SEQUENCE) ||
		!cert.ReadASN1(&outerAI, asn1.SEQUENCE) ||
		!cert.ReadASN1BitString(&sig) || !cert.Empty() {
		return f, false
	}
	// The version, explicitly 3 (the integer 2), and the serial.
	var version, serial cryptobyte.String
	if !tbs.ReadASN1(&version, asn1.Tag(0).Constructed().ContextSpecific()) ||
		!bytes.Equal(version, []byte{0x02, 0x01, 0x02}) ||
		!tbs.ReadASN1(&serial, asn1.INTEGER) || !nonNegativeInteger(serial) {
		return f, false
	}
	if !tbs.ReadASN1(&sigAI, asn1.SEQUENCE) || !bytes.Equal(sigAI, outerAI) || !algorithmIdentifier(sigAI) {
		return f, false
	}
	var issuer, validity, subject cryptobyte.String
	if !tbs.ReadASN1(&issuer, asn1.SEQUENCE) || !readName(issuer, nil) ||
		!tbs.ReadASN1(&validity, asn1.SEQUENCE) || !readValidity(validity) ||
		!tbs.ReadASN1(&subject, asn1.SEQUENCE) || !readName(subject, &f.commonName) {
		return f, false
	}
	var spki cryptobyte.String
	if !tbs.ReadASN1Element(&spki, asn1.SEQUENCE) {
		return f, false
	}
	f.spki = spki
	if tbs.Empty() {
		return f, true
	}
	var exts cryptobyte.String
	if !tbs.ReadASN1(&exts, asn1.Tag(3).Constructed().ContextSpecific()) || !tbs.Empty() ||
		!exts.ReadASN1(&exts, asn1.SEQUENCE) || !exts.Empty() && !readExtensions(exts, &f) {
		return f, false
	}
	return f, true
}

// only returns the contents of v when v is exactly one element with tag
// and nothing after it.
func only(v cryptobyte.String, tag asn1.Tag) (cryptobyte.String, bool) {
	var out cryptobyte.String
	return out, v.ReadASN1(&out, tag) && v.Empty()
}

// oidSet holds up to 16 OIDs of one list, to refuse a repeated one.
type oidSet struct {
	oids [16][]byte
	n    int
}

// add reports whether oid is not in the set yet and there was room for it.
func (s *oidSet) add(oid []byte) bool {
	if s.n == len(s.oids) {
		return false
	}
	for _, o := range s.oids[:s.n] {
		if bytes.Equal(o, oid) {
			return false
		}
	}
	s.oids[s.n] = oid
	s.n++
	return true
}

// readExtensions checks the extensions (the contents of their SEQUENCE)
// and collects the SAN names into f.
func readExtensions(exts cryptobyte.String, f *leafFacts) bool {
	var seen oidSet
	for !exts.Empty() {
		var ext, oid, value cryptobyte.String
		critical := false
		if !exts.ReadASN1(&ext, asn1.SEQUENCE) || !ext.ReadASN1(&oid, asn1.OBJECT_IDENTIFIER) || !validOID(oid) {
			return false
		}
		if ext.PeekASN1Tag(asn1.BOOLEAN) && !ext.ReadASN1Boolean(&critical) {
			return false
		}
		if !ext.ReadASN1(&value, asn1.OCTET_STRING) || !ext.Empty() || !seen.add(oid) {
			return false
		}
		switch {
		case len(oid) == 3 && bytes.HasPrefix(oid, oidCEPrefix):
			if !readCEExtension(oid[2], critical, value, f) {
				return false
			}
		case bytes.Equal(oid, oidAIA):
			if critical || !readAIA(value) {
				return false
			}
		case bytes.HasPrefix(oid, oidCEPrefix) || bytes.HasPrefix(oid, oidAIA[:7]):
			// Other id-ce and id-pe extensions crypto/x509 interprets
			// some of; not in the profile.
			return false
		default:
			// An extension crypto/x509 does not interpret: it keeps
			// the bytes (and lists it as unhandled if critical).
		}
	}
	return true
}

// readCEExtension checks the value of the id-ce extension 2.5.29.n.
func readCEExtension(n byte, critical bool, v cryptobyte.String, f *leafFacts) bool {
	switch n {
	case ceKeyUsage:
		var bits encasn1.BitString
		return v.ReadASN1BitString(&bits) && v.Empty()
	case ceBasicConstr:
		seq, ok := only(v, asn1.SEQUENCE)
		if !ok {
			return false
		}
		var isCA bool
		if seq.PeekASN1Tag(asn1.BOOLEAN) && !seq.ReadASN1Boolean(&isCA) {
			return false
		}
		if seq.PeekASN1Tag(asn1.INTEGER) {
			var pathLen uint64
			if !seq.ReadASN1Integer(&pathLen) || pathLen > math.MaxInt32 {
				return false
			}
		}
		return seq.Empty()
	case ceSubjectAltName:
		return readSANs(v, f)
	case ceSubjectKeyID:
		_, ok := only(v, asn1.OCTET_STRING)
		return !critical && ok
	case ceAuthorityKeyID:
		seq, ok := only(v, asn1.SEQUENCE)
		if critical || !ok {
			return false
		}
		_, keyID := only(seq, asn1.Tag(0).ContextSpecific())
		return seq.Empty() || keyID
	case ceExtKeyUsage:
		seq, ok := only(v, asn1.SEQUENCE)
		if !ok {
			return false
		}
		for !seq.Empty() {
			var oid cryptobyte.String
			if !seq.ReadASN1(&oid, asn1.OBJECT_IDENTIFIER) || !validOID(oid) {
				return false
			}
		}
		return true
	case ceCertPolicies:
		return readPolicies(v)
	case ceCRLDistPoints:
		return readCRLDistPoints(v)
	}
	return false
}

// readSANs checks a SubjectAltName value and collects its DNS names and IP
// addresses: [1] rfc822Name and [2] dNSName (IA5) and [7] iPAddress (4 or
// 16 bytes); any other tag ends the profile.
func readSANs(v cryptobyte.String, f *leafFacts) bool {
	seq, ok := only(v, asn1.SEQUENCE)
	if !ok {
		return false
	}
	for !seq.Empty() {
		var name cryptobyte.String
		var tag asn1.Tag
		if !seq.ReadAnyASN1(&name, &tag) {
			return false
		}
		switch tag {
		case asn1.Tag(1).ContextSpecific():
			if !ascii(name) {
				return false
			}
		case asn1.Tag(2).ContextSpecific():
			if !ascii(name) {
				return false
			}
			f.dnsNames = append(f.dnsNames, string(name))
		case asn1.Tag(7).ContextSpecific():
			if len(name) != net.IPv4len && len(name) != net.IPv6len {
				return false
			}
			f.ips = append(f.ips, net.IP(name))
		default:
			return false
		}
	}
	return true
}

// readPolicies checks a certificatePolicies value: policy OIDs, none
// twice (crypto/x509 rejects a repeated one); qualifiers are not read.
func readPolicies(v cryptobyte.String) bool {
	seq, ok := only(v, asn1.SEQUENCE)
	if !ok {
		return false
	}
	var seen oidSet
	for !seq.Empty() {
		var info, oid cryptobyte.String
		if !seq.ReadASN1(&info, asn1.SEQUENCE) || !info.ReadASN1(&oid, asn1.OBJECT_IDENTIFIER) || !validOID(oid) || !seen.add(oid) {
			return false
		}
	}
	return true
}

// readCRLDistPoints checks a cRLDistributionPoints value of the common
// form: each point a full name of URIs and nothing else.
func readCRLDistPoints(v cryptobyte.String) bool {
	seq, ok := only(v, asn1.SEQUENCE)
	if !ok {
		return false
	}
	for !seq.Empty() {
		var point cryptobyte.String
		if !seq.ReadASN1(&point, asn1.SEQUENCE) {
			return false
		}
		fullNameTag := asn1.Tag(0).Constructed().ContextSpecific() // [0] distributionPoint, then [0] fullName
		name, ok := only(point, fullNameTag)
		if !ok {
			return false
		}
		full, ok := only(name, fullNameTag)
		if !ok {
			return false
		}
		for !full.Empty() {
			var uri cryptobyte.String
			if !full.ReadASN1(&uri, asn1.Tag(6).ContextSpecific()) {
				return false
			}
		}
	}
	return true
}

// readAIA checks an authorityInfoAccess value of the common form: each
// access description a method OID and a URI.
func readAIA(v cryptobyte.String) bool {
	seq, ok := only(v, asn1.SEQUENCE)
	if !ok {
		return false
	}
	for !seq.Empty() {
		var desc, method, uri cryptobyte.String
		if !seq.ReadASN1(&desc, asn1.SEQUENCE) ||
			!desc.ReadASN1(&method, asn1.OBJECT_IDENTIFIER) || !validOID(method) ||
			!desc.ReadASN1(&uri, asn1.Tag(6).ContextSpecific()) || !desc.Empty() {
			return false
		}
	}
	return true
}

// readName checks a Name's contents: attributes of Printable, UTF8 or IA5
// values crypto/x509 accepts; cn, when not nil, gets the last common name.
func readName(name cryptobyte.String, cn *string) bool {
	for !name.Empty() {
		var set cryptobyte.String
		if !name.ReadASN1(&set, asn1.SET) {
			return false
		}
		for !set.Empty() {
			var atv, oid, value cryptobyte.String
			var tag asn1.Tag
			if !set.ReadASN1(&atv, asn1.SEQUENCE) ||
				!atv.ReadASN1(&oid, asn1.OBJECT_IDENTIFIER) || !validOID(oid) ||
				!atv.ReadAnyASN1(&value, &tag) || !atv.Empty() {
				return false
			}
			switch tag {
			case asn1.PrintableString:
				for _, b := range value {
					if !printable(b) {
						return false
					}
				}
			case asn1.UTF8String:
				if !utf8.Valid(value) {
					return false
				}
			case asn1.IA5String:
				if !ascii(value) {
					return false
				}
			default:
				return false
			}
			if cn != nil && bytes.Equal(oid, oidCommonName) {
				*cn = string(value)
			}
		}
	}
	return true
}

// readValidity checks a Validity's two times as crypto/x509 reads them.
func readValidity(v cryptobyte.String) bool {
	for range 2 {
		var t time.Time
		switch {
		case v.PeekASN1Tag(asn1.UTCTime):
			if !v.ReadASN1UTCTime(&t) {
				return false
			}
		case v.PeekASN1Tag(asn1.GeneralizedTime):
			if !v.ReadASN1GeneralizedTime(&t) {
				return false
			}
		default:
			return false
		}
	}
	return v.Empty()
}

// algorithmIdentifier checks an AlgorithmIdentifier's contents: an OID and
// at most one parameters element.
func algorithmIdentifier(ai cryptobyte.String) bool {
	var oid, params cryptobyte.String
	var tag asn1.Tag
	if !ai.ReadASN1(&oid, asn1.OBJECT_IDENTIFIER) || !validOID(oid) {
		return false
	}
	return ai.Empty() || ai.ReadAnyASN1Element(&params, &tag) && ai.Empty()
}

// nonNegativeInteger reports whether b is the minimal two's-complement
// encoding of an integer >= 0, as cryptobyte requires of an INTEGER.
func nonNegativeInteger(b []byte) bool {
	if len(b) == 0 || b[0]&0x80 != 0 {
		return false
	}
	return len(b) == 1 || b[0] != 0 || b[1]&0x80 != 0
}

// validOID reports whether cryptobyte and crypto/x509 both read b (an OID's
// contents): each arc minimal base 128 and (stricter) in at most 4 bytes.
func validOID(b []byte) bool {
	if len(b) == 0 || b[len(b)-1]&0x80 != 0 {
		return false
	}
	arcLen := 0
	for _, c := range b {
		if arcLen == 0 && c == 0x80 {
			return false
		}
		arcLen++
		if arcLen > 4 {
			return false
		}
		if c&0x80 == 0 {
			arcLen = 0
		}
	}
	return true
}

// printable reports whether b may appear in a PrintableString as
// crypto/x509 reads one (it also lets '*' and '&' through).
func printable(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	switch b {
	case ' ', '\'', '(', ')', '+', ',', '-', '.', '/', ':', '=', '?', '*', '&':
		return true
	}
	return false
}

// ascii reports whether every byte of b is below 0x80 (an IA5String).
func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

package certgen

import (
	"bytes"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/certbench/certbench/certstore"
)

// FromSource is the PoolSpec.Key of a pool made by Source.Pool: the keys
// are the loaded certificates' own, of whatever types they have.
const FromSource KeyType = "source"

// SourceDomain is the PoolSpec.Domain of a pool made by Source.Pool: the
// parent domain of the names scenarios make up (configured defaults,
// lookups that must miss). It is a reserved name (RFC 2606) that no real
// certificate is issued for.
const SourceDomain = "certbench.invalid"

// Pool returns the source's certificates, unchanged, as a Pool (Spec.Key
// FromSource, Spec.Domain SourceDomain, Spec.Seed from the fingerprint),
// so that scenarios run on them as on generated pools. Its Issuer is a
// generated Ed25519 authority, since the user's key is not at hand;
// Renewed signs with it a new leaf over the original's public key (the
// PEM key still matches, so a store's parse cost is the same), NotAfter v
// hours later, in a chain of the original's length. The renewed chains do
// not verify up to the user's roots; stores do not verify chains. The
// pool shares the source's byte slices: treat them as read-only.
func (s *Source) Pool() (*Pool, error) {
	if s == nil {
		return nil, errors.New("certgen: no source")
	}
	seed := uint64(0)
	if fp, err := hex.DecodeString(s.fingerprint); err == nil && len(fp) >= 8 {
		seed = binary.BigEndian.Uint64(fp)
	}
	p := &Pool{
		Spec:   PoolSpec{Seed: seed, Count: len(s.Certs), Key: FromSource, MaxSANs: 1, WildcardEvery: -1, Domain: SourceDomain},
		Certs:  make([]Fixture, len(s.Certs)),
		issuer: NewIssuer(seed),
		src:    s,
	}
	for i := range s.Certs {
		c := &s.Certs[i]
		p.Certs[i] = Fixture{Index: i, Names: c.Facts.Names, Pair: c.KeyPair}
		p.Spec.MaxSANs = max(p.Spec.MaxSANs, c.Facts.SANs)
	}
	return p, nil
}

// renewSourced makes version v of loaded certificate i (see Source.Pool).
func (p *Pool) renewSourced(i, v int) (Fixture, error) {
	c := &p.src.Certs[i]
	fail := func(err error) (Fixture, error) {
		return Fixture{}, &SourceError{File: c.File, Line: c.Line, Where: c.Where, Err: fmt.Errorf("renewing certificate %d: %w", i, err)}
	}
	chain := certstore.AppendCertificateDERs(nil, c.CertPEM)
	if len(chain) == 0 {
		return fail(errors.New("no certificate in the chain"))
	}
	leaf, err := x509.ParseCertificate(chain[0])
	if err != nil {
		return fail(err)
	}
	usage := leaf.KeyUsage
	if !leaf.IsCA {
		usage &^= x509.KeyUsageCertSign
	}
	tmpl := &x509.Certificate{
		SerialNumber:          p.renewalSerial(i, v, leaf.SerialNumber),
		RawSubject:            leaf.RawSubject,
		DNSNames:              leaf.DNSNames,
		IPAddresses:           leaf.IPAddresses,
		EmailAddresses:        leaf.EmailAddresses,
		URIs:                  leaf.URIs,
		NotBefore:             leaf.NotBefore,
		NotAfter:              leaf.NotAfter.Add(time.Duration(v) * time.Hour),
		KeyUsage:              usage,
		ExtKeyUsage:           leaf.ExtKeyUsage,
		UnknownExtKeyUsage:    leaf.UnknownExtKeyUsage,
		BasicConstraintsValid: leaf.BasicConstraintsValid,
		IsCA:                  leaf.IsCA,
		MaxPathLen:            leaf.MaxPathLen,
		MaxPathLenZero:        leaf.MaxPathLenZero,
		SubjectKeyId:          leaf.SubjectKeyId,
		OCSPServer:            leaf.OCSPServer,
		IssuingCertificateURL: leaf.IssuingCertificateURL,
		CRLDistributionPoints: leaf.CRLDistributionPoints,
	}
	if !leaf.IsCA {
		tmpl.MaxPathLen, tmpl.MaxPathLenZero = -1, false
	}
	der, err := x509.CreateCertificate(nil, tmpl, p.issuer.cert, leaf.PublicKey, p.issuer.key)
	if err != nil {
		return fail(err)
	}
	var out bytes.Buffer
	_ = pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	if len(chain) > 1 {
		out.Write(p.issuer.certPEM)
		for _, d := range chain[2:] {
			_ = pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: d})
		}
	}
	pair := c.KeyPair
	pair.CertPEM = out.Bytes()
	return Fixture{Index: i, Version: v, Names: c.Facts.Names, Pair: pair}, nil
}

// renewalSerial is a positive 127-bit serial number derived from the
// pool's seed, i and v, never orig.
func (p *Pool) renewalSerial(i, v int, orig *big.Int) *big.Int {
	h := p.issuer.derive("renewal-serial", uint64(i), uint64(v))
	h[0] &= 0x7f
	h[0] |= 0x40
	n := new(big.Int).SetBytes(h[:16])
	if orig != nil && n.Cmp(orig) == 0 {
		n.Add(n, big.NewInt(1))
	}
	return n
}

package certstore

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// SelfSignedValidity is how long a certificate made by [SelfSigned] or
// [SelfSignedKeyPair] is valid, from one hour before it was made (to allow
// for clock skew). A store that keeps its generated default for longer
// should make a new one before this runs out.
const SelfSignedValidity = 365 * 24 * time.Hour

// selfSignedCommonName is the subject of a self-signed certificate made
// without names.
const selfSignedCommonName = "certstore default certificate"

// SelfSigned makes a new self-signed certificate with a fresh ECDSA P-256
// key, the kind of certificate a store serves as its default when the
// configuration names none (see the lookup rules). Each name is an IP address
// literal, which becomes an IP SAN, or else a DNS name, kept as written; the
// first name is also the common name. With no names the certificate has the
// common name "certstore default certificate" and no SANs, so it matches no
// SNI and is only ever served as a default.
//
// The result has Leaf set, is valid for [SelfSignedValidity] and is for
// server authentication. It costs a key generation and a signature, so a
// store should make its generated default once, not on every Update. An
// empty name is an error.
func SelfSigned(names ...string) (*tls.Certificate, error) {
	der, key, err := selfSigned(names)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("certstore: SelfSigned: %w", err)
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// SelfSignedKeyPair is [SelfSigned] in PEM form (the certificate, and the
// key in PKCS#8), as a [Config] holds certificates: for tests, and for
// configured defaults.
func SelfSignedKeyPair(names ...string) (KeyPair, error) {
	der, key, err := selfSigned(names)
	if err != nil {
		return KeyPair{}, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return KeyPair{}, fmt.Errorf("certstore: SelfSignedKeyPair: %w", err)
	}
	return KeyPair{
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// selfSigned makes the DER certificate and key of SelfSigned.
func selfSigned(names []string) ([]byte, *ecdsa.PrivateKey, error) {
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: selfSignedCommonName},
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	for i, n := range names {
		if n == "" {
			return nil, nil, errors.New("certstore: SelfSigned: empty name")
		}
		if i == 0 {
			tmpl.Subject.CommonName = n
		}
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("certstore: SelfSigned: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, fmt.Errorf("certstore: SelfSigned: %w", err)
	}
	tmpl.SerialNumber = serial
	now := time.Now()
	tmpl.NotBefore = now.Add(-time.Hour)
	tmpl.NotAfter = tmpl.NotBefore.Add(SelfSignedValidity)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("certstore: SelfSigned: %w", err)
	}
	return der, key, nil
}

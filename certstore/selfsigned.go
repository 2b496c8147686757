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

// SelfSignedValidity is how long a [SelfSigned] certificate is valid, from
// an hour before it was made (clock skew); a store keeping its default
// longer should make a new one.
const SelfSignedValidity = 365 * 24 * time.Hour

// selfSignedCommonName is the subject of one made without names.
const selfSignedCommonName = "certstore default certificate"

// SelfSigned makes a self-signed server certificate (Leaf set) with a fresh
// ECDSA P-256 key, as a store's generated default. Each name becomes an IP
// or DNS SAN, the first also the common name; with none it matches no SNI.
// It costs a key generation: make it once, not per Update. An empty name
// is an error.
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

// SelfSignedKeyPair is [SelfSigned] in PEM (key in PKCS#8), as a [Config]
// holds it.
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

package naive

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"
)

// DefaultCertCommonName is the common name of a generated default, as Traefik's.
const DefaultCertCommonName = "TRAEFIK DEFAULT CERT"

// defaultCertLifetime is how long a generated default certificate is valid.
const defaultCertLifetime = 365 * 24 * time.Hour

// generateDefaultCertificate makes Traefik's default for a store without
// one: a fresh self-signed RSA-2048 certificate, with its PEM round trip.
func generateDefaultCertificate() (*tls.Certificate, error) {
	var r defaultCertRand
	if _, err := rand.Read(r[:]); err != nil {
		return nil, fmt.Errorf("naive: default certificate: %w", err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("naive: default certificate key: %w", err)
	}
	now := time.Now()
	template := x509.Certificate{
		SerialNumber:          r.serial(),
		Subject:               pkix.Name{CommonName: DefaultCertCommonName},
		DNSNames:              []string{r.hostName()},
		NotBefore:             now,
		NotAfter:              now.Add(defaultCertLifetime),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, &template, &template, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("naive: default certificate: %w", err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("naive: default certificate: %w", err)
	}
	return &cert, nil
}

// defaultCertRand is a default's randomness: 16 bytes of serial, 48 of host name.
type defaultCertRand [48]byte

// serial returns a positive 128-bit serial number.
func (r *defaultCertRand) serial() *big.Int {
	s := new(big.Int).SetBytes(r[:16])
	if s.Sign() == 0 {
		s.SetInt64(1)
	}
	return s
}

// hostName returns "<32 hex>.<32 hex>.traefik.default", as Traefik names it.
func (r *defaultCertRand) hostName() string {
	return hex.EncodeToString(r[16:32]) + "." + hex.EncodeToString(r[32:48]) + ".traefik.default"
}

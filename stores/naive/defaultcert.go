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

// DefaultCertCommonName is the common name of the default certificate the
// model generates for a store with no configured default, as Traefik names
// its own.
const DefaultCertCommonName = "TRAEFIK DEFAULT CERT"

// defaultCertLifetime is how long a generated default certificate is valid.
const defaultCertLifetime = 365 * 24 * time.Hour

// generateDefaultCertificate makes what Traefik serves when a store has no
// default configured: a fresh self-signed RSA-2048 certificate under a
// random "*.traefik.default" host name, with Traefik's costs (the key
// generation, a PEM round trip and a tls.X509KeyPair parse).
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
	// Traefik hands the generated pair on as PEM and parses it like any
	// configured certificate; the model pays for the same round trip.
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("naive: default certificate: %w", err)
	}
	return &cert, nil
}

// defaultCertRand is the randomness of one generated default certificate:
// the first 16 bytes are its serial number, all 48 name its host.
type defaultCertRand [48]byte

// serial returns a positive 128-bit serial number.
func (r *defaultCertRand) serial() *big.Int {
	s := new(big.Int).SetBytes(r[:16])
	if s.Sign() == 0 {
		s.SetInt64(1)
	}
	return s
}

// hostName returns "<32 hex>.<32 hex>.traefik.default", the shape of the
// name on Traefik's generated default certificate.
func (r *defaultCertRand) hostName() string {
	return hex.EncodeToString(r[16:32]) + "." + hex.EncodeToString(r[32:48]) + ".traefik.default"
}

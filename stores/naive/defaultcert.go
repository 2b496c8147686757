package naive

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"math/big"
	"time"
)

// DefaultCertCommonName is the common name of the default certificate the
// model generates for a store with no configured default, as Traefik names
// its own.
const DefaultCertCommonName = "TRAEFIK DEFAULT CERT"

// generateDefaultCertificate models Traefik's generate.DefaultCertificate:
// a random "<hex>.<hex>.traefik.default" name, a new RSA-2048 key, a
// self-signed certificate valid for one year, both PEM-encoded and parsed
// back with tls.X509KeyPair. It runs on every refresh for every store
// without a configured default, and dominates the refresh.
func generateDefaultCertificate() (*tls.Certificate, error) {
	random := make([]byte, 100)
	if _, err := rand.Read(random); err != nil {
		return nil, err
	}
	sum := sha256.Sum256(random)
	z := hex.EncodeToString(sum[:])
	domain := z[:32] + "." + z[32:] + ".traefik.default"

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})

	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: DefaultCertCommonName},
		NotBefore:             now,
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageKeyEncipherment | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		DNSNames:              []string{domain},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})

	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	return &cert, nil
}

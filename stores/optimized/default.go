package optimized

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"time"
)

// Validity of the generated default certificate, and how long before its
// expiry an Update replaces it.
const (
	defaultValidity = 365 * 24 * time.Hour
	defaultRenew    = 30 * 24 * time.Hour
)

// generateDefault makes the self-signed certificate served by stores with
// no configured default, and returns it with the time from which it should
// be replaced.
//
// It uses a P-256 key: generating one takes tens of microseconds, where
// Traefik's RSA-2048 default costs tens to hundreds of milliseconds, which
// Traefik pays on every refresh. Here it is paid once per Store (and once a
// year after that), so the key type matters little for refresh cost; P-256
// also keeps the certificate small and its handshakes cheap. Clients
// reaching it get a certificate they cannot trust, as with any default
// certificate.
func generateDefault(now time.Time) (*entry, time.Time, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, time.Time{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, time.Time{}, err
	}
	notAfter := now.Add(defaultValidity)
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "certbench optimized store default certificate"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, time.Time{}, err
	}
	e := &entry{cert: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}}
	return e, notAfter.Add(-defaultRenew), nil
}

// This file is a fixture of certbench's CI (peers/check-trees.sh): it is
// copied into certmagic trees extracted from the module cache, as a pull
// request would carry a benchmark, so that certbench peer check gates a
// benchmark of certmagic's own that both trees have. It builds against
// certmagic v0.24 and v0.25.

package certmagic

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"testing"
	"time"

	"go.uber.org/zap"
)

// BenchmarkCertbenchGetCertificate looks up one of 100 unmanaged
// certificates through Config.GetCertificate, as a handshake does.
func BenchmarkCertbenchGetCertificate(b *testing.B) {
	var cfg *Config
	cache := NewCache(CacheOptions{
		GetConfigForCert: func(Certificate) (*Config, error) { return cfg, nil },
		Logger:           zap.NewNop(),
	})
	defer cache.Stop()
	cfg = New(cache, Config{OCSP: OCSPConfig{DisableStapling: true}, Logger: zap.NewNop()})
	for i := 0; i < 100; i++ {
		certPEM, keyPEM := certbenchFixtureCert(b, fmt.Sprintf("host-%d.example.com", i))
		if _, err := cfg.CacheUnmanagedCertificatePEMBytes(context.Background(), certPEM, keyPEM, nil); err != nil {
			b.Fatal(err)
		}
	}
	conn, peer := net.Pipe()
	defer conn.Close()
	defer peer.Close()
	hello := &tls.ClientHelloInfo{ServerName: "host-7.example.com", Conn: conn}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cfg.GetCertificate(hello); err != nil {
			b.Fatal(err)
		}
	}
}

// certbenchFixtureCert returns a self-signed P-256 certificate for name,
// PEM-encoded, and its key.
func certbenchFixtureCert(b *testing.B, name string) (certPEM, keyPEM []byte) {
	b.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: name},
		DNSNames:     []string{name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		b.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		b.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}

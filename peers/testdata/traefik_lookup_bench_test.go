// This file is a fixture of certbench's CI (peers/check-trees.sh): it is
// copied into pkg/tls of Traefik trees extracted from the module cache, as
// a pull request would carry a benchmark, so that certbench peer check has
// a benchmark of Traefik's own to gate (Traefik's pkg/tls has none). It
// builds against Traefik v3.6 and v3.7.

package tls

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
	"testing"
	"time"

	"github.com/traefik/traefik/v3/pkg/types"
)

// BenchmarkCertbenchLookupMiss looks up a name that no certificate of a
// store of 100 covers, through the GetCertificate closure Manager.Get
// builds: Traefik walks every SAN key on each miss.
func BenchmarkCertbenchLookupMiss(b *testing.B) {
	certs := make([]*CertAndStores, 100)
	for i := range certs {
		certs[i] = &CertAndStores{Certificate: certbenchFixtureCert(b, fmt.Sprintf("host-%d.example.com", i))}
	}
	m := NewManager(nil)
	m.UpdateConfigs(context.Background(), nil, map[string]Options{DefaultTLSConfigName: DefaultTLSOptions}, certs)
	cfg, err := m.Get(DefaultTLSStoreName, DefaultTLSConfigName)
	if err != nil {
		b.Fatal(err)
	}
	hello := &tls.ClientHelloInfo{ServerName: "www.miss.example.org"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := cfg.GetCertificate(hello); err != nil {
			b.Fatal(err)
		}
	}
}

// certbenchFixtureCert returns a self-signed P-256 certificate for name.
func certbenchFixtureCert(b *testing.B, name string) Certificate {
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
	return Certificate{
		CertFile: types.FileOrContent(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		KeyFile:  types.FileOrContent(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})),
	}
}

package optimized

import (
	"crypto/ecdsa"
	"crypto/tls"
	"crypto/x509"
	"net"
	"testing"
)

type ecdsaKey = ecdsa.PrivateKey

// handshake runs a TLS handshake against a server presenting cert and
// verifies the chain with cert's last certificate as the root.
func handshake(t *testing.T, cert *tls.Certificate) error {
	t.Helper()
	roots := x509.NewCertPool()
	root, err := x509.ParseCertificate(cert.Certificate[len(cert.Certificate)-1])
	if err != nil {
		return err
	}
	roots.AddCert(root)
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		return err
	}
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	srv := tls.Server(c1, &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return cert, nil }})
	cli := tls.Client(c2, &tls.Config{RootCAs: roots, ServerName: leaf.DNSNames[0]})
	errc := make(chan error, 1)
	go func() { errc <- srv.Handshake() }()
	cerr := cli.Handshake()
	serr := <-errc
	if cerr != nil {
		return cerr
	}
	return serr
}

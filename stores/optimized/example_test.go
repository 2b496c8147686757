package optimized_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/certbench/certbench/certgen"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/stores/optimized"
)

func Example() {
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 1, Count: 3})
	if err != nil {
		panic(err)
	}
	s := optimized.New()

	// Every refresh hands over the whole configuration; unchanged
	// certificates are not parsed again.
	if err := s.Update(&certstore.Config{Certificates: pool.Certificates(0, 3)}); err != nil {
		panic(err)
	}

	// A TLS server looks certificates up on every handshake.
	srv := &tls.Config{GetCertificate: certstore.GetCertificateFunc(s, certstore.DefaultStore)}
	cert, err := srv.GetCertificate(&tls.ClientHelloInfo{ServerName: "SVC-000001.example.test"})
	if err != nil {
		panic(err)
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		panic(err)
	}
	fmt.Println(leaf.DNSNames[0], len(cert.Certificate), cert.Leaf == nil)

	// A bad configuration is rejected as a whole; the previous one keeps
	// serving.
	bad := pool.Certificates(0, 3)
	bad[2].KeyPEM = bad[0].KeyPEM
	err = s.Update(&certstore.Config{Certificates: bad})
	fmt.Println(err)
	again, _ := s.Certificate(certstore.DefaultStore, &tls.ClientHelloInfo{ServerName: "svc-000001.example.test"})
	fmt.Println(again == cert)

	// Output:
	// svc-000001.example.test 2 true
	// certificate 2 (svc-000002.example.test): private key does not match public key
	// true
}

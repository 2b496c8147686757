package naive_test

import (
	"crypto/tls"
	"fmt"

	"github.com/certbench/certbench/certgen"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/stores/naive"
)

func Example() {
	// Two certificates from a deterministic pool, and a configured default
	// so that the refresh does not generate an RSA key.
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 1, Count: 2, MaxSANs: 1, WildcardEvery: -1})
	if err != nil {
		panic(err)
	}
	def, err := pool.Issuer().Issue(certgen.Leaf{Serial: 99, CommonName: "fallback.example.test"})
	if err != nil {
		panic(err)
	}

	s := naive.New()
	err = s.Update(&certstore.Config{
		Certificates: pool.Certificates(0, 2),
		Stores: map[string]certstore.StoreConfig{
			certstore.DefaultStore: {DefaultCertificate: &def},
		},
	})
	if err != nil {
		panic(err)
	}

	// Serve handshakes from the store's "default" store.
	cfg := &tls.Config{GetCertificate: certstore.GetCertificateFunc(s, certstore.DefaultStore)}
	for _, sni := range []string{"svc-000001.example.test", "SVC-000000.EXAMPLE.TEST", "unknown.example.test"} {
		cert, err := cfg.GetCertificate(&tls.ClientHelloInfo{ServerName: sni})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s -> %s\n", sni, cert.Leaf.Subject.CommonName)
	}
	// Output:
	// svc-000001.example.test -> svc-000001.example.test
	// SVC-000000.EXAMPLE.TEST -> svc-000000.example.test
	// unknown.example.test -> fallback.example.test
}

package certgen_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/certbench/certbench/certgen"
)

// Load reads the certificates a user already has: here a directory of
// PEM files, one certificate and key per file. The Shape tells what the
// source looks like without naming anything in it, in the form of Go
// benchmark configuration lines.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "certs")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 1, Count: 4, Key: certgen.Mixed, MaxSANs: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range pool.Certs {
		pem := append(append([]byte{}, f.Pair.CertPEM...), f.Pair.KeyPEM...)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("site-%d.pem", f.Index)), pem, 0o600); err != nil {
			fmt.Println(err)
			return
		}
	}
	os.WriteFile(filepath.Join(dir, "README"), []byte("not a certificate\n"), 0o600)

	src, err := certgen.Load(dir, certgen.SourceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := src.Config()
	fmt.Println(len(cfg.Certificates), "certificates")
	for _, s := range src.Skipped {
		fmt.Println("skipped:", s)
	}
	fmt.Print(src.Shape())
	// Output:
	// 4 certificates
	// skipped: certgen: README: no PEM blocks
	// certs-count: 4
	// certs-keys: p256=3,rsa2048=1
	// certs-chains: 2=4
	// certs-sans: 1=1,2=2,3=1
	// certs-stores: 1
	// certs-defaults: 0
	// certs-fingerprint: f08a2d42e569d3eb
}

// KeyValues gives the shape as benchmark configuration keys and values,
// alternating, ready for results.NewWriter.
func ExampleShape_KeyValues() {
	sh := certgen.Shape{
		Count:       3,
		Keys:        map[string]int{"p256": 2, "ed25519": 1},
		Chains:      map[string]int{"2": 3},
		SANs:        map[string]int{"1": 2, "5-8": 1},
		Stores:      1,
		Fingerprint: "ab12cd34ef567890",
	}
	kv := sh.KeyValues()
	for i := 0; i < len(kv); i += 2 {
		fmt.Printf("%s: %s\n", kv[i], kv[i+1])
	}
	// Output:
	// certs-count: 3
	// certs-keys: ed25519=1,p256=2
	// certs-chains: 2=3
	// certs-sans: 1=2,5-8=1
	// certs-stores: 1
	// certs-defaults: 0
	// certs-fingerprint: ab12cd34ef567890
}

package certgen

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDirCAWithKeys: a folder with the root's and the intermediate's keys
// beside their certificates (as a private CA's working directory has)
// loads the one server certificate; the CA certificates, which issued
// certificates here, are ignored as issuers, not served.
func TestDirCAWithKeys(t *testing.T) {
	key := func() (*ecdsa.PrivateKey, []byte) {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		der, err := x509.MarshalPKCS8PrivateKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return k, encodePEM("PRIVATE KEY", der)
	}
	issue := func(tmpl, parent *x509.Certificate, pub any, signer *ecdsa.PrivateKey) (*x509.Certificate, []byte) {
		der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
		if err != nil {
			t.Fatal(err)
		}
		c, err := x509.ParseCertificate(der)
		if err != nil {
			t.Fatal(err)
		}
		return c, encodePEM("CERTIFICATE", der)
	}
	ca := func(serial int64, cn string) *x509.Certificate {
		return &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: Epoch, NotAfter: Epoch.AddDate(5, 0, 0),
			KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true}
	}
	rootKey, rootKeyPEM := key()
	rootT := ca(1, "private root")
	root, rootPEM := issue(rootT, rootT, rootKey.Public(), rootKey)
	intKey, intKeyPEM := key()
	inter, intPEM := issue(ca(2, "private intermediate"), root, intKey.Public(), rootKey)
	leafKey, leafKeyPEM := key()
	_, leafPEM := issue(&x509.Certificate{SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: "www.example.org"},
		DNSNames: []string{"www.example.org", "example.org"}, NotBefore: Epoch, NotAfter: Epoch.AddDate(1, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature}, inter, leafKey.Public(), intKey)

	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "root.pem"), rootPEM)
	writeFile(t, filepath.Join(dir, "root.key"), rootKeyPEM)
	writeFile(t, filepath.Join(dir, "int.pem"), intPEM)
	writeFile(t, filepath.Join(dir, "int.key"), intKeyPEM)
	writeFile(t, filepath.Join(dir, "fullchain.pem"), append(append([]byte{}, leafPEM...), intPEM...))
	writeFile(t, filepath.Join(dir, "leaf.key"), leafKeyPEM)

	src := mustLoad(t, dir, SourceOptions{Strict: true})
	if len(src.Certs) != 1 || src.Certs[0].File != "fullchain.pem" || src.Certs[0].Facts.ChainLen != 2 {
		t.Fatalf("got %d certificates (%+v), want fullchain.pem's leaf with its intermediate", len(src.Certs), src.Certs)
	}
	var got []string
	for _, s := range src.Skipped {
		got = append(got, fmt.Sprintf("%s:%d ignored=%v %s", s.File, s.Line, s.Ignored, strings.SplitN(s.Reason, ":", 2)[0]))
	}
	// The intermediate appears twice: in fullchain.pem, first in file
	// order, and in int.pem, the same certificate.
	want := []string{
		"fullchain.pem:12 ignored=true CA certificate that issued certificates here (its key is here too)",
		"int.pem:1 ignored=true same certificate as fullchain.pem",
		"root.pem:1 ignored=true CA certificate that issued certificates here (its key is here too)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skipped:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

package certstore_test

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
)

func TestSelfSigned(t *testing.T) {
	c, err := certstore.SelfSigned("www.example.com", "192.0.2.1", "*.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if c.Leaf == nil || len(c.Certificate) != 1 {
		t.Fatalf("Leaf %v, %d certificates; want Leaf set and one certificate", c.Leaf, len(c.Certificate))
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	if !leaf.Equal(c.Leaf) {
		t.Error("Leaf is not Certificate[0]")
	}
	if got, want := certstore.Names(leaf), []string{"www.example.com", "*.example.com", "192.0.2.1"}; !slices.Equal(got, want) {
		t.Errorf("Names = %q, want %q", got, want)
	}
	if err := leaf.CheckSignature(leaf.SignatureAlgorithm, leaf.RawTBSCertificate, leaf.Signature); err != nil {
		t.Errorf("not self-signed: %v", err)
	}
	now := time.Now()
	if now.Before(leaf.NotBefore) || now.After(leaf.NotAfter) || leaf.NotAfter.Sub(leaf.NotBefore) != certstore.SelfSignedValidity {
		t.Errorf("valid %v to %v; want %v around now", leaf.NotBefore, leaf.NotAfter, certstore.SelfSignedValidity)
	}
	// Usable for a handshake: the key signs for the leaf.
	if _, err := tls.X509KeyPair(pemPair(t)); err != nil {
		t.Fatal(err)
	}
	if err := leaf.VerifyHostname("www.example.com"); err != nil {
		t.Error(err)
	}
	if !slices.ContainsFunc(leaf.IPAddresses, func(ip net.IP) bool { return ip.Equal(net.ParseIP("192.0.2.1")) }) {
		t.Errorf("IP SANs %v, want 192.0.2.1", leaf.IPAddresses)
	}
	// Every call makes a new key.
	c2, err := certstore.SelfSigned("www.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if c2.Leaf.PublicKey.(interface{ Equal(crypto.PublicKey) bool }).Equal(c.Leaf.PublicKey) {
		t.Error("two calls made the same key")
	}
}

func TestSelfSignedNoNames(t *testing.T) {
	c, err := certstore.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Leaf.DNSNames)+len(c.Leaf.IPAddresses) != 0 || c.Leaf.Subject.CommonName == "" {
		t.Errorf("no names gave SANs %v %v, CN %q; want no SANs and a descriptive CN", c.Leaf.DNSNames, c.Leaf.IPAddresses, c.Leaf.Subject.CommonName)
	}
	if _, err := certstore.SelfSigned("a.example.com", ""); err == nil {
		t.Error("an empty name was accepted")
	}
	if _, err := certstore.SelfSignedKeyPair(""); err == nil {
		t.Error("SelfSignedKeyPair: an empty name was accepted")
	}
}

// pemPair returns a SelfSignedKeyPair's PEM.
func pemPair(t *testing.T) ([]byte, []byte) {
	t.Helper()
	kp, err := certstore.SelfSignedKeyPair("pair.example.com")
	if err != nil {
		t.Fatal(err)
	}
	return kp.CertPEM, kp.KeyPEM
}

// A store makes its generated default once (SelfSigned with no names
// matches no SNI); SelfSignedKeyPair gives the PEM a Config holds, for
// tests and configured defaults.
func ExampleSelfSigned() {
	def, err := certstore.SelfSigned()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("default:", def.Leaf.Subject.CommonName)

	kp, err := certstore.SelfSignedKeyPair("www.example.com")
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := &certstore.Config{Certificates: []certstore.Certificate{{KeyPair: kp}}}
	fmt.Println("configured:", cfg.Certificates[0].FirstName())
	// Output:
	// default: certstore default certificate
	// configured: www.example.com
}

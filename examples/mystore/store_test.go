package mystore_test

import (
	"crypto/tls"
	"errors"
	"fmt"
	"testing"

	"github.com/certbench/certbench/bench"
	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/conformance"
	"github.com/certbench/certbench/scenarios"

	"example.com/mystore"
)

// TestConformance runs certbench's conformance suite: the lookup rules,
// rejection of bad configurations, atomicity under concurrent lookups
// (run it with -race), goroutines, and the differential pass.
func TestConformance(t *testing.T) {
	conformance.Run(t, func() certstore.Store { return mystore.New() })
}

// TestNil checks the contract's rules for a nil *Config and a nil
// *tls.ClientHelloInfo, which the suite does not exercise.
func TestNil(t *testing.T) {
	s := mystore.New()
	kp, err := certstore.SelfSignedKeyPair("www.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(&certstore.Config{Certificates: []certstore.Certificate{{KeyPair: kp}}}); err != nil {
		t.Fatal(err)
	}
	before := s.Current()
	if err := s.Update(nil); err == nil {
		t.Error("Update(nil) = nil, want an error")
	}
	if s.Current() != before {
		t.Error("Update(nil) published a new generation")
	}
	c, err := s.Certificate(certstore.DefaultStore, nil)
	if err != nil || c == nil {
		t.Fatalf("nil hello: %v, %v; want the default certificate", c, err)
	}
	if c.Leaf.Subject.CommonName == "www.example.com" {
		t.Error("nil hello got the configured certificate, want the default")
	}
}

// BenchmarkRotate runs certbench's reference scenario as a Go benchmark:
//
//	go test -run '^$' -bench Rotate -benchmem -benchtime 10x
func BenchmarkRotate(b *testing.B) {
	sc, err := scenarios.ByName("rotate-10-of-100")
	if err != nil {
		b.Fatal(err)
	}
	bench.Benchmark(b, mystore.New, sc[0]) // New returns *mystore.Store
}

// A proxy hands the store its whole configuration on every refresh and
// serves handshakes from it through tls.Config.GetCertificate.
func ExampleNew() {
	kp, err := certstore.SelfSignedKeyPair("www.example.com")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := mystore.New()
	if err := s.Update(&certstore.Config{Certificates: []certstore.Certificate{{KeyPair: kp}}}); err != nil {
		fmt.Println(err)
		return
	}
	get := certstore.GetCertificateFunc(s, certstore.DefaultStore)
	c, err := get(&tls.ClientHelloInfo{ServerName: "WWW.example.com"})
	fmt.Println(c.Leaf.Subject.CommonName, err)

	_, err = s.Certificate("shop", &tls.ClientHelloInfo{ServerName: "www.example.com"})
	fmt.Println(errors.Is(err, certstore.ErrUnknownStore))
	// Output:
	// www.example.com <nil>
	// true
}

package certstore_test

import (
	"crypto/tls"
	"fmt"

	"github.com/certbench/certbench/certstore"
)

// A store registers itself from an init function; commands list and open
// stores by name.
func ExampleRegister() {
	certstore.Register("example-nothing", "a store that serves nothing", func() certstore.Store { return nothing{} })
	info, err := certstore.LookupFactory("example-nothing")
	if err != nil {
		fmt.Println(err)
		return
	}
	s := info.New()
	_, err = s.Certificate(certstore.DefaultStore, &tls.ClientHelloInfo{ServerName: "a.example.com"})
	fmt.Println(info.Name+":", info.Description+";", err)
	// Output: example-nothing: a store that serves nothing; certstore: no certificate
}

// Match gives the certificate a lookup must serve: exact names first, then
// a wildcard covering one label, the first certificate in configuration
// order winning; -1 means the store's default certificate.
func ExampleMatch() {
	names := [][]string{
		{"*.example.com"},
		{"www.example.com", "example.com"},
	}
	for _, sni := range []string{"WWW.example.com", "api.example.com", "a.b.example.com"} {
		fmt.Println(sni, certstore.Match(names, sni))
	}
	// Output:
	// WWW.example.com 1
	// api.example.com 0
	// a.b.example.com -1
}

type nothing struct{}

func (nothing) Update(*certstore.Config) error { return nil }
func (nothing) Current() certstore.Generation  { return nothing{} }
func (nothing) Certificate(string, *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return nil, certstore.ErrNoCertificate
}

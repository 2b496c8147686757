package optimized

import (
	"testing"

	"github.com/certbench/certbench/certstore"
	"github.com/certbench/certbench/internal/storefuzz"
)

func newFuzzStore() certstore.Store { return New() }

// FuzzUpdate applies configurations with an arbitrary key pair (see
// storefuzz.CheckUpdate): no panic; an error and the last good
// configuration still served, or a generation that answers lookups as
// certstore.Match says.
func FuzzUpdate(f *testing.F) {
	for _, s := range storefuzz.UpdateSeeds(f) {
		f.Add(s.CertPEM, s.KeyPEM, s.Stores, s.Flags)
	}
	f.Fuzz(func(t *testing.T, certPEM, keyPEM []byte, stores string, flags uint8) {
		storefuzz.CheckUpdate(t, newFuzzStore, certPEM, keyPEM, stores, flags)
	})
}

// FuzzMatch checks lookups on configurations generated from fuzzed names
// against certstore.Match, the reference (see storefuzz.CheckMatch).
func FuzzMatch(f *testing.F) {
	for _, s := range []struct{ spec, sni string }{
		{"ÉXAMPLE.TEST", "Éxample.test"},
		{"ÉXAMPLE.TEST", "ÉxAmple.test"},
		{"\u212AELVIN.TEST;kelvin.example.test", "\u212Aelvin.test"},
		{";*.example.com,a.example.com\n;*.example.com", "B.example.com"},
		{"*.ÜBER.TEST", "a.Über.test"},
		{"10.0.0.1;ip:10.0.0.2,2001:DB8::1\nfe80::1%ETH0", "2001:db8::1"},
		{"fe80::1%eth0;x.test", "fe80::1%ETH0"},
		{"a,b.example.com;c.test", "A,B.example.com"},
		{";\n;", ""},
	} {
		f.Add(s.spec, s.sni)
	}
	f.Fuzz(func(t *testing.T, spec, sni string) {
		storefuzz.CheckMatch(t, newFuzzStore, spec, sni)
	})
}

package certstore

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"testing"
)

func TestNormalizeServerName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"example.com", "example.com"},
		{"Example.COM", "example.com"},
		{"10.0.0.1", "10.0.0.1"},
		{"2001:DB8::1", "2001:db8::1"},
		{"ABCD:0::1", "abcd::1"},
		{"::ffff:10.0.0.1", "10.0.0.1"},
		{"1password.com", "1password.com"},
		{"", ""},
		// Non-ASCII letters are lowered whether or not an ASCII capital
		// is there too (strings.ToLower semantics).
		{"Éxample.test", "éxample.test"},
		{"ÉxAmple.test", "éxample.test"},
		{"ÉXAMPLE.TEST", "éxample.test"},
		{"éxample.test", "éxample.test"},
		{"\u212Aelvin.test", "kelvin.test"},
		{"\u212AELVIN.test", "kelvin.test"},
		{"ü.\u212A.example", "ü.k.example"},
		{"\xff.example.com", "\ufffd.example.com"},
	} {
		if got := NormalizeServerName(tc.in); got != tc.want {
			t.Errorf("NormalizeServerName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, name := range []string{"www.example.com", "éxample.test"} {
		if n := testing.AllocsPerRun(100, func() { NormalizeServerName(name) }); n != 0 {
			t.Errorf("NormalizeServerName(%q), already normal, allocates %v times, want 0", name, n)
		}
	}
}

func TestMatch(t *testing.T) {
	names := [][]string{
		{"a.example.com", "*.example.com"},
		{"b.example.com"},
		{"*.example.com", "c.example.com"},
		{"10.0.0.1"},
		{"b.example.com"},
	}
	for _, tc := range []struct {
		sni  string
		want int
	}{
		{"a.example.com", 0},
		{"B.example.com", 1}, // exact, first in config of two
		{"c.example.com", 2}, // exact beats the earlier wildcard
		{"x.example.com", 0}, // wildcard, first in config
		{"x.y.example.com", -1},
		{"example.com", -1},
		{"10.0.0.1", 3},
		{"10.0.0.2", -1},
		{"", -1},
	} {
		if got := Match(names, tc.sni); got != tc.want {
			t.Errorf("Match(%q) = %d, want %d", tc.sni, got, tc.want)
		}
	}
}

// TestMatchUnicodeCase checks that Match lowercases non-ASCII letters of
// the SNI the way Names lowercases certificate names, with or without an
// ASCII capital in the SNI.
func TestMatchUnicodeCase(t *testing.T) {
	leaf := func(cn string, dns ...string) []string {
		return Names(&x509.Certificate{Subject: pkix.Name{CommonName: cn}, DNSNames: dns})
	}
	names := [][]string{
		leaf("ÉXAMPLE.TEST"),
		leaf("\u212AELVIN.TEST"),
		leaf("*.ÜBER.TEST"),
		leaf("", "*.example.com"),
	}
	for _, tc := range []struct {
		sni  string
		want int
	}{
		{"Éxample.test", 0},
		{"ÉxAmple.test", 0},
		{"éxample.test", 0},
		{"ÉXAMPLE.TEST", 0},
		{"\u212Aelvin.test", 1},
		{"kelvin.test", 1},
		{"KELVIN.TEST", 1},
		{"a.Über.test", 2},
		{"A.ÜBER.TEST", 2},
		{"Ü.example.com", 3},
		{"\xff.example.com", 3},
		{"Éxample.test.x", -1},
	} {
		if got := Match(names, tc.sni); got != tc.want {
			t.Errorf("Match(%q) = %d, want %d", tc.sni, got, tc.want)
		}
	}
}

func TestCheckStores(t *testing.T) {
	cfg := &Config{
		Certificates: []Certificate{{Stores: []string{"default"}}, {Stores: []string{"edge"}}, {Stores: []string{"nosuch"}}},
		Stores:       map[string]StoreConfig{"edge": {}},
	}
	err := CheckStores(cfg)
	ce, ok := err.(*CertificateError)
	if !ok || ce.Index != 2 {
		t.Fatalf("CheckStores = %v, want a CertificateError for certificate 2", err)
	}
	cfg.Certificates = cfg.Certificates[:2]
	if err := CheckStores(cfg); err != nil {
		t.Fatalf("CheckStores of declared stores = %v", err)
	}
}

package certstore

import "testing"

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
	} {
		if got := NormalizeServerName(tc.in); got != tc.want {
			t.Errorf("NormalizeServerName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { NormalizeServerName("www.example.com") }); n != 0 {
		t.Errorf("NormalizeServerName of a lowercase host name allocates %v times, want 0", n)
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

package scenarios

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// writeSourceDir writes a generated pool as a directory of PEM files, one
// certificate and key per file, and loads it.
func writeSourceDir(t *testing.T, spec certgen.PoolSpec) (*certgen.Source, *certgen.Pool) {
	t.Helper()
	pool, err := certgen.NewPool(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range pool.Certs {
		data := append(append([]byte{}, f.Pair.CertPEM...), f.Pair.KeyPEM...)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("site-%d.pem", f.Index)), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	src, err := certgen.Load(dir, certgen.SourceOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	return src, pool
}

func leafOf(t *testing.T, p certstore.KeyPair) *x509.Certificate {
	t.Helper()
	b, _ := pem.Decode(p.CertPEM)
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestForSourceDefaults(t *testing.T) {
	src, _ := writeSourceDir(t, certgen.PoolSpec{Seed: 7, Count: 30, Key: certgen.Mixed, MaxSANs: 3})
	scs, notes, err := ForSource(src)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range scs {
		names = append(names, sc.Name)
		if sc.Certs != src {
			t.Errorf("%s: Certs not set", sc.Name)
		}
	}
	want := []string{"rotate-3-of-certs", "renew-1-of-certs", "noop-certs", "startup-certs", "multistore-certs", "lookup-certs"}
	if !slices.Equal(names, want) {
		t.Errorf("default set on 30 certificates: %v, want %v", names, want)
	}
	if len(notes) != 0 {
		t.Errorf("notes: %v", notes)
	}
	for _, sc := range scs {
		w, err := sc.Build(3)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		last := w.Configs[len(w.Configs)-1]
		switch sc.Kind {
		case Rotate:
			if w.Certs != 3 || len(last.Certificates) != 3 {
				t.Errorf("%s: window %d", sc.Name, w.Certs)
			}
		case Lookup:
			if len(last.Certificates) != 30 || w.Store != certstore.DefaultStore {
				t.Errorf("%s: %d certificates, store %q", sc.Name, len(last.Certificates), w.Store)
			}
		default:
			if len(last.Certificates) != 30 {
				t.Errorf("%s: %d certificates", sc.Name, len(last.Certificates))
			}
		}
	}
}

// TestSourceRenewChangesOne checks renew-1 on loaded certificates: each op
// changes exactly one certificate, to one with the same names and key.
func TestSourceRenewChangesOne(t *testing.T) {
	src, _ := writeSourceDir(t, certgen.PoolSpec{Seed: 8, Count: 5, Key: certgen.Mixed})
	scs, _, err := ForSource(src, "renew-1-of-1000")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scs[0].Build(7)
	if err != nil {
		t.Fatal(err)
	}
	if scs[0].Name != "renew-1-of-certs" || scs[0].Ops != 10 {
		t.Errorf("scenario %s with %d ops", scs[0].Name, scs[0].Ops)
	}
	for k := 1; k < len(w.Configs); k++ {
		changed := 0
		for i := range w.Configs[k].Certificates {
			a, b := w.Configs[k-1].Certificates[i].KeyPair, w.Configs[k].Certificates[i].KeyPair
			if string(a.CertPEM) == string(b.CertPEM) {
				continue
			}
			changed++
			la, lb := leafOf(t, a), leafOf(t, b)
			if !slices.Equal(certstore.Names(la), certstore.Names(lb)) || string(la.RawSubjectPublicKeyInfo) != string(lb.RawSubjectPublicKeyInfo) {
				t.Errorf("op %d: certificate %d renewed with other names or another key", k, i)
			}
			if la.SerialNumber.Cmp(lb.SerialNumber) == 0 {
				t.Errorf("op %d: certificate %d renewed with the same serial", k, i)
			}
		}
		if changed != 1 {
			t.Errorf("op %d changed %d certificates, want 1", k, changed)
		}
	}
}

func TestSourceLookupMix(t *testing.T) {
	src, pool := writeSourceDir(t, certgen.PoolSpec{Seed: 9, Count: 50, MaxSANs: 2, WildcardEvery: 3})
	scs, _, err := ForSource(src, "lookup-certs")
	if err != nil {
		t.Fatal(err)
	}
	w, err := scs[0].Build(1000)
	if err != nil {
		t.Fatal(err)
	}
	exact, wild := map[string]bool{}, map[string]bool{}
	for _, f := range pool.Certs {
		for _, n := range f.Names {
			if p, ok := strings.CutPrefix(n, "*."); ok {
				wild[p] = true
			} else {
				exact[n] = true
			}
		}
	}
	var nExact, nUpper, nWild, nMiss int
	for _, h := range w.Hellos {
		sni := h.ServerName
		low := strings.ToLower(sni)
		parent, _ := certstore.WildcardParent(low)
		switch {
		case exact[low]:
			nExact++
			if sni != low {
				nUpper++
			}
		case wild[parent]:
			nWild++
		default:
			nMiss++
			if !strings.HasSuffix(sni, "."+certgen.SourceDomain) {
				t.Errorf("miss %q outside %s", sni, certgen.SourceDomain)
			}
		}
	}
	if len(w.Hellos) != 1000 || nExact != 600 || nUpper != 100 || nWild != 200 || nMiss != 200 {
		t.Errorf("%d hellos: %d exact (%d upper case), %d wildcard, %d misses; want 1000: 600 (100), 200, 200",
			len(w.Hellos), nExact, nUpper, nWild, nMiss)
	}
}

// TestSourceStores checks that loaded certificates keep their stores and
// defaults, and that lookups go to the store holding the most of them.
func TestSourceStores(t *testing.T) {
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 10, Count: 3, WildcardEvery: -1})
	if err != nil {
		t.Fatal(err)
	}
	src := &certgen.Source{Kind: certgen.KindSecrets, Stores: []string{"team-a", "team-b"}}
	for i, f := range pool.Certs {
		st := []string{"team-a"}
		if i == 2 {
			st = []string{"team-b"}
		}
		src.Certs = append(src.Certs, certgen.SourceCert{
			Certificate: certstore.Certificate{KeyPair: f.Pair, Stores: st},
			Facts:       certgen.CertFacts{Names: f.Names},
		})
	}
	src.Defaults = map[string]*certgen.SourceCert{"team-b": &src.Certs[2]}
	scs, _, err := ForSource(src, "lookup-1000", "noop-10000")
	if err != nil {
		t.Fatal(err)
	}
	lw, err := scs[0].Build(100)
	if err != nil {
		t.Fatal(err)
	}
	if lw.Store != "team-a" {
		t.Errorf("lookups in %q, want team-a", lw.Store)
	}
	for _, h := range lw.Hellos {
		if strings.Contains(strings.ToLower(h.ServerName), "svc-000002") {
			t.Errorf("lookup %q of a certificate in another store", h.ServerName)
		}
	}
	nw, err := scs[1].Build(1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := nw.Configs[0]
	if !slices.Equal(cfg.Certificates[2].Stores, []string{"team-b"}) || cfg.Stores["team-b"].DefaultCertificate == nil {
		t.Errorf("stores not kept: %v, %v", cfg.Certificates[2].Stores, cfg.Stores)
	}
}

func TestForSourceRefusals(t *testing.T) {
	src, _ := writeSourceDir(t, certgen.PoolSpec{Seed: 11, Count: 1})
	scs, notes, err := ForSource(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "at least 2 certificates") {
		t.Errorf("notes on one certificate: %v", notes)
	}
	for _, sc := range scs {
		if sc.Kind == Rotate {
			t.Errorf("%s in the default set of one certificate", sc.Name)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{"rotate-10-of-100", "at least 2"},
		{"handshake-1000", "handshake scenarios"},
		{"nosuch", `unknown scenario "nosuch"`},
	} {
		if _, _, err := ForSource(src, tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ForSource(%s): %v, want %q", tc.name, err, tc.want)
		}
	}
	custom, err := WithSource(Scenario{Name: "mine", Kind: Noop, Ops: 1}, src)
	if err != nil || custom.Name != "mine-certs" {
		t.Errorf("custom scenario: %q, %v", custom.Name, err)
	}
	if _, err := (Scenario{Name: "x", Kind: Handshake, Certs: src, Stores: []string{"e"}}).Build(1); err == nil {
		t.Error("a handshake scenario built on loaded certificates")
	}
}

func TestSourceHandshakeUnderChurn(t *testing.T) {
	src, _ := writeSourceDir(t, certgen.PoolSpec{Seed: 12, Count: 4})
	scs, _, err := ForSource(src, "handshake-under-churn")
	if err != nil {
		t.Fatal(err)
	}
	if scs[0].Name != "handshake-under-churn-certs" || scs[0].Default {
		t.Errorf("scenario %s, default %v", scs[0].Name, scs[0].Default)
	}
	w, err := scs[0].Build(100)
	if err != nil {
		t.Fatal(err)
	}
	// Configs[0] is the whole pool, then one renewal per step.
	if len(w.Configs) != 5 || len(w.Hellos) != ChurnHellos || w.Store != certstore.DefaultStore {
		t.Errorf("%d configurations, %d hellos, store %q", len(w.Configs), len(w.Hellos), w.Store)
	}
}

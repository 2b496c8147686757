package certgen

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// testdata/realworld holds certificates made with openssl as users make
// them (README.txt says how):
//
//	good.pem, good-key.pem         req -x509 with SANs, and its key
//	widgits.pem, widgits-key.pem   req -x509 with openssl's default subject
//	                               (O=Internet Widgits Pty Ltd): no name
//	nokey.pem                      req -x509 with SANs (CA:TRUE), key lost
//	root-ca.pem                    a root CA, no SANs, no key
//	leaf.pem, leaf-key.pem         a leaf root-ca.pem issued, and its key
//	README.txt                     not a certificate
const realWorld = "testdata/realworld"

// skipLines renders skips as "file:line ignored=bool reason".
func skipLines(skips []Skip) []string {
	var out []string
	for _, s := range skips {
		out = append(out, posString(s.File, s.Line)+" ignored="+map[bool]string{true: "true", false: "false"}[s.Ignored]+" "+s.Reason)
	}
	return out
}

// TestRealWorldDir: a certificate without a name is refused at load time
// (no store accepts it, and a run would stop half-way), naming its file;
// a self-signed server certificate whose key is missing is a missing key,
// not an unused CA certificate, even though openssl marks it CA:TRUE; a
// root CA that issued a leaf of the source stays an unused CA.
func TestRealWorldDir(t *testing.T) {
	src, err := Load(realWorld, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, c := range src.Certs {
		files = append(files, c.File)
		if len(c.Facts.Names) == 0 {
			t.Errorf("%s: loaded without a name", c.File)
		}
	}
	if want := []string{"good.pem", "leaf.pem"}; !slices.Equal(files, want) {
		t.Errorf("loaded %v, want %v", files, want)
	}
	want := []string{
		"README.txt ignored=true no PEM blocks",
		"nokey.pem:1 ignored=false certificate has no matching private key (a CA certificate, but with names and issuing nothing here: a self-signed server certificate)",
		"root-ca.pem:1 ignored=true CA certificate is in no leaf's chain",
		"widgits.pem:1 ignored=false " + errNoName,
	}
	if got := skipLines(src.Skipped); !slices.Equal(got, want) {
		t.Errorf("skipped:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if sh := src.Shape(); sh.Count != 2 {
		t.Errorf("shape counts %d certificates, want 2", sh.Count)
	}

	// Strict stops on the first problem in file order.
	_, err = Load(realWorld, SourceOptions{Strict: true})
	if err == nil || !strings.Contains(err.Error(), "nokey.pem:1: certificate has no matching private key") {
		t.Errorf("strict: %v, want the missing key of nokey.pem", err)
	}
}

// TestRealWorldTraefik: a certificate or a store's default certificate
// without a name, in a Traefik configuration, is refused at load time and
// named by its entry.
func TestRealWorldTraefik(t *testing.T) {
	abs, err := filepath.Abs(realWorld)
	if err != nil {
		t.Fatal(err)
	}
	pair := func(stem string) string {
		return "{certFile: " + filepath.Join(abs, stem+".pem") + ", keyFile: " + filepath.Join(abs, stem+"-key.pem") + "}"
	}
	cfg := filepath.Join(t.TempDir(), "dynamic.yaml")
	writeFile(t, cfg, []byte("tls:\n  certificates:\n    - "+pair("good")+"\n    - "+pair("widgits")+
		"\n  stores:\n    default:\n      defaultCertificate: "+pair("widgits")+"\n    other:\n      defaultCertificate: "+pair("leaf")+"\n"))
	src, err := Load(cfg, SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wheres []string
	for _, c := range src.Certs {
		wheres = append(wheres, c.Where)
	}
	if !slices.Equal(wheres, []string{"tls.certificates[0]"}) {
		t.Errorf("certificates %v, want tls.certificates[0] only", wheres)
	}
	if _, ok := src.Defaults["default"]; ok {
		t.Error("a default certificate without a name was kept")
	}
	if _, ok := src.Defaults["other"]; !ok {
		t.Error("the named default certificate was dropped")
	}
	var noName []string
	for _, s := range src.Skipped {
		if s.Reason == errNoName && !s.Ignored {
			noName = append(noName, s.Where)
		}
	}
	slices.Sort(noName)
	if want := []string{"tls.certificates[1]", "tls.stores.default.defaultCertificate"}; !slices.Equal(noName, want) {
		t.Errorf("refused for no name: %v, want %v (all skips: %v)", noName, want, skipLines(src.Skipped))
	}
	if _, err := Load(cfg, SourceOptions{Strict: true}); err == nil || !strings.Contains(err.Error(), "has no name") {
		t.Errorf("strict: %v", err)
	}
}

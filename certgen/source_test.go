package certgen

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/certbench/certbench/certstore"
)

// testCert is one certificate of the shared test set.
type testCert struct {
	name string // file stem
	pair certstore.KeyPair
}

// rsa4096TestKey is a committed RSA-4096 key (generating one takes
// seconds), for tests only.
func rsa4096TestKey(t testing.TB) crypto.Signer {
	t.Helper()
	data, err := os.ReadFile("testdata/rsa4096-test-key.pem")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(data)
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k.(crypto.Signer)
}

var testSetOnce sync.Once
var testSetCerts []testCert

// testSet makes the certificates every source of TestSourcesAgree holds:
// RSA-4096, RSA-2048, P-384 with IP SANs, Ed25519 with a wildcard, a
// three-certificate chain, and an expired one.
func testSet(t testing.TB) []testCert {
	t.Helper()
	testSetOnce.Do(func() {
		is := NewIssuer(99)
		mk := func(name string, l Leaf) {
			p, err := is.Issue(l)
			if err != nil {
				t.Fatal(err)
			}
			testSetCerts = append(testSetCerts, testCert{name, p})
		}
		p384, _ := ecdsa.GenerateKey(elliptic.P384(), nil)
		_, edKey, _ := ed25519.GenerateKey(nil)
		rsa2048, err := rsaKey(1)
		if err != nil {
			t.Fatal(err)
		}
		mk("a-rsa4096", Leaf{Serial: 1, CommonName: "rsa4096.example.test", DNSNames: []string{"rsa4096.example.test"}, Key: rsa4096TestKey(t)})
		mk("b-rsa2048", Leaf{Serial: 2, DNSNames: []string{"rsa2048.example.test", "www.rsa2048.example.test"}, Key: rsa2048})
		mk("c-p384-ip", Leaf{Serial: 3, DNSNames: []string{"ip.example.test"}, IPAddresses: []net.IP{net.ParseIP("192.0.2.1"), net.ParseIP("2001:db8::1")}, Key: p384})
		mk("d-ed25519-wild", Leaf{Serial: 4, DNSNames: []string{"*.wild.example.test", "wild.example.test"}, Key: edKey})
		mk("e-expired", Leaf{Serial: 5, DNSNames: []string{"expired.example.test"}, NotBefore: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)})
		testSetCerts = append(testSetCerts, testCert{"f-chain3", threeChain(t, "chain.example.test")})
	})
	return testSetCerts
}

// threeChain makes a leaf, an intermediate and a root, as PEM in that
// order, with the leaf's key.
func threeChain(t testing.TB, name string) certstore.KeyPair {
	t.Helper()
	rootPub, rootKey, _ := ed25519.GenerateKey(nil)
	interPub, interKey, _ := ed25519.GenerateKey(nil)
	leafKey, _ := ecdsa.GenerateKey(elliptic.P256(), nil)
	ca := func(serial int64, cn string) *x509.Certificate {
		return &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: Epoch, NotAfter: Epoch.AddDate(5, 0, 0),
			KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true, IsCA: true,
		}
	}
	rootT := ca(1, "test root "+name)
	rootDER, err := x509.CreateCertificate(nil, rootT, rootT, rootPub, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := x509.ParseCertificate(rootDER)
	interT := ca(2, "test intermediate "+name)
	interDER, err := x509.CreateCertificate(nil, interT, root, interPub, rootKey)
	if err != nil {
		t.Fatal(err)
	}
	inter, _ := x509.ParseCertificate(interDER)
	leafT := &x509.Certificate{
		SerialNumber: big.NewInt(3), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: Epoch, NotAfter: Epoch.AddDate(1, 0, 0), KeyUsage: x509.KeyUsageDigitalSignature,
	}
	leafDER, err := x509.CreateCertificate(nil, leafT, inter, leafKey.Public(), interKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalPKCS8PrivateKey(leafKey)
	var chain []byte
	for _, d := range [][]byte{leafDER, interDER, rootDER} {
		chain = append(chain, encodePEM("CERTIFICATE", d)...)
	}
	return certstore.KeyPair{CertPEM: chain, KeyPEM: encodePEM("PRIVATE KEY", keyDER)}
}

func writeFile(t testing.TB, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func crlf(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }

// writeTestDir lays the test set out the ways people keep certificates:
// separate files, a combined file with the key first, CRLF endings and
// openssl x509 -text output around the blocks.
func writeTestDir(t testing.TB, dir string, set []testCert) {
	for i, c := range set {
		switch i % 3 {
		case 0:
			writeFile(t, filepath.Join(dir, "certs", c.name+".crt"), c.pair.CertPEM)
			writeFile(t, filepath.Join(dir, "keys", c.name+".key"), c.pair.KeyPEM)
		case 1:
			writeFile(t, filepath.Join(dir, "certs", c.name+".pem"), append(append([]byte("key first\n"), c.pair.KeyPEM...), c.pair.CertPEM...))
		case 2:
			text := "Certificate:\n    Data:\n        Version: 3 (0x2)\n        Subject: CN=whatever\n"
			writeFile(t, filepath.Join(dir, "certs", c.name+".crt"), crlf(append([]byte(text), c.pair.CertPEM...)))
			writeFile(t, filepath.Join(dir, "certs", c.name+".key"), crlf(append(c.pair.KeyPEM, "trailing text\n"...)))
		}
	}
}

// testSourcesAgree writes the set as a directory, YAML, TOML and a Secret
// list, all in dir.
func writeTestSources(t testing.TB, dir string, set []testCert) (yamlPath, tomlPath, jsonPath string) {
	writeTestDir(t, filepath.Join(dir, "pems"), set)
	var y, tm strings.Builder
	y.WriteString("http:\n  routers: {}\ntls:\n  options:\n    default:\n      minVersion: VersionTLS12\n  certificates:\n")
	for i, c := range set {
		certFile := "pems/certs/" + c.name + ".crt"
		keyFile := "pems/keys/" + c.name + ".key"
		switch i % 3 {
		case 1:
			certFile = "pems/certs/" + c.name + ".pem"
			keyFile = certFile
		case 2:
			keyFile = "pems/certs/" + c.name + ".key"
		}
		if i == 4 { // inline content
			fmt.Fprintf(&y, "    - certFile: |\n%s      keyFile: %q\n", indent(string(c.pair.CertPEM), "          "), string(c.pair.KeyPEM))
			fmt.Fprintf(&tm, "[[tls.certificates]]\n  certFile = \"\"\"\n%s\"\"\"\n  keyFile = %q\n", c.pair.CertPEM, string(c.pair.KeyPEM))
			continue
		}
		fmt.Fprintf(&y, "    - certFile: %s\n      keyFile: %s\n", certFile, keyFile)
		fmt.Fprintf(&tm, "[[tls.certificates]]\n  certFile = %q\n  keyFile = %q\n", certFile, keyFile)
	}
	tm.WriteString("\n[tls.options.default]\n  minVersion = \"VersionTLS12\"\n")
	yamlPath = filepath.Join(dir, "dynamic.yaml")
	tomlPath = filepath.Join(dir, "dynamic.toml")
	writeFile(t, yamlPath, []byte(y.String()))
	writeFile(t, tomlPath, []byte(tm.String()))

	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}}
	var items []any
	items = append(items, map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque", "metadata": map[string]any{"name": "db", "namespace": "apps"}, "data": map[string]string{"password": "aHVudGVyMg=="}})
	for i, c := range set {
		items = append(items, map[string]any{
			"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
			"metadata": map[string]any{"name": c.name, "namespace": []string{"apps", "web"}[i%2]},
			"data": map[string]string{
				"tls.crt": base64.StdEncoding.EncodeToString(c.pair.CertPEM),
				"tls.key": base64.StdEncoding.EncodeToString(c.pair.KeyPEM),
			},
		})
	}
	items = append(items, map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/service-account-token", "metadata": map[string]any{"name": "tok", "namespace": "web"}, "data": map[string]string{}})
	list["items"] = items
	js, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	jsonPath = filepath.Join(dir, "secrets.json")
	writeFile(t, jsonPath, js)
	return
}

func indent(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

func mustLoad(t testing.TB, path string, opts SourceOptions) *Source {
	t.Helper()
	src, err := Load(path, opts)
	if err != nil {
		t.Fatalf("Load(%s): %v", filepath.Base(path), err)
	}
	return src
}

func configBytes(t testing.TB, cfg *certstore.Config) []byte {
	t.Helper()
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSourcesAgree(t *testing.T) {
	set := testSet(t)
	dir := t.TempDir()
	yamlPath, tomlPath, jsonPath := writeTestSources(t, dir, set)

	want := certstore.Config{}
	for _, c := range set {
		want.Certificates = append(want.Certificates, certstore.Certificate{KeyPair: c.pair})
	}
	wantBytes := configBytes(t, &want)

	sources := map[string]*Source{
		"dir":  mustLoad(t, filepath.Join(dir, "pems"), SourceOptions{Strict: true}),
		"yaml": mustLoad(t, yamlPath, SourceOptions{Strict: true}),
		"toml": mustLoad(t, tomlPath, SourceOptions{Strict: true}),
		"k8s":  mustLoad(t, jsonPath, SourceOptions{Strict: true, IgnoreNamespaces: true}),
	}
	kinds := map[string]SourceKind{"dir": KindDir, "yaml": KindTraefikYAML, "toml": KindTraefikTOML, "k8s": KindSecrets}
	wantShape := Shape{
		Count:    6,
		Keys:     map[string]int{"rsa4096": 1, "rsa2048": 1, "p384": 1, "ed25519": 1, "p256": 2},
		Chains:   map[string]int{"2": 5, "3": 1},
		SANs:     map[string]int{"1": 3, "2": 2, "3": 1},
		Stores:   1,
		Defaults: 0,
	}
	for name, src := range sources {
		if src.Kind != kinds[name] {
			t.Errorf("%s: detected as %s", name, src.Kind)
		}
		if got := configBytes(t, src.Config()); !bytes.Equal(got, wantBytes) {
			t.Errorf("%s: config differs from the test set", name)
		}
		sh := src.Shape()
		wantShape.Fingerprint = sh.Fingerprint
		if !reflect.DeepEqual(sh, wantShape) {
			t.Errorf("%s: shape\n%v want\n%v", name, sh, wantShape)
		}
		if sh.Fingerprint != sources["dir"].Shape().Fingerprint || len(sh.Fingerprint) != 16 {
			t.Errorf("%s: fingerprint %q", name, sh.Fingerprint)
		}
		for _, sk := range src.Skipped {
			if !sk.Ignored {
				t.Errorf("%s: skipped %v", name, sk)
			}
		}
		// Every configuration a source gives is one a store accepts.
		for i, c := range src.Certs {
			if _, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM); err != nil {
				t.Errorf("%s: certificate %d: %v", name, i, err)
			}
		}
		if err := certstore.CheckStores(src.Config()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if n := sources["k8s"].OtherSecrets; n != 2 {
		t.Errorf("OtherSecrets = %d, want 2", n)
	}
	// Facts: names stay in memory for lookups.
	c := sources["dir"].Certs[2]
	if c.Facts.KeyType != "p384" || c.Facts.SANs != 3 || !reflect.DeepEqual(c.Facts.Names, []string{"ip.example.test", "192.0.2.1", "2001:db8::1"}) {
		t.Errorf("p384 facts: %+v", c.Facts)
	}
	if !sources["dir"].Certs[4].Facts.NotAfter.Before(time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("expired certificate's NotAfter lost")
	}
	// Two loads give byte-identical configurations.
	again := mustLoad(t, filepath.Join(dir, "pems"), SourceOptions{Workers: 1})
	if !bytes.Equal(configBytes(t, again.Config()), wantBytes) {
		t.Error("second load differs")
	}

	// With namespaces, the Secrets go to stores apps and web.
	ns := mustLoad(t, jsonPath, SourceOptions{})
	if !reflect.DeepEqual(ns.Stores, []string{"apps", "web"}) || ns.Shape().Stores != 3 {
		t.Errorf("namespace stores %v, shape stores %d", ns.Stores, ns.Shape().Stores)
	}
	if got := ns.Certs[1].Stores; !reflect.DeepEqual(got, []string{"web"}) {
		t.Errorf("certificate 1 stores %v", got)
	}
	if err := certstore.CheckStores(ns.Config()); err != nil {
		t.Error(err)
	}
}

func TestTraefikStoresAndDefaults(t *testing.T) {
	set := testSet(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.crt"), set[0].pair.CertPEM)
	writeFile(t, filepath.Join(dir, "a.key"), set[0].pair.KeyPEM)
	writeFile(t, filepath.Join(dir, "b.pem"), append(append([]byte{}, set[1].pair.CertPEM...), set[1].pair.KeyPEM...))
	yml := `
tls:
  certificates:
    - certFile: a.crt
      keyFile: a.key
      stores: [internal, default, internal]
    - CertFile: b.pem
      KEYFILE: b.pem
      stores: [default]
  stores:
    default:
      defaultCertificate:
        certFile: b.pem
        keyFile: b.pem
    spare: {}
`
	toml := `
[tls]
[[tls.certificates]]
certFile = "a.crt"
keyFile = "a.key"
stores = ["internal", "default", "internal"]
[[tls.certificates]]
CertFile = "b.pem"
KEYFILE = "b.pem"
stores = ["default"]
[tls.stores.default.defaultCertificate]
certFile = "b.pem"
keyFile = "b.pem"
[tls.stores.spare]
`
	writeFile(t, filepath.Join(dir, "conf.yml"), []byte(yml))
	writeFile(t, filepath.Join(dir, "conf.toml"), []byte(toml))
	var first []byte
	for _, f := range []string{"conf.yml", "conf.toml"} {
		src := mustLoad(t, filepath.Join(dir, f), SourceOptions{Strict: true})
		cfg := src.Config()
		if err := certstore.CheckStores(cfg); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if !reflect.DeepEqual(src.Stores, []string{"default", "internal", "spare"}) {
			t.Errorf("%s: stores %v", f, src.Stores)
		}
		if !reflect.DeepEqual(cfg.Certificates[0].Stores, []string{"internal", "default"}) || cfg.Certificates[1].Stores != nil {
			t.Errorf("%s: certificate stores %v, %v", f, cfg.Certificates[0].Stores, cfg.Certificates[1].Stores)
		}
		d := cfg.Stores["default"].DefaultCertificate
		if d == nil || !bytes.Equal(d.CertPEM, set[1].pair.CertPEM) {
			t.Errorf("%s: default certificate missing", f)
		}
		sh := src.Shape()
		if sh.Stores != 3 || sh.Defaults != 1 || sh.Count != 2 {
			t.Errorf("%s: shape %+v", f, sh)
		}
		b := configBytes(t, cfg)
		if first == nil {
			first = b
		} else if !bytes.Equal(first, b) {
			t.Error("YAML and TOML give different configurations")
		}
	}
}

func TestDirChainsAndPairing(t *testing.T) {
	set := testSet(t)
	chain := set[5].pair // leaf, intermediate, root
	var blocks [][]byte
	rest := chain.CertPEM
	for {
		b, r := pem.Decode(rest)
		if b == nil {
			break
		}
		blocks = append(blocks, encodePEM(b.Type, b.Bytes))
		rest = r
	}
	dir := t.TempDir()
	// The leaf alone; its intermediate and root elsewhere; a certbot-like
	// fullchain duplicate; a key that pairs with nothing; a stray leaf.
	writeFile(t, filepath.Join(dir, "live/cert.pem"), blocks[0])
	writeFile(t, filepath.Join(dir, "live/privkey.pem"), chain.KeyPEM)
	writeFile(t, filepath.Join(dir, "ca/intermediate.pem"), blocks[1])
	writeFile(t, filepath.Join(dir, "ca/root.pem"), blocks[2])
	other, _ := ecdsa.GenerateKey(elliptic.P256(), nil)
	otherDER, _ := x509.MarshalPKCS8PrivateKey(other)
	writeFile(t, filepath.Join(dir, "orphan.key"), encodePEM("PRIVATE KEY", otherDER))
	writeFile(t, filepath.Join(dir, "stray.crt"), set[0].pair.CertPEM[:bytes.Index(set[0].pair.CertPEM, []byte("-----END"))+len("-----END CERTIFICATE-----\n")])
	writeFile(t, filepath.Join(dir, "README.md"), []byte("# certificates\n"))

	src := mustLoad(t, dir, SourceOptions{})
	if len(src.Certs) != 1 {
		t.Fatalf("%d certificates, want 1; skipped %v", len(src.Certs), src.Skipped)
	}
	c := src.Certs[0]
	if c.File != "live/cert.pem" || c.Line != 1 || c.Facts.ChainLen != 2 {
		t.Errorf("got %s:%d chain %d", c.File, c.Line, c.Facts.ChainLen)
	}
	if want := append(append([]byte{}, blocks[0]...), blocks[1]...); !bytes.Equal(c.CertPEM, want) {
		t.Error("chain is not leaf then the intermediate from another file")
	}
	var got []string
	for _, s := range src.Skipped {
		got = append(got, fmt.Sprintf("%s:%d %s ignored=%v", s.File, s.Line, s.Reason, s.Ignored))
	}
	want := []string{
		"README.md:0 no PEM blocks ignored=true",
		"ca/root.pem:1 CA certificate is in no leaf's chain ignored=true",
		"orphan.key:1 private key matches no certificate ignored=false",
		"stray.crt:1 certificate has no matching private key ignored=false",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("skipped:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := Load(dir, SourceOptions{Strict: true}); err == nil || !strings.Contains(err.Error(), "orphan.key:1: private key matches no certificate") {
		t.Errorf("strict: %v", err)
	}

	// A fullchain next to cert.pem: one certificate, the fullchain's.
	os.Remove(filepath.Join(dir, "orphan.key"))
	os.Remove(filepath.Join(dir, "stray.crt"))
	writeFile(t, filepath.Join(dir, "live/fullchain.pem"), bytes.Join(blocks, nil))
	src = mustLoad(t, dir, SourceOptions{Strict: true})
	if len(src.Certs) != 1 || src.Certs[0].File != "live/fullchain.pem" || src.Certs[0].Facts.ChainLen != 3 {
		t.Fatalf("fullchain: %+v", src.Certs)
	}
}

// TestSourceErrors: every bad input gives a clear error naming the file
// and, where there is one, the line; none quotes key material.
func TestSourceErrors(t *testing.T) {
	set := testSet(t)
	good := set[1].pair
	keyBody := strings.Split(string(good.KeyPEM), "\n")[1][:24]
	badB64 := strings.Replace(string(good.CertPEM), "M", "!", 1)
	junkDER := encodePEM("CERTIFICATE", []byte("not a certificate"))
	junkKey := encodePEM("PRIVATE KEY", []byte("not a key"))
	encKey := []byte("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n")
	b64 := base64.StdEncoding.EncodeToString
	secretList := func(items string) string { return `{"apiVersion":"v1","kind":"List","items":[` + items + `]}` }
	tlsSecret := func(crt, key string) string {
		return `{"kind":"Secret","type":"kubernetes.io/tls","metadata":{"name":"n","namespace":"ns"},"data":{"tls.crt":"` + crt + `","tls.key":"` + key + `"}}`
	}
	cases := []struct {
		name  string
		files map[string]string // relative to the temp dir
		load  string            // path to load, relative
		want  string            // substring of the Strict error
	}{
		{"bad base64", map[string]string{"d/a.pem": "intro\n" + badB64, "d/z.key": string(good.KeyPEM)}, "d", "a.pem:2: malformed PEM block"},
		{"bad certificate DER", map[string]string{"d/x/a.pem": "\n\n" + string(junkDER)}, "d", "x/a.pem:3: certificate does not parse"},
		{"bad key DER", map[string]string{"d/a.key": string(junkKey)}, "d", "a.key:1: private key does not parse"},
		{"encrypted key", map[string]string{"d/a.key": string(encKey)}, "d", "a.key:1: encrypted private key"},
		{"no END line", map[string]string{"d/a.pem": string(good.CertPEM) + "-----BEGIN CERTIFICATE-----\nAAAA\n"}, "d", "a.pem:"},
		{"key mismatch (traefik)", map[string]string{"c.yaml": "tls:\n  certificates:\n    - certFile: a.crt\n      keyFile: b.key\n", "a.crt": string(good.CertPEM), "b.key": string(set[0].pair.KeyPEM)}, "c.yaml", "c.yaml:3: tls.certificates[0]: private key does not match the certificate"},
		{"missing file (traefik)", map[string]string{"c.yaml": "tls:\n  certificates:\n    - certFile: nope.crt\n      keyFile: nope.key\n"}, "c.yaml", "c.yaml:3: tls.certificates[0].certFile: nope.crt: does not exist"},
		{"no keyFile (traefik)", map[string]string{"c.yaml": "tls:\n  certificates:\n    - certFile: a.crt\n", "a.crt": string(good.CertPEM)}, "c.yaml", "c.yaml:3: tls.certificates[0]: no keyFile"},
		{"YAML syntax", map[string]string{"c.yaml": "tls:\n  certificates:\n    - certFile: a\n   keyFile: [\n"}, "c.yaml", "c.yaml: YAML: line"},
		{"YAML wrong type", map[string]string{"c.yaml": "tls:\n  certificates:\n    certFile: a.crt\n"}, "c.yaml", "c.yaml:3: tls.certificates: is a mapping, want a list"},
		{"YAML certFile list", map[string]string{"c.yaml": "tls:\n  certificates:\n    - certFile: [a]\n      keyFile: b\n"}, "c.yaml", "c.yaml:3: tls.certificates[0].certFile: is a list, want a string"},
		{"YAML not a mapping", map[string]string{"c.yml": "- a\n- b\n"}, "c.yml", "c.yml:1: the configuration is a list"},
		{"TOML syntax", map[string]string{"c.toml": "[tls]\n[[tls.certificates]]\ncertFile = \"a\nkeyFile = 1\n"}, "c.toml", "c.toml:3: TOML:"},
		{"TOML wrong type", map[string]string{"c.toml": "[[tls.certificates]]\ncertFile = 1\nkeyFile = \"b\"\n"}, "c.toml", "c.toml: tls.certificates[0].certFile: is a number, boolean or date, want a string"},
		{"TOML inline key mismatch", map[string]string{"c.toml": "[[tls.certificates]]\ncertFile = '''\n" + string(good.CertPEM) + "'''\nkeyFile = '''\n" + string(set[0].pair.KeyPEM) + "'''\n"}, "c.toml", "c.toml: tls.certificates[0]: private key does not match"},
		{"JSON syntax", map[string]string{"s.json": "{\n\"kind\": \"List\",\n\"items\": [\n{\"type\": }\n]}"}, "s.json", "s.json:4: JSON:"},
		{"JSON truncated", map[string]string{"s.json": "{\"kind\":\"List\",\"items\":[{\"type\":\"kubernetes.io/tls\""}, "s.json", "s.json:1: JSON: unexpected end of input"},
		{"JSON wrong kind", map[string]string{"s.json": `{"kind":"Pod","items":[]}`}, "s.json", `s.json:1: kind is "Pod", want "List"`},
		{"JSON wrong type", map[string]string{"s.json": "{\"kind\":\"List\",\n\"items\":[{\"data\":{\"tls.crt\":1}}]}"}, "s.json", "s.json:2: JSON: data is a number, want string"},
		{"secret bad base64", map[string]string{"s.json": secretList(tlsSecret("%%%", b64(good.KeyPEM)))}, "s.json", `s.json:1: items[0] (ns/n): data["tls.crt"] is not valid base64`},
		{"secret no key", map[string]string{"s.json": secretList(tlsSecret(b64(good.CertPEM), ""))}, "s.json", `items[0] (ns/n): no data["tls.key"]`},
		{"secret key mismatch", map[string]string{"s.json": secretList(tlsSecret(b64(good.CertPEM), b64(set[0].pair.KeyPEM)))}, "s.json", `items[0] (ns/n): private key does not match`},
		{"secret junk cert", map[string]string{"s.json": secretList(tlsSecret(b64(junkDER), b64(good.KeyPEM)))}, "s.json", `items[0] (ns/n) data["tls.crt"] (PEM line 1): certificate does not parse`},
		{"not found", map[string]string{}, "nothing.yaml", "nothing.yaml: does not exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tc.files {
				writeFile(t, filepath.Join(dir, name), []byte(data))
			}
			_, err := Load(filepath.Join(dir, tc.load), SourceOptions{Strict: true})
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q, want it to contain %q", msg, tc.want)
			}
			if strings.Contains(msg, dir) {
				t.Errorf("error %q holds the absolute path", msg)
			}
			if strings.Contains(msg, keyBody) || strings.Contains(msg, "PRIVATE KEY-----") {
				t.Errorf("error %q holds key material", msg)
			}
			// Without Strict, entry problems are skipped and listed.
			src, err := Load(filepath.Join(dir, tc.load), SourceOptions{})
			if err == nil && len(src.Skipped) == 0 {
				t.Error("non-strict load lists nothing skipped")
			}
		})
	}
}

func TestSourceSafety(t *testing.T) {
	set := testSet(t)
	base := t.TempDir()
	root := filepath.Join(base, "root")
	writeFile(t, filepath.Join(root, "ok/a.pem"), append(append([]byte{}, set[1].pair.CertPEM...), set[1].pair.KeyPEM...))
	writeFile(t, filepath.Join(base, "outside/b.pem"), append(append([]byte{}, set[2].pair.CertPEM...), set[2].pair.KeyPEM...))
	writeFile(t, filepath.Join(root, "big.pem"), bytes.Repeat([]byte("x"), 2<<20))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Skip("cannot make the special file:", err)
		}
	}
	must(os.Symlink(filepath.Join(base, "outside/b.pem"), filepath.Join(root, "escape.pem")))
	must(os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "escapedir")))
	must(os.Symlink("ok/a.pem", filepath.Join(root, "alias.pem")))
	must(os.Symlink("ok", filepath.Join(root, "okdir")))
	must(mkfifo(filepath.Join(root, "fifo.pem")))

	done := make(chan struct{})
	var src *Source
	var err error
	go func() {
		src, err = Load(root, SourceOptions{})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a guard, far above the time Load takes
		t.Fatal("Load hangs (on the FIFO?)")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(src.Certs) != 1 || src.Certs[0].File != "alias.pem" {
		t.Fatalf("loaded %d certificates, skipped %v", len(src.Certs), src.Skipped)
	}
	reasons := map[string]string{}
	for _, s := range src.Skipped {
		reasons[s.File] = s.Reason
	}
	want := map[string]string{
		"big.pem":    "file is 2097152 bytes, over the 1048576-byte cap (raise SourceOptions.MaxFileSize to read it)",
		"escape.pem": "refused: symbolic link leads outside the source directory",
		"escapedir":  "refused: symbolic link leads outside the source directory",
		"okdir":      "symbolic link to a directory, not followed",
		"fifo.pem":   "refused: is a named pipe (FIFO), only regular files are read",
		"ok/a.pem":   "same file as alias.pem",
	}
	if !reflect.DeepEqual(reasons, want) {
		t.Errorf("skipped %v\nwant %v", reasons, want)
	}
	if _, err := Load(root, SourceOptions{Strict: true}); err == nil || !strings.Contains(err.Error(), "certgen: big.pem: file is 2097152 bytes") {
		t.Errorf("strict: %v", err)
	}
	// The cap can be raised; the big file is then read (and holds no PEM).
	src, err = Load(root, SourceOptions{MaxFileSize: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range src.Skipped {
		if s.File == "big.pem" && s.Reason != "no PEM blocks" {
			t.Errorf("big.pem with a raised cap: %s", s.Reason)
		}
	}
	// A configuration file over its cap, and a FIFO as configuration.
	writeFile(t, filepath.Join(base, "c.yaml"), bytes.Repeat([]byte("# \n"), 1000))
	if _, err := Load(filepath.Join(base, "c.yaml"), SourceOptions{MaxConfigSize: 100}); err == nil || !strings.Contains(err.Error(), "c.yaml: file is 3000 bytes, over the 100-byte cap (raise SourceOptions.MaxConfigSize") {
		t.Errorf("config cap: %v", err)
	}
	if _, err := Load(filepath.Join(root, "fifo.pem"), SourceOptions{Kind: KindSecrets}); err == nil || !strings.Contains(err.Error(), "fifo.pem: refused: is a named pipe") {
		t.Errorf("FIFO config: %v", err)
	}
}

// TestParseBundleTolerant: CRLF, text around blocks, EC PARAMETERS and
// other block types.
func TestParseBundleTolerant(t *testing.T) {
	set := testSet(t)
	data := "Certificate:\r\n  blah\r\n" + string(crlf(set[2].pair.CertPEM)) +
		"-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n" +
		"-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n" + string(set[2].pair.KeyPEM) + "bye\n"
	items, skips := parseBundle([]byte(data), "f.pem", newCertCache())
	if len(items) != 3 || items[0].cert == nil || items[0].line != 3 || items[1].cert == nil || items[2].key == nil {
		t.Fatalf("items %+v", items)
	}
	if len(skips) != 1 || !skips[0].Ignored || !strings.Contains(skips[0].Reason, `"X509 CRL" block`) {
		t.Errorf("skips %v", skips)
	}
}

func TestShapeRendering(t *testing.T) {
	sh := Shape{
		Count:       3000,
		Keys:        map[string]int{"rsa2048": 10, "p256": 40},
		Chains:      map[string]int{"3": 30, "1": 20},
		SANs:        map[string]int{"2": 1, "17-32": 4, "5-8": 2, "1025+": 1},
		Stores:      2,
		Defaults:    1,
		Fingerprint: "ab12cd34ef567890",
	}
	want := "certs-count: 3000\ncerts-keys: p256=40,rsa2048=10\ncerts-chains: 1=20,3=30\ncerts-sans: 2=1,5-8=2,17-32=4,1025+=1\ncerts-stores: 2\ncerts-defaults: 1\ncerts-fingerprint: ab12cd34ef567890\n"
	if got := sh.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for n, b := range map[int]string{0: "0", 4: "4", 5: "5-8", 8: "5-8", 9: "9-16", 1024: "513-1024", 1025: "1025+"} {
		if got := bucket(n); got != b {
			t.Errorf("bucket(%d) = %s, want %s", n, got, b)
		}
	}
	empty := (&Source{}).Shape()
	if empty.String() == "" || !strings.Contains(empty.String(), "certs-keys: none") {
		t.Errorf("empty shape: %s", empty)
	}
}

// TestGoRootTestdata loads Go's own test certificates and reports what it
// loads and skips.
func TestGoRootTestdata(t *testing.T) {
	goroot := os.Getenv("GOROOT")
	if goroot == "" {
		goroot = filepath.Join(filepath.Dir(filepath.Dir(os.Args[0])), "nonexistent")
		if out, err := runGoEnvGOROOT(); err == nil {
			goroot = out
		}
	}
	for _, rel := range []string{"src/crypto/tls/testdata", "src/crypto/x509/testdata", "src/crypto/tls"} {
		dir := filepath.Join(goroot, rel)
		if _, err := os.Stat(dir); err != nil {
			t.Logf("%s: not found", rel)
			continue
		}
		start := time.Now()
		src, err := Load(dir, SourceOptions{})
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		reasons := map[string]int{}
		for _, s := range src.Skipped {
			r := s.Reason
			if i := strings.Index(r, ": "); i > 0 && strings.HasPrefix(r, "certificate does not parse") {
				r = r[:i]
			}
			if strings.HasPrefix(r, "same ") {
				r = "duplicate"
			}
			reasons[r]++
		}
		t.Logf("%s: %d certificates in %v; %s; skipped: %v", rel, len(src.Certs), time.Since(start).Round(time.Millisecond), strings.ReplaceAll(strings.TrimSpace(src.Shape().String()), "\n", ", "), reasons)
		for _, s := range src.Skipped {
			if !s.Ignored {
				t.Logf("  %s", s)
			}
		}
	}
}

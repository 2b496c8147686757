package certgen

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzDirPairing feeds PEM files to the directory reader's parser and
// pairing: the input is split into files at NUL bytes. Nothing may panic,
// and every certificate paired must be a key pair a proxy accepts.
func FuzzDirPairing(f *testing.F) {
	for _, c := range testSet(f)[2:4] {
		f.Add(append(append(append([]byte{}, c.pair.CertPEM...), 0), c.pair.KeyPEM...))
		f.Add(crlf(append(append([]byte("text\n"), c.pair.KeyPEM...), c.pair.CertPEM...)))
	}
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n\x00-----BEGIN PRIVATE KEY-----\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cc := newCertCache()
		var files []dirFile
		for i, part := range bytes.SplitN(data, []byte{0}, 8) {
			name := "f" + strconv.Itoa(i) + ".pem"
			items, skips := parseBundle(part, name, cc)
			for _, s := range skips {
				if s.File != name || s.Reason == "" {
					t.Fatalf("bad skip %+v", s)
				}
			}
			files = append(files, dirFile{rel: name, items: items})
		}
		certs, _ := pairFiles(files)
		for _, c := range certs {
			if _, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM); err != nil && !strings.Contains(err.Error(), "unsupported") {
				t.Fatalf("paired certificate %s:%d is not a key pair: %v", c.File, c.Line, err)
			}
			if c.Facts.ChainLen < 1 || c.Facts.ChainLen > 1+len(data)/100 {
				t.Fatalf("chain length %d", c.Facts.ChainLen)
			}
		}
	})
}

// fuzzTraefik parses a configuration and loads its inline certificates
// (never files: fuzz input must not name files to read).
func fuzzTraefik(t *testing.T, data []byte, kind SourceKind) {
	src, entries, err := planTraefik("c", data, kind)
	if err != nil {
		if se, ok := err.(*SourceError); !ok || se.File != "c" {
			t.Fatalf("error %v does not name the file", err)
		}
		return
	}
	cc := newCertCache()
	for _, e := range entries {
		if !strings.Contains(e.certFile, "-----BEGIN") || !strings.Contains(e.keyFile, "-----BEGIN") {
			continue
		}
		e.load("c", t.TempDir(), cc, SourceOptions{}.withDefaults())
	}
	_ = src
}

// FuzzTraefikYAML fuzzes the Traefik YAML reader.
func FuzzTraefikYAML(f *testing.F) {
	c := testSet(f)[2].pair
	f.Add([]byte("tls:\n  certificates:\n    - certFile: a.crt\n      keyFile: a.key\n      stores: [default, x]\n  stores:\n    default:\n      defaultCertificate: {certFile: a, keyFile: b}\n"))
	f.Add([]byte("tls:\n  certificates:\n    - certFile: |\n" + indent(string(c.CertPEM), "        ") + "      keyFile: |\n" + indent(string(c.KeyPEM), "        ")))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("x: &x {certFile: a, keyFile: b}\ntls: {certificates: [*x, {<<: *x, stores: [s]}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTraefik(t, data, KindTraefikYAML) })
}

// FuzzTraefikTOML fuzzes the Traefik TOML reader.
func FuzzTraefikTOML(f *testing.F) {
	c := testSet(f)[2].pair
	f.Add([]byte("[[tls.certificates]]\ncertFile = \"a.crt\"\nkeyFile = \"a.key\"\nstores = [\"x\"]\n[tls.stores.default.defaultCertificate]\ncertFile = \"a\"\nkeyFile = \"b\"\n"))
	f.Add([]byte("[[tls.certificates]]\ncertFile = '''\n" + string(c.CertPEM) + "'''\nkeyFile = '''\n" + string(c.KeyPEM) + "'''\n"))
	f.Add([]byte("[tls]\ncertificates = 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTraefik(t, data, KindTraefikTOML) })
}

// FuzzSecrets fuzzes the Kubernetes Secret list reader.
func FuzzSecrets(f *testing.F) {
	f.Add([]byte(`{"kind":"List","items":[{"kind":"Secret","type":"kubernetes.io/tls","metadata":{"name":"a","namespace":"b"},"data":{"tls.crt":"QQ==","tls.key":"QQ=="}},{"type":"Opaque"}]}`))
	f.Add([]byte(`{"items":null,"kind":"SecretList","metadata":{}}`))
	f.Add([]byte("{\n\"kind\": \"List\",\n\"items\": [\n{\"type\": }\n]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		src, err := loadSecrets("s.json", data, SourceOptions{}.withDefaults())
		if err != nil {
			if se, ok := err.(*SourceError); !ok || se.File != "s.json" {
				t.Fatalf("error %v does not name the file", err)
			}
			return
		}
		for _, c := range src.Certs {
			if _, err := tls.X509KeyPair(c.CertPEM, c.KeyPEM); err != nil && !strings.Contains(err.Error(), "unsupported") {
				t.Fatalf("secret %s is not a key pair: %v", c.Where, err)
			}
		}
	})
}

// TestWriteFuzzSeeds rewrites the committed seed corpus under
// testdata/fuzz when CERTBENCH_WRITE_FUZZ_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("CERTBENCH_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set CERTBENCH_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz")
	}
	set := testSet(t)
	p384, ed, chain := set[2].pair, set[3].pair, set[5].pair
	blocks := bytes.SplitAfter(chain.CertPEM, []byte("-----END CERTIFICATE-----\n"))
	seeds := map[string][]string{
		"FuzzDirPairing": {
			string(p384.CertPEM) + "\x00" + string(p384.KeyPEM),
			string(crlf(append(append([]byte("Certificate:\n    Data:\n"), ed.KeyPEM...), ed.CertPEM...))),
			string(blocks[0]) + "\x00" + string(chain.KeyPEM) + "\x00" + string(blocks[1]) + "\x00" + string(blocks[2]),
			string(chain.CertPEM) + string(chain.KeyPEM) + "\x00" + string(chain.CertPEM),
			"-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n",
			"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n\nAAAA\n-----END RSA PRIVATE KEY-----\n",
		},
		"FuzzTraefikYAML": {
			"tls:\n  options:\n    default: {minVersion: VersionTLS12}\n  certificates:\n    - certFile: |\n" + indent(string(ed.CertPEM), "        ") + "      keyFile: |\n" + indent(string(ed.KeyPEM), "        ") + "      stores: [default, internal]\n",
			"tls:\n  stores:\n    default:\n      defaultCertificate:\n        certFile: a.crt\n        keyFile: a.key\n    other: {}\n",
			"base: &b {certFile: a.crt, keyFile: a.key}\ntls:\n  certificates: [*b, {<<: *b, stores: [x]}]\n",
			"tls:\n  certificates:\n    certFile: a\n",
			"tls:\n  certificates:\n    - certFile: a\n   keyFile: [\n",
		},
		"FuzzTraefikTOML": {
			"[[tls.certificates]]\ncertFile = '''\n" + string(ed.CertPEM) + "'''\nkeyFile = '''\n" + string(ed.KeyPEM) + "'''\nstores = [\"default\", \"x\"]\n",
			"[tls.stores.default.defaultCertificate]\ncertFile = \"a.crt\"\nkeyFile = \"a.key\"\n[tls.options.default]\nminVersion = \"VersionTLS12\"\n",
			"[[tls.certificates]]\ncertFile = 1\n",
			"[tls]\n[[tls.certificates]]\ncertFile = \"a\nkeyFile = 1\n",
		},
		"FuzzSecrets": {
			`{"apiVersion":"v1","kind":"List","items":[{"kind":"Secret","type":"kubernetes.io/tls","metadata":{"name":"a","namespace":"b"},"data":{"tls.crt":"` + base64.StdEncoding.EncodeToString(ed.CertPEM) + `","tls.key":"` + base64.StdEncoding.EncodeToString(ed.KeyPEM) + `"}},{"type":"Opaque","data":{"x":"eA=="}}],"metadata":{"resourceVersion":""}}`,
			`{"kind":"List","items":[{"type":"kubernetes.io/tls","data":{"tls.crt":"%%%","tls.key":""}}]}`,
			"{\n\"kind\": \"List\",\n\"items\": [\n{\"type\": }\n]}",
			`{"kind":"Pod"}`,
		},
	}
	for target, inputs := range seeds {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, in := range inputs {
			body := "go test fuzz v1\n[]byte(" + strconv.Quote(in) + ")\n"
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

package scenarios

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// goCatalogue is the catalogue as it was written in Go before it became
// data (scenarios/catalogue/*.yaml): the files must define exactly these
// scenarios, so that results before and after compare.
var goCatalogue = []Scenario{
	{Name: "rotate-10-of-100", Kind: Rotate, Window: 10, Ops: 10, Default: true, Pool: certgen.PoolSpec{Seed: 1, Count: 100}},
	{Name: "rotate-10-of-100-rsa", Kind: Rotate, Window: 10, Ops: 10, Default: true, Pool: certgen.PoolSpec{Seed: 1, Count: 100, Key: certgen.RSA2048}},
	{Name: "renew-1-of-1000", Kind: Renew, Ops: 10, Default: true, Pool: certgen.PoolSpec{Seed: 2, Count: 1000}},
	{Name: "renew-1-of-10000", Kind: Renew, Ops: 3, Default: true, Pool: certgen.PoolSpec{Seed: 3, Count: 10000}},
	{Name: "noop-10000", Kind: Noop, Ops: 3, Default: true, Pool: certgen.PoolSpec{Seed: 3, Count: 10000}},
	{Name: "startup-10000", Kind: Startup, Ops: 2, Default: true, Pool: certgen.PoolSpec{Seed: 3, Count: 10000}},
	{Name: "multistore-1000", Kind: Renew, Ops: 10, Default: true, Pool: certgen.PoolSpec{Seed: 4, Count: 1000}, Stores: []string{"edge-a", "edge-b", "edge-c"}},
	{Name: "lookup-1000", Kind: Lookup, Ops: 20000, Default: true, Pool: certgen.PoolSpec{Seed: 2, Count: 1000}},
	{Name: "handshake-under-churn", Kind: HandshakeUnderChurn, Ops: 4_000_000, Duration: 2 * time.Second, Pool: certgen.PoolSpec{Seed: 2, Count: 1000}},
	{Name: "handshake-1000", Kind: Handshake, Ops: 20000, Duration: 2 * time.Second, Pool: certgen.PoolSpec{Seed: 2, Count: 1000}, Stores: []string{"edge"},
		Handshake: HandshakeSpec{TLS12Share: 0.25, ResumeShare: 0.2}},
	{Name: "handshake-1000-rsa", Kind: Handshake, Ops: 20000, Duration: 2 * time.Second, Pool: certgen.PoolSpec{Seed: 1, Count: 1000, Key: certgen.RSA2048}, Stores: []string{"edge"},
		Handshake: HandshakeSpec{TLS12Share: 0.25, ResumeShare: 0.2}},
	{Name: "handshake-under-renew-1-of-10000", Kind: Handshake, Ops: 20000, Duration: 2 * time.Second, Pool: certgen.PoolSpec{Seed: 3, Count: 10000}, Stores: []string{"edge"},
		Handshake: HandshakeSpec{TLS12Share: 0.25, ResumeShare: 0.2, Churn: true, RefreshEvery: 100 * time.Millisecond}},
	{Name: "held-100-renew-1-of-1000", Kind: Held, Renew: 1, Held: 100, Ops: 100, Pool: certgen.PoolSpec{Seed: 2, Count: 1000}},
	{Name: "held-churn-1000", Kind: Held, Renew: 1, Held: 20, Ops: 200, Pool: certgen.PoolSpec{Seed: 2, Count: 1000}},
	{Name: "held-20-renew-1-of-100", Kind: Held, Renew: 1, Held: 20, Ops: 20, Pool: certgen.PoolSpec{Seed: 2, Count: 100}},
}

func TestCatalogueIsTheGoCatalogue(t *testing.T) {
	if len(Catalogue) != len(goCatalogue) {
		t.Fatalf("catalogue has %d scenarios, want %d", len(Catalogue), len(goCatalogue))
	}
	for i, want := range goCatalogue {
		got := Catalogue[i]
		if got.Name != want.Name || got.Default != want.Default {
			t.Errorf("scenario %d: %s (default %t), want %s (default %t)", i, got.Name, got.Default, want.Name, want.Default)
		}
		if got.Definition() != want.Definition() {
			t.Errorf("%s: definition\n%s\nwant\n%s", want.Name, got.Definition(), want.Definition())
		}
		if got.Description == "" || strings.Contains(got.Description, "\n") {
			t.Errorf("%s: description %q: want one line", want.Name, got.Description)
		}
	}
}

// TestScenarioFileReproducesCatalogue copies the catalogue's
// rotate-10-of-100 file to disk, loads it as a user's scenario file,
// and checks that it builds the same workload byte for byte as the
// catalogue scenario and as the Go definition it replaced.
func TestScenarioFileReproducesCatalogue(t *testing.T) {
	data, err := catalogueFiles.ReadFile("catalogue/01-rotate-10-of-100.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rotate.yaml")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := ByName("rotate-10-of-100")
	if err != nil {
		t.Fatal(err)
	}
	if file.Hash() != cat[0].Hash() || file.Hash() != goCatalogue[0].Hash() {
		t.Errorf("hashes: file %s, catalogue %s, Go %s; want one", file.Hash(), cat[0].Hash(), goCatalogue[0].Hash())
	}
	wf, err := file.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []Scenario{cat[0], goCatalogue[0]} {
		wc, err := other.Build(0)
		if err != nil {
			t.Fatal(err)
		}
		if !sameConfigs(wf, wc) {
			t.Errorf("scenario file and %+v build different configurations", other.Pool)
		}
	}
}

func sameConfigs(a, b *Workload) bool {
	all := func(w *Workload) []*certstore.Config { return append(slices.Clone(w.Configs), w.Next) }
	ca, cb := all(a), all(b)
	if len(ca) != len(cb) || a.Certs != b.Certs || a.Store != b.Store || a.FreshStore != b.FreshStore {
		return false
	}
	for i := range ca {
		x, y := ca[i], cb[i]
		if len(x.Certificates) != len(y.Certificates) || len(x.Stores) != len(y.Stores) {
			return false
		}
		for k := range x.Certificates {
			p, q := x.Certificates[k], y.Certificates[k]
			if !bytes.Equal(p.CertPEM, q.CertPEM) || !bytes.Equal(p.KeyPEM, q.KeyPEM) || !slices.Equal(p.Stores, q.Stores) {
				return false
			}
		}
	}
	return true
}

func TestCatalogueFileNames(t *testing.T) {
	entries, err := catalogueFiles.ReadDir("catalogue")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(Catalogue) {
		t.Fatalf("%d files, %d scenarios", len(entries), len(Catalogue))
	}
	for i, e := range entries {
		if want := Catalogue[i].Name + ".yaml"; !strings.HasSuffix(e.Name(), "-"+want) {
			t.Errorf("file %d is %s, want NN-%s", i, e.Name(), want)
		}
	}
}

const sequenceFile = `# 150 renewals a day, one refresh a minute
name: renew-150-a-day
description: >
  150 renewals spread over
  a day of 1,440 refreshes
pool:
  seed: 7
  count: 300
  key: mixed
  max_sans: 3
  wildcard_every: 0
  ip_every: 10
stores: [edge-a, edge-b]
churn:
  kind: sequence
  spread: {renewals: 150, refreshes: 1440}
`

func TestParseSequence(t *testing.T) {
	sc, err := ParseFile([]byte(sequenceFile), "day.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Kind != Sequence || sc.Ops != 1440 || len(sc.Steps) != 1440 || sc.Description != "150 renewals spread over a day of 1,440 refreshes" {
		t.Fatalf("got kind %s, %d ops, %d steps, %q", sc.Kind, sc.Ops, len(sc.Steps), sc.Description)
	}
	sum, most := 0, 0
	for _, s := range sc.Steps {
		sum += s
		most = max(most, s)
	}
	if sum != 150 || most != 1 {
		t.Errorf("steps renew %d certificates, at most %d per refresh; want 150, 1", sum, most)
	}
	if sc.Pool.WildcardEvery != -1 || sc.Pool.IPEvery != 10 || sc.Pool.Key != certgen.Mixed || sc.Pool.MaxSANs != 3 {
		t.Errorf("pool %+v", sc.Pool)
	}
	// A short sample: 20 refreshes; count what changes between them.
	w, err := sc.Build(20)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i := 1; i < len(w.Configs); i++ {
		for k, c := range w.Configs[i].Certificates {
			if !bytes.Equal(c.CertPEM, w.Configs[i-1].Certificates[k].CertPEM) {
				changed++
			}
		}
	}
	want := 0
	for j := range 20 {
		want += sc.Steps[j]
	}
	if changed != want || want == 0 {
		t.Errorf("20 refreshes changed %d certificates, the steps say %d", changed, want)
	}
	if len(w.Configs[0].Stores) != 2 {
		t.Errorf("stores %v", w.Configs[0].Stores)
	}
}

func TestParseStepsAndMix(t *testing.T) {
	sc, err := ParseFile([]byte(`
name: burst
pool: {count: 50}
churn:
  kind: sequence
  steps:
    - {renew: 5}
    - {renew: 0, repeat: 3}
ops: 8
`), "burst.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sc.Steps, []int{5, 0, 0, 0}) || sc.Ops != 8 {
		t.Errorf("steps %v ops %d", sc.Steps, sc.Ops)
	}
	lk, err := ParseFile([]byte("name: lk\npool: {seed: 2, count: 100}\nchurn: {kind: lookup}\nlookup: {exact: 45, wildcard: 5, miss: 50}\nops: 1000\n"), "lk.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w, err := lk.Build(0)
	if err != nil {
		t.Fatal(err)
	}
	miss := 0
	for _, h := range w.Hellos {
		if strings.Contains(h.ServerName, ".unknown.") {
			miss++
		}
	}
	if len(w.Hellos) != 1000 || miss != 500 {
		t.Errorf("%d hellos, %d misses; want 1000, 500", len(w.Hellos), miss)
	}
	if lk.Hash() == Catalogue[7].Hash() {
		t.Error("a different mix has the catalogue lookup's hash")
	}
}

func TestParseFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"empty", "", "f.yaml: empty configuration"},
		{"syntax", "name: [x\n", "f.yaml:"},
		{"not a mapping", "- a\n", "f.yaml:1:1: want a scenario (name, pool, churn, ops), found a list"},
		{"unknown field", "name: x\npool: {count: 1}\nchurn: {kind: noop}\nops: 1\nopz: 2\n", "f.yaml:5:1: opz: unknown field; did you mean ops? (known: name,"},
		{"field typo", "name: x\npool: {count: 1, max_san: 3}\nchurn: {kind: noop}\nops: 1\n", "f.yaml:2:18: pool.max_san: unknown field; did you mean max_sans? (known: "},
		{"twice", "name: x\nname: y\n", "f.yaml:2:1: name: set twice (first at line 1, column 1)"},
		{"bad name", "name: Rotate 10\npool: {count: 1}\nchurn: {kind: noop}\nops: 1\n", "f.yaml:1:7: name: \"Rotate 10\": want 1 to 64 lower-case"},
		{"missing churn", "name: x\npool: {count: 1}\nops: 1\n", "f.yaml:1:1: churn: missing (required: name, pool, churn)"},
		{"missing ops", "name: x\npool: {count: 1}\nchurn: {kind: noop}\n", "f.yaml:1:1: ops: missing: want the ops in one sample, from 1 to 1073741824: fixed, so that B/op and allocs/op compare"},
		{"bad kind", "name: x\npool: {count: 1}\nchurn: {kind: shuffle}\nops: 1\n", "f.yaml:3:15: churn.kind: \"shuffle\": want one of rotate, renew,"},
		{"window on noop", "name: x\npool: {count: 1}\nchurn: {kind: noop, window: 3}\nops: 1\n", "f.yaml:3:21: churn.window: a noop scenario does not take window"},
		{"rotate without window", "name: x\npool: {count: 9}\nchurn: {kind: rotate}\nops: 1\n", "f.yaml:3:8: churn.window: missing: want the certificates in each configuration"},
		{"count zero", "name: x\npool: {count: 0}\nchurn: {kind: noop}\nops: 1\n", "f.yaml:2:15: pool.count: 0: want certificates from 1 to 1000000"},
		{"count string", "name: x\npool: {count: lots}\nchurn: {kind: noop}\nops: 1\n", "f.yaml:2:15: pool.count: want a whole number, found \"lots\""},
		{"bad key", "name: x\npool: {count: 1, key: dsa}\nchurn: {kind: noop}\nops: 1\n", "f.yaml:2:23: pool.key: \"dsa\": want p256, rsa2048 or mixed"},
		{"certs and count", "name: x\npool: {count: 1, certs: ./c}\nchurn: {kind: noop}\nops: 1\n", "pool.count: pool.certs replaces the generated pool"},
		{"certs needs disk", "name: x\npool: {certs: ./c}\nchurn: {kind: noop}\nops: 1\n", "pool.certs needs the file on disk"},
		{"mix sum", "name: x\npool: {count: 1}\nchurn: {kind: lookup}\nlookup: {exact: 60, miss: 20}\nops: 1\n", "f.yaml:4:9: lookup: exact 60 + wildcard 0 + miss 20 = 80"},
		{"mix on renew", "name: x\npool: {count: 1}\nchurn: {kind: renew}\nlookup: {exact: 100}\nops: 1\n", "lookup: only lookup, handshake"},
		{"spread and steps", "name: x\npool: {count: 1}\nchurn: {kind: sequence, steps: [{renew: 1}], spread: {renewals: 1, refreshes: 2}}\nops: 1\n", "churn.spread: give steps or spread, not both"},
		{"step without renew", "name: x\npool: {count: 1}\nchurn: {kind: sequence, steps: [{repeat: 2}]}\n", "f.yaml:3:33: churn.steps[0].renew: missing: want the certificates renewed in this refresh"},
		{"too many steps", "name: x\npool: {count: 1}\nchurn: {kind: sequence, steps: [{renew: 1, repeat: 100000}, {renew: 0, repeat: 2}]}\n", "f.yaml:3:80: churn.steps[1].repeat: 2: the steps add up to more than 100000"},
		{"bad duration", "name: x\npool: {count: 1}\nstores: [e]\nchurn: {kind: handshake}\nops: 1\nduration: forever\n", "f.yaml:6:11: duration: want a duration such as 2s or 100ms, found \"forever\""},
		{"duration on rotate", "name: x\npool: {count: 2}\nchurn: {kind: rotate, window: 1}\nops: 1\nduration: 2s\n", "f.yaml:5:1: duration: only handshake"},
		{"handshake without store", "name: x\npool: {count: 1}\nchurn: {kind: handshake}\nops: 1\nduration: 1s\n", "f.yaml:1:1: stores: missing: a handshake scenario needs a named store"},
		{"share", "name: x\npool: {count: 1}\nstores: [e]\nchurn: {kind: handshake}\nhandshake: {tls12_share: 2}\nops: 1\nduration: 1s\n", "f.yaml:5:26: handshake.tls12_share: 2: want a fraction from 0 to 1"},
		// Types are strict: no YAML 1.1 booleans, no fractions for whole
		// numbers, no empty values or lists.
		{"yes", "name: x\ndefault: yes\npool: {count: 1}\nchurn: {kind: noop}\nops: 1\n", `f.yaml:2:10: default: want true or false, found "yes"`},
		{"fraction", "name: x\npool: {count: 1}\nchurn: {kind: noop}\nops: 1.5\n", `f.yaml:4:6: ops: want a whole number, found "1.5"`},
		{"no value", "name: x\npool:\nchurn: {kind: noop}\nops: 1\n", "f.yaml:2:6: pool: want a mapping (seed, count, key, max_sans, wildcard_every, ip_every, domain, certs, strict, namespaces), found nothing"},
		{"empty list", "name: x\npool: {count: 1}\nstores: []\nchurn: {kind: noop}\nops: 1\n", "f.yaml:3:9: stores: empty list"},
		{"seed negative", "name: x\npool: {count: 1, seed: -1}\nchurn: {kind: noop}\nops: 1\n", `f.yaml:2:24: pool.seed: want a whole number, found "-1"`},
		{"max_sans 0", "name: x\npool: {count: 1, max_sans: 0}\nchurn: {kind: noop}\nops: 1\n", "f.yaml:2:28: pool.max_sans: 0: want DNS names from 1 to 100"},
		{"renew 0", "name: x\npool: {count: 1}\nchurn: {kind: renew, renew: 0}\nops: 1\n", "f.yaml:3:29: churn.renew: 0: want certificates renewed per refresh from 1"},
		{"every error", "name: X\npool: {count: lots}\nchurn: {kind: noop}\nops: 0\n", `f.yaml:1:7: name: "X": want 1 to 64`},
		{"every error 2", "name: X\npool: {count: lots}\nchurn: {kind: noop}\nops: 0\n", "f.yaml:4:6: ops: 0: want the ops in one sample"},
		{"churn error and ops", "name: x\npool: {count: 1}\nchurn: {kind: noop, window: 3}\nops: 0\n", "f.yaml:4:6: ops: 0: want the ops in one sample"},
		{"held missing", "name: x\npool: {count: 1}\nchurn: {kind: held}\nops: 1\n", "f.yaml:3:8: churn.held: missing: want connections open at once, each holding a generation, from 1 to 1000"},
		{"held above ops", "name: x\npool: {count: 1}\nchurn: {kind: held, held: 5}\nops: 4\n", "f.yaml:4:6: ops: 4: want at least churn.held (5) refreshes"},
		{"held on renew", "name: x\npool: {count: 1}\nchurn: {kind: renew, held: 5}\nops: 5\n", "churn.held: a renew scenario does not take held"},
		{"store twice", "name: x\npool: {count: 1}\nstores: [a, a]\nchurn: {kind: noop}\nops: 1\n", "f.yaml:3:13: stores[1]: \"a\": named twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFile([]byte(tc.doc), "f.yaml")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, tc.want)
			}
			var fe *FileError
			if !errors.As(err, &fe) && !strings.Contains(tc.want, "disk") {
				t.Errorf("error %T is not a *FileError", err)
			}
		})
	}
}

func TestLoadFileCerts(t *testing.T) {
	dir := t.TempDir()
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: 9, Count: 12})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "certs"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, f := range pool.Certs {
		base := filepath.Join(dir, "certs", "c"+string(rune('a'+i)))
		if os.WriteFile(base+".crt", f.Pair.CertPEM, 0o644) != nil || os.WriteFile(base+".key", f.Pair.KeyPEM, 0o600) != nil {
			t.Fatal("write")
		}
	}
	path := filepath.Join(dir, "mine.yaml")
	doc := "name: mine\npool: {certs: certs}\nchurn: {kind: renew, renew: 2}\nops: 3\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Certs == nil || len(sc.Certs.Certs) != 12 || sc.Renew != 2 {
		t.Fatalf("certs %v, renew %d", sc.Certs != nil, sc.Renew)
	}
	if strings.Contains(sc.Definition(), dir) || strings.Contains(sc.Definition(), "certs:") {
		t.Errorf("the definition names the path: %s", sc.Definition())
	}
	if _, err := sc.Build(0); err != nil {
		t.Fatal(err)
	}
	// A missing source names the file and the field.
	if err := os.WriteFile(path, []byte(strings.Replace(doc, "certs}", "nowhere}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), "mine.yaml: pool.certs:") {
		t.Errorf("missing source: %v", err)
	}
	if _, err := LoadFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: %v", err)
	}
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte(sequenceFile))
	entries, _ := catalogueFiles.ReadDir("catalogue")
	for _, e := range entries {
		data, _ := catalogueFiles.ReadFile("catalogue/" + e.Name())
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseFile(data, "f.yaml")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "scenario file") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if sc.Name == "" || sc.Kind == "" || sc.Ops < 1 {
			t.Fatalf("accepted %+v", sc)
		}
		_ = sc.Hash()
	})
}

package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/cli"
)

// writeCertsDir writes a small generated pool as a directory of PEM files
// and returns the directory and every name the certificates have.
func writeCertsDir(t *testing.T, seed uint64, count int) (dir string, names []string) {
	t.Helper()
	pool, err := certgen.NewPool(certgen.PoolSpec{Seed: seed, Count: count, Key: certgen.Mixed, MaxSANs: 3, WildcardEvery: 3, Domain: "secret-customer.test"})
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "private-cert-dir")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range pool.Certs {
		data := append(append([]byte{}, f.Pair.CertPEM...), f.Pair.KeyPEM...)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("customer-%d.pem", f.Index)), data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, n := range f.Names {
			names = append(names, n, strings.TrimPrefix(n, "*."))
		}
	}
	return dir, names
}

// checkPrivate fails if out has any certificate name, the directory, a
// file name from it or PEM.
func checkPrivate(t *testing.T, what, out, dir string, names []string) {
	t.Helper()
	low := strings.ToLower(out)
	for _, n := range append(names, dir, filepath.Base(dir), "customer-", "secret-customer") {
		if strings.Contains(low, strings.ToLower(n)) {
			t.Errorf("%s holds %q", what, n)
		}
	}
	if strings.Contains(out, "-----BEGIN") || strings.Contains(out, "PRIVATE KEY") {
		t.Errorf("%s holds PEM", what)
	}
}

var shapeKeys = []string{"certs-count: 7", "certs-keys: ", "certs-chains: ", "certs-sans: ", "certs-stores: 1", "certs-defaults: 0", "certs-fingerprint: "}

func TestRunCertsRecordsShapeOnly(t *testing.T) {
	dir, names := writeCertsDir(t, 21, 7)
	out := filepath.Join(t.TempDir(), "r.txt")
	code, stdout, stderr := run(t, "run", "--stores", "optimized", "--certs", dir, "--scenarios", "renew-1-of-1000,lookup-certs", "--count", "1", "--ops", "2", "-o", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range shapeKeys {
		if !strings.Contains(string(data), "\n"+k) {
			t.Errorf("results lack %q:\n%s", k, data)
		}
	}
	for _, want := range []string{"scenario=renew-1-of-certs/store=optimized", "scenario=lookup-certs/store=optimized"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("results lack %s:\n%s", want, data)
		}
	}
	checkPrivate(t, "results", string(data)+stdout, dir, names)
	if !strings.Contains(stderr, "7 certificates loaded") {
		t.Errorf("stderr does not say what was loaded: %q", stderr)
	}
	checkPrivate(t, "stderr (after the --certs path)", strings.ReplaceAll(stderr, dir, ""), dir, names)
}

func TestCompareCertsDefaultSet(t *testing.T) {
	dir, names := writeCertsDir(t, 22, 7)
	raw := filepath.Join(t.TempDir(), "raw.txt")
	code, table, stderr := run(t, "compare", "--certs", dir, "--stores", "naive,optimized", "--count", "1", "--ops", "1", "-q", "-o", raw)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []string{"rotate-1-of-certs", "renew-1-of-certs", "noop-certs", "startup-certs", "multistore-certs", "lookup-certs"} {
		for _, st := range []string{"naive", "optimized"} {
			if !strings.Contains(string(data), "scenario="+sc+"/store="+st) {
				t.Errorf("raw results lack %s on %s", sc, st)
			}
		}
		if !strings.Contains(table, sc) {
			t.Errorf("table lacks %s:\n%s", sc, table)
		}
	}
	// Every scenario that ran is one of the -certs ones (a measured value
	// may contain any digits, so only the names are looked at).
	for _, m := range regexp.MustCompile(`scenario=([^/\s]+)`).FindAllStringSubmatch(string(data), -1) {
		if !strings.HasSuffix(m[1], "-certs") {
			t.Errorf("a generated-pool scenario ran with --certs: %s", m[1])
		}
	}
	for _, k := range shapeKeys {
		if !strings.Contains(string(data), "\n"+k) {
			t.Errorf("raw results lack %q", k)
		}
	}
	checkPrivate(t, "compare output", string(data)+table+stderr, dir, names)
}

func TestGateRefusesDifferentCerts(t *testing.T) {
	dir, _ := writeCertsDir(t, 23, 5)
	tmp := t.TempDir()
	base := filepath.Join(tmp, "base.txt")
	code, _, stderr := run(t, "run", "--stores", "optimized", "--certs", dir, "--scenarios", "noop-certs", "--count", "4", "--ops", "1", "-q", "-o", base)
	if code != cli.ExitOK {
		t.Fatalf("run exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	fp := regexp.MustCompile(`certs-fingerprint: ([0-9a-f]+)`).FindSubmatch(data)
	if fp == nil {
		t.Fatalf("no fingerprint in\n%s", data)
	}
	other := strings.Replace(strings.Replace(string(data), "certs-fingerprint: "+string(fp[1]), "certs-fingerprint: 0123456789abcdef", 1), "certs-count: 5", "certs-count: 6", 1)
	head := filepath.Join(tmp, "head.txt")
	if err := os.WriteFile(head, []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}

	code, _, stderr = run(t, "gate", "--config=", base, base)
	if code == cli.ExitUsage || strings.Contains(stderr, "different certificates") {
		t.Errorf("gate of a file against itself: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(t, "gate", "--config=", base, head)
	if code != cli.ExitUsage {
		t.Errorf("gate on different certificates: exit %d, want %d", code, cli.ExitUsage)
	}
	for _, want := range []string{"different certificates", "count 5, fingerprint " + string(fp[1]), "count 6, fingerprint 0123456789abcdef", "allow_different_certs"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("gate refusal does not say %q:\n%s%s", want, stdout, stderr)
		}
	}
	code, stdout, stderr = run(t, "gate", configFlag(t, "allow_different_certs: true"), base, head)
	if code == cli.ExitUsage {
		t.Errorf("allow_different_certs: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout+stderr, "different certificates") {
		t.Errorf("allow_different_certs: no warning:\n%s%s", stdout, stderr)
	}

	code, _, stderr = run(t, "compare", base, head)
	if code != cli.ExitOK || !strings.Contains(stderr, "measured on different certificates") {
		t.Errorf("compare of files on different certificates: exit %d, stderr %q", code, stderr)
	}
}

func TestCertsUsageErrors(t *testing.T) {
	dir, _ := writeCertsDir(t, 24, 1)
	missing := filepath.Join(t.TempDir(), "nosuch")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--certs", missing}, "--certs " + missing + ": certgen: nosuch: does not exist"},
		{[]string{"run", "--certs", dir, "--scenarios", "rotate-10-of-100"}, "at least 2 certificates"},
		{[]string{"run", "--certs", dir, "--scenarios", "handshake-1000"}, "cannot run on loaded certificates"},
		{[]string{"run", "--certs", dir, "--scenarios", "nosuch"}, `unknown scenario "nosuch"`},
		{[]string{"compare", "--certs", dir, "testdata/old.txt"}, "--certs applies only when compare runs"},
		{[]string{"sweep", "--certs", dir}, "unknown flag --certs"},
		{[]string{"profile", "--stores", "naive", "--scenarios", "nosuch", "--certs", dir}, `unknown scenario "nosuch"`},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			if code != cli.ExitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr %q does not say %q", stderr, tc.want)
			}
		})
	}
}

func TestProfileCerts(t *testing.T) {
	dir, names := writeCertsDir(t, 25, 4)
	out := t.TempDir()
	code, stdout, stderr := run(t, "profile", "--stores", "optimized", "--scenarios", "renew-1-of-certs", "--certs", dir, "--ops", "1", "--out", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "renew-1-of-certs.optimized.pb.gz")); err != nil {
		t.Error(err)
	}
	checkPrivate(t, "profile summary", stdout, dir, names)
}

// TestCertsRealWorld runs on certificates made with openssl as users make
// them (certgen/testdata/realworld): the one without a name and the
// server certificate whose key is missing are refused at load time, named
// with the reason, and the run goes on with the usable ones; with
// pool.strict in a scenario file it stops at load time, naming the first.
func TestCertsRealWorld(t *testing.T) {
	const dir = "../certgen/testdata/realworld"
	out := filepath.Join(t.TempDir(), "out.txt")
	code, _, stderr := run(t, "run", "--stores", "optimized", "--certs", dir, "--scenarios", "rotate-1-of-certs,lookup-certs", "--count", "1", "--ops", "2", "-o", out)
	if code != cli.ExitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{
		"2 certificates loaded",
		"4 entries skipped (2 unusable; 2 ignored: other files, duplicates, CA certificates):",
		// Why it goes on, and how to stop instead.
		"the results are of the 2 certificates loaded: an unusable entry is left out, as a proxy leaves out a certificate it cannot load. To stop on one instead: a scenario file with pool: {certs: " + dir + ", strict: true}",
		"skipped nokey.pem:1: certificate has no matching private key",
		"skipped widgits.pem:1: certificate has no name",
		"ignored README.txt: no PEM blocks",
		"ignored root-ca.pem:1: CA certificate is in no leaf's chain",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\nBenchmark"); n != 2 || !strings.Contains(string(data), "certs-count: 2\n") {
		t.Errorf("%d samples (want 2), certs-count 2 %v:\n%s", n, strings.Contains(string(data), "certs-count: 2\n"), data)
	}

	abs, aerr := filepath.Abs(dir)
	if aerr != nil {
		t.Fatal(aerr)
	}
	strict := writeScenario(t, t.TempDir(), "strict.yaml", "name: strict\npool: {certs: "+abs+", strict: true}\nchurn: {kind: lookup}\nops: 2\n")
	code, _, stderr = run(t, "run", "--stores", "optimized", "--scenarios", strict, "--count", "1", "-o", out)
	if code != cli.ExitUsage || !strings.Contains(stderr, "nokey.pem:1: certificate has no matching private key") || strings.Contains(stderr, "store optimized") {
		t.Errorf("pool.strict: exit %d, want %d at load time naming nokey.pem:\n%s", code, cli.ExitUsage, stderr)
	}
}

package optimized

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"testing"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// diffFixture is a certificate of the differential test: few names, drawn
// from a small set so that many certificates share them.
type diffFixture struct {
	pair  certstore.KeyPair
	names []string // certstore.Names of the leaf
	leaf  []byte
}

// diffNames are the names the fixtures share; every fixture also has one
// name of its own (own-N.t).
var diffNames = []string{"a.t", "b.t", "c.t", "x.w.t", "*.w.t", "*.v.t", "*.t", "10.0.0.1", "10.0.0.2", "2001:db8::7"}

var diffFixtures = sync.OnceValue(func() []diffFixture {
	is := certgen.NewIssuer(77)
	r := rand.New(rand.NewPCG(5, 6))
	var out []diffFixture
	for i := range 16 {
		leaf := certgen.Leaf{Serial: uint64(100 + i), DNSNames: []string{fmt.Sprintf("own-%d.t", i)}}
		for range r.IntN(4) {
			n := diffNames[r.IntN(len(diffNames))]
			if ip := net.ParseIP(n); ip != nil {
				leaf.IPAddresses = append(leaf.IPAddresses, ip)
			} else if !slices.Contains(leaf.DNSNames, n) {
				leaf.DNSNames = append(leaf.DNSNames, n)
			}
		}
		if i%5 == 0 {
			leaf.CommonName = "A.T" // shared, in upper case
		}
		pair, err := is.Issue(leaf)
		if err != nil {
			panic(err)
		}
		c, err := tls.X509KeyPair(pair.CertPEM, pair.KeyPEM)
		if err != nil {
			panic(err)
		}
		out = append(out, diffFixture{pair: pair, names: certstore.Names(c.Leaf), leaf: c.Certificate[0]})
	}
	return out
})

// diffSNIs are the server names every step looks up.
func diffSNIs() []string {
	snis := []string{"a.t", "A.T", "b.t", "c.t", "x.w.t", "y.w.t", "q.v.t", "v.t", "w.t", "z.t", "t",
		"10.0.0.1", "10.0.0.2", "::ffff:10.0.0.2", "2001:db8::7", "2001:DB8:0::7", "10.0.0.3", "nothing.t", ""}
	for i := range 16 {
		snis = append(snis, fmt.Sprintf("own-%d.t", i))
	}
	return snis
}

// diffPos is one configured certificate: a fixture and its store list.
type diffPos struct {
	fix    int
	stores []string
}

// diffState is a configuration of the differential test.
type diffState struct {
	certs    []diffPos
	s2       bool // store "s2" is declared
	default1 int  // fixture configured as s1's default, or -1
}

func (st *diffState) config() *certstore.Config {
	fx := diffFixtures()
	cfg := &certstore.Config{Stores: map[string]certstore.StoreConfig{"s1": {}}}
	if st.s2 {
		cfg.Stores["s2"] = certstore.StoreConfig{}
	}
	if st.default1 >= 0 {
		pair := fx[st.default1].pair
		cfg.Stores["s1"] = certstore.StoreConfig{DefaultCertificate: &pair}
	}
	for _, p := range st.certs {
		cfg.Certificates = append(cfg.Certificates, certstore.Certificate{KeyPair: fx[p.fix].pair, Stores: slices.Clone(p.stores)})
	}
	return freshCopy(cfg) // new buffers every time, as a proxy re-reads
}

func (st *diffState) randomStores(r *rand.Rand) []string {
	lists := [][]string{nil, nil, nil, {"s1"}, {certstore.DefaultStore, "s1"}, {"s1", "s1"}, {certstore.DefaultStore}}
	if st.s2 {
		lists = append(lists, []string{"s2"}, []string{"s2", certstore.DefaultStore}, []string{"s1", "s2"})
	}
	return lists[r.IntN(len(lists))]
}

func (st *diffState) randomPos(r *rand.Rand) diffPos {
	return diffPos{fix: r.IntN(len(diffFixtures())), stores: st.randomStores(r)}
}

// mutate applies one random change, of the kinds a proxy's refreshes
// make.
func (st *diffState) mutate(r *rand.Rand) string {
	n := len(st.certs)
	switch k := r.IntN(10); {
	case k < 3 && n > 0: // renewal: a position gets another pair
		st.certs[r.IntN(n)].fix = r.IntN(len(diffFixtures()))
		return "replace"
	case k == 3 && n > 0:
		st.certs[r.IntN(n)].stores = st.randomStores(r)
		return "stores"
	case k == 4:
		i := r.IntN(n + 1)
		st.certs = slices.Insert(st.certs, i, st.randomPos(r))
		return "insert"
	case k == 5 && n > 0:
		i := r.IntN(n)
		st.certs = slices.Delete(st.certs, i, i+1)
		return "delete"
	case k == 6 && n > 1:
		i, j := r.IntN(n), r.IntN(n)
		st.certs[i], st.certs[j] = st.certs[j], st.certs[i]
		return "swap"
	case k == 7:
		st.s2 = !st.s2
		if !st.s2 {
			for i := range st.certs {
				if slices.Contains(st.certs[i].stores, "s2") {
					st.certs[i].stores = nil
				}
			}
		}
		return "toggle s2"
	case k == 8:
		if st.default1 >= 0 && r.IntN(2) == 0 {
			st.default1 = -1
		} else {
			st.default1 = r.IntN(len(diffFixtures()))
		}
		return "default"
	default:
		for range 1 + r.IntN(3) {
			if n > 0 {
				st.certs[r.IntN(n)].fix = r.IntN(len(diffFixtures()))
			}
		}
		if r.IntN(20) == 0 { // now and then a whole new configuration
			st.certs = nil
			for range r.IntN(24) {
				st.certs = append(st.certs, st.randomPos(r))
			}
		}
		return "several"
	}
}

// diffLabel names a served certificate: its fixture index, or "generated"
// (the stores being compared each generate their own default).
func diffLabel(c *tls.Certificate, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	for i, f := range diffFixtures() {
		if bytes.Equal(f.leaf, c.Certificate[0]) {
			return fmt.Sprint(i)
		}
	}
	return "generated"
}

// TestIncrementalMatchesRebuild applies random sequences of updates to one
// store and checks, after every update, that every lookup answers exactly
// as in a store freshly built from the same configuration, and as
// certstore.Match does: ties between a name an update touched and one it
// did not, removals, store lists, stores appearing and disappearing. It
// runs with the incremental path forced for every update (with content
// keys hashed serially and in parallel), and with the default choice
// between incremental updates and rebuilds.
func TestIncrementalMatchesRebuild(t *testing.T) {
	for _, mode := range []struct {
		name      string
		limit     func(int) int
		hashAtMin int // parallelHashMin
	}{
		{"incremental", func(int) int { return math.MaxInt }, parallelHashMin},
		{"incremental, parallel hashing", func(int) int { return math.MaxInt }, 4},
		{"default", rebuildLimit, parallelHashMin},
	} {
		t.Run(mode.name, func(t *testing.T) {
			defer func(f func(int) int, n int) { rebuildLimit, parallelHashMin = f, n }(rebuildLimit, parallelHashMin)
			rebuildLimit, parallelHashMin = mode.limit, mode.hashAtMin
			steps := 400
			if testing.Short() || raceEnabled {
				steps = 120
			}
			for seed := uint64(1); seed <= 4; seed++ {
				runDifferential(t, seed, steps)
			}
		})
	}
}

func runDifferential(t *testing.T, seed uint64, steps int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 99))
	st := &diffState{default1: -1}
	for range 12 {
		st.certs = append(st.certs, st.randomPos(r))
	}
	s := New()
	fx := diffFixtures()
	snis := diffSNIs()
	for step := 0; step < steps; step++ {
		what := "initial"
		if step > 0 {
			what = st.mutate(r)
		}
		cfg := st.config()
		mustUpdate(t, s, cfg)
		fresh := New()
		mustUpdate(t, fresh, cfg)
		for _, store := range []string{certstore.DefaultStore, "s1", "s2", "s3"} {
			var names [][]string
			var fixOf []int
			for _, p := range st.certs {
				c := certstore.Certificate{Stores: p.stores}
				if slices.Contains(certstore.StoresOf(&c), store) {
					names = append(names, fx[p.fix].names)
					fixOf = append(fixOf, p.fix)
				}
			}
			for _, sni := range snis {
				got := diffLabel(lookup(s, store, sni))
				want := diffLabel(lookup(fresh, store, sni))
				if got != want {
					t.Fatalf("seed %d step %d (%s): Certificate(%q, %q) = %s, a fresh store says %s", seed, step, what, store, sni, got, want)
				}
				if !cfg.HasStore(store) {
					continue
				}
				ref := "generated"
				if i := certstore.Match(names, sni); i >= 0 {
					ref = fmt.Sprint(fixOf[i])
				} else if store == "s1" && st.default1 >= 0 {
					ref = fmt.Sprint(st.default1)
				}
				if got != ref {
					t.Fatalf("seed %d step %d (%s): Certificate(%q, %q) = %s, certstore.Match says %s", seed, step, what, store, sni, got, ref)
				}
			}
		}
		if len(s.entries) != len(fresh.entries) || len(s.chains) != len(fresh.chains) || len(s.ders) != len(fresh.ders) {
			t.Fatalf("seed %d step %d (%s): %d entries, %d chains, %d DERs; a fresh store has %d, %d, %d",
				seed, step, what, len(s.entries), len(s.chains), len(s.ders), len(fresh.entries), len(fresh.chains), len(fresh.ders))
		}
		checkRefs(t, s)
	}
}

// checkRefs checks the store's reference counts against its bookkeeping.
func checkRefs(t *testing.T, s *Store) {
	t.Helper()
	want := map[*entry]int32{}
	for _, e := range s.order {
		want[e]++
	}
	for _, e := range s.defaults {
		want[e]++
	}
	for k, e := range s.entries {
		if e.refs != want[e] {
			t.Fatalf("entry %x has %d references, the configuration uses it %d times", k, e.refs, want[e])
		}
		delete(want, e)
	}
	if len(want) != 0 {
		t.Fatalf("%d entries in use are not in the entry map", len(want))
	}
	for i, k := range s.keys {
		if s.entries[k] != s.order[i] {
			t.Fatalf("position %d: key and entry disagree", i)
		}
	}
}

package conformance

// The differential pass's generator of configurations and lookups, biased
// toward the hard cases.

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strings"

	"github.com/certbench/certbench/certstore"
)

// gen holds one iteration's random source and name alphabet.
type gen struct {
	rng     *rand.Rand
	bases   []string // host names the certificates draw from
	ips     []string // IP addresses the certificates draw from
	stores  []string // named stores besides the default one
	variant int      // last variant handed out
}

// labelPool is the label alphabet; an iteration uses a few of them, so
// names collide.
var labelPool = []string{"a", "b", "c", "www", "api", "x1", "ab"}

// tldPool ends names; "" makes single-label or short names.
var tldPool = []string{"t", "t", "example", ""}

// ipPool is the IP address pool, in canonical form.
var ipPool = []string{"192.0.2.1", "192.0.2.2", "10.0.0.1", "2001:db8::1", "2001:db8::a", "2001:db8:0:1::1", "::1", "fe80::1"}

func newGen(rng *rand.Rand) *gen {
	g := &gen{rng: rng}
	labels := pick(rng, labelPool, 2+rng.IntN(3))
	tld := tldPool[rng.IntN(len(tldPool))]
	nb := 3 + rng.IntN(4)
	for len(g.bases) < nb {
		depth := 1 + rng.IntN(3)
		parts := make([]string, 0, depth+1)
		for range depth {
			parts = append(parts, labels[rng.IntN(len(labels))])
		}
		if tld != "" {
			parts = append(parts, tld)
		}
		n := strings.Join(parts, ".")
		if !slices.Contains(g.bases, n) {
			g.bases = append(g.bases, n)
		} else if rng.IntN(4) == 0 {
			break
		}
	}
	g.ips = pick(rng, ipPool, 2+rng.IntN(3))
	g.stores = pick(rng, []string{"s1", "s2"}, rng.IntN(3))
	return g
}

// pick returns n distinct elements of xs in random order.
func pick(rng *rand.Rand, xs []string, n int) []string {
	ys := slices.Clone(xs)
	rng.Shuffle(len(ys), func(i, j int) { ys[i], ys[j] = ys[j], ys[i] })
	return ys[:min(n, len(ys))]
}

// chance reports true with probability p percent.
func (g *gen) chance(p int) bool { return g.rng.IntN(100) < p }

// mixCase flips the case of some letters of s.
func mixCase(rng *rand.Rand, s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' && rng.IntN(2) == 0 {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// dnsName makes one DNS name: mostly a base name, a wildcard over a base
// name or its parent, or a child of a base name; sometimes in mixed case.
func (g *gen) dnsName() string {
	base := g.bases[g.rng.IntN(len(g.bases))]
	var n string
	switch r := g.rng.IntN(100); {
	case r < 45:
		n = base
	case r < 70:
		n = "*." + base
	case r < 80:
		if p, ok := certstore.WildcardParent(base); ok {
			n = "*." + p
		} else {
			n = "*." + base
		}
	default:
		n = labelPool[g.rng.IntN(len(labelPool))] + "." + base
	}
	if g.chance(15) {
		n = mixCase(g.rng, n)
	}
	return n
}

// ipName returns one of the iteration's IP addresses, in some spelling.
func (g *gen) ipName() string {
	return spellIP(g.rng, g.ips[g.rng.IntN(len(g.ips))])
}

// spellIP writes an address in one of its textual forms: canonical,
// uppercase, fully expanded, zero-padded, or (IPv4) v4-mapped IPv6.
func spellIP(rng *rand.Rand, s string) string {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return s
	}
	switch rng.IntN(6) {
	case 0:
		if a.Is4() {
			return "::ffff:" + a.String()
		}
		return strings.ToUpper(a.String())
	case 1:
		if a.Is4() {
			m := netip.AddrFrom16(a.As16())
			return expand(m, false)
		}
		return expand(a, false)
	case 2:
		if a.Is4() {
			return "::FFFF:" + a.String()
		}
		return expand(a, true)
	case 3:
		if a.Is6() {
			return strings.ToUpper(expand(a, true))
		}
	}
	return a.String()
}

// expand writes an IPv6 address with all eight groups, zero-padded or not.
func expand(a netip.Addr, pad bool) string {
	if pad {
		return a.StringExpanded()
	}
	b := a.As16()
	parts := make([]string, 8)
	for i := range parts {
		parts[i] = fmt.Sprintf("%x", uint16(b[2*i])<<8|uint16(b[2*i+1]))
	}
	return strings.Join(parts, ":")
}

// cert makes a certificate with one to three names.
func (g *gen) cert() CaseCert {
	var c CaseCert
	n := 1 + g.rng.IntN(3)
	for range n {
		if g.chance(15) {
			c.IPs = append(c.IPs, g.ipName())
		} else {
			c.DNSNames = append(c.DNSNames, g.dnsName())
		}
	}
	switch r := g.rng.IntN(100); {
	case r < 55:
	case r < 75 && len(c.DNSNames) > 0:
		c.CommonName = c.DNSNames[0]
	case r < 85:
		c.CommonName = g.dnsName()
	case r < 92:
		c.CommonName = g.ipName()
	default:
		// Only a common name (no SANs), sometimes with non-ASCII letters,
		// which only the common name can hold.
		c.DNSNames, c.IPs = nil, nil
		c.CommonName = g.dnsName()
		if g.chance(50) {
			c.CommonName = strings.Replace(c.CommonName, "a", "É", 1)
		}
	}
	g.variant++
	c.Variant = g.variant
	return c
}

// storesFor picks the stores of a certificate: mostly none (the default
// store), else a non-empty subset of the declared stores.
func (g *gen) storesFor(cfg *CaseConfig) []string {
	if g.chance(50) {
		return nil
	}
	all := []string{certstore.DefaultStore}
	for _, st := range g.stores {
		if cfg.declares(st) {
			all = append(all, st)
		}
	}
	if len(all) == 1 && g.chance(50) {
		return nil
	}
	return pick(g.rng, all, 1+g.rng.IntN(len(all)))
}

// defaultCert makes a configured default: often one that shares a name
// with a configured certificate, sometimes a configured certificate itself.
func (g *gen) defaultCert(cfg *CaseConfig) *CaseCert {
	var d CaseCert
	switch r := g.rng.IntN(100); {
	case r < 10 && len(cfg.Certs) > 0:
		d = cfg.Certs[g.rng.IntN(len(cfg.Certs))].clone()
		d.Stores = nil
		return &d
	case r < 50 && len(cfg.Certs) > 0:
		src := cfg.Certs[g.rng.IntN(len(cfg.Certs))]
		if len(src.DNSNames) > 0 {
			d.DNSNames = []string{src.DNSNames[g.rng.IntN(len(src.DNSNames))]}
		} else {
			d = src.clone()
			d.Stores = nil
		}
	default:
		d.DNSNames = []string{"default." + g.bases[0]}
	}
	g.variant++
	d.Variant = g.variant
	return &d
}

// config makes a whole configuration of one to six certificates.
func (g *gen) config() CaseConfig {
	cfg := CaseConfig{}
	if g.chance(60) {
		cfg.Stores = map[string]*CaseCert{}
		for _, st := range g.stores {
			if g.chance(80) {
				cfg.Stores[st] = nil
			}
		}
		if g.chance(50) {
			cfg.Stores[certstore.DefaultStore] = nil
		}
	}
	n := 1 + g.rng.IntN(6)
	for len(cfg.Certs) < n {
		var c CaseCert
		switch r := g.rng.IntN(100); {
		case r < 15 && len(cfg.Certs) > 0:
			// Another certificate for the same names: a tie.
			c = cfg.Certs[g.rng.IntN(len(cfg.Certs))].clone()
			g.variant++
			c.Variant = g.variant
		case r < 20 && len(cfg.Certs) > 0:
			// The same certificate twice.
			c = cfg.Certs[g.rng.IntN(len(cfg.Certs))].clone()
		default:
			c = g.cert()
		}
		c.Stores = g.storesFor(&cfg)
		cfg.Certs = append(cfg.Certs, c)
	}
	g.addDefaults(&cfg)
	return cfg
}

// addDefaults gives some declared stores a configured default.
func (g *gen) addDefaults(cfg *CaseConfig) {
	for _, st := range cfg.storeNames() {
		if g.chance(50) {
			cfg.Stores[st] = g.defaultCert(cfg)
		}
	}
}

// next makes the configuration that follows cfg by a few changes.
func (g *gen) next(prev CaseConfig) CaseConfig {
	cfg := prev.clone()
	changes := 1 + g.rng.IntN(3)
	for range changes {
		switch r := g.rng.IntN(100); {
		case r < 30 && len(cfg.Certs) > 0:
			// Renewal with the same names.
			i := g.rng.IntN(len(cfg.Certs))
			g.variant++
			cfg.Certs[i].Variant = g.variant
		case r < 50 && len(cfg.Certs) > 0:
			// Renewal that changes some names.
			i := g.rng.IntN(len(cfg.Certs))
			c := &cfg.Certs[i]
			if len(c.DNSNames) > 0 && g.chance(50) {
				c.DNSNames[g.rng.IntN(len(c.DNSNames))] = g.dnsName()
			} else if len(c.DNSNames) > 1 && g.chance(50) {
				c.DNSNames = c.DNSNames[1:]
			} else {
				c.DNSNames = append(c.DNSNames, g.dnsName())
			}
			g.variant++
			c.Variant = g.variant
		case r < 62:
			c := g.cert()
			c.Stores = g.storesFor(&cfg)
			at := g.rng.IntN(len(cfg.Certs) + 1)
			cfg.Certs = slices.Insert(cfg.Certs, at, c)
		case r < 72 && len(cfg.Certs) > 1:
			i := g.rng.IntN(len(cfg.Certs))
			cfg.Certs = slices.Delete(cfg.Certs, i, i+1)
		case r < 80 && len(cfg.Certs) > 1:
			// Reorder: changes tie-breaks.
			i, j := g.rng.IntN(len(cfg.Certs)), g.rng.IntN(len(cfg.Certs))
			cfg.Certs[i], cfg.Certs[j] = cfg.Certs[j], cfg.Certs[i]
		case r < 90:
			// A default added, renewed or dropped.
			if cfg.Stores == nil {
				cfg.Stores = map[string]*CaseCert{}
			}
			st := certstore.DefaultStore
			if len(g.stores) > 0 && g.chance(50) {
				st = g.stores[g.rng.IntN(len(g.stores))]
			}
			if cfg.Stores[st] != nil && g.chance(40) {
				cfg.Stores[st] = nil
			} else {
				cfg.Stores[st] = g.defaultCert(&cfg)
			}
		default:
			// A store declared or dropped, with the references to it.
			if len(g.stores) == 0 {
				continue
			}
			st := g.stores[g.rng.IntN(len(g.stores))]
			if cfg.declares(st) {
				delete(cfg.Stores, st)
				for i := range cfg.Certs {
					cfg.Certs[i].Stores = slices.DeleteFunc(cfg.Certs[i].Stores, func(s string) bool { return s == st })
				}
			} else {
				if cfg.Stores == nil {
					cfg.Stores = map[string]*CaseCert{}
				}
				cfg.Stores[st] = nil
			}
		}
	}
	return cfg
}

// generateSequence makes one iteration's one to four configurations.
func generateSequence(rng *rand.Rand) []CaseConfig {
	g := newGen(rng)
	seq := []CaseConfig{g.config()}
	n := 1 + rng.IntN(4)
	for len(seq) < n {
		if rng.IntN(5) == 0 {
			seq = append(seq, g.config())
		} else {
			seq = append(seq, g.next(seq[len(seq)-1]))
		}
	}
	return seq
}

// probeSpec is one lookup.
type probeSpec struct {
	store, sni string
}

// maxProbes bounds the lookups made on one new generation.
const maxProbes = 48

// junk are server names that are no host name a certificate holds.
var junk = []string{"", ".", "..", "*", "*.", "t", "a..t", "\xff\xfe.t", "Éxample.t", "\u212a.t", "localhost", strings.Repeat("a", 70) + ".t", "1.2.3", "::", "2001:db8::1%eth0", "[2001:db8::1]"}

// generateProbes makes the lookups for cfg: its names, their variations,
// and junk; in its stores, sometimes in unknown ones.
func generateProbes(rng *rand.Rand, cfg *CaseConfig) []probeSpec {
	var names []string
	add := func(n string) { names = append(names, n) }
	each := func(c *CaseCert) {
		for _, n := range append(append([]string{c.CommonName}, c.DNSNames...), c.IPs...) {
			if n == "" {
				continue
			}
			if a, err := netip.ParseAddr(n); err == nil {
				ipProbes(rng, n, a, add)
			} else {
				nameProbes(rng, n, add)
			}
		}
	}
	for i := range cfg.Certs {
		each(&cfg.Certs[i])
	}
	for _, st := range cfg.storeNames() {
		if d := cfg.Stores[st]; d != nil {
			each(d)
		}
	}
	for range 3 {
		add(junk[rng.IntN(len(junk))])
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) > maxProbes {
		names = sample(rng, names, maxProbes)
	}
	stores := []string{certstore.DefaultStore}
	for _, st := range cfg.storeNames() {
		if st != certstore.DefaultStore {
			stores = append(stores, st)
		}
	}
	ps := make([]probeSpec, 0, len(names)+2)
	for _, n := range names {
		ps = append(ps, probeSpec{store: stores[rng.IntN(len(stores))], sni: n})
	}
	for _, st := range []string{"s1", "s2", "Default", ""} {
		if !cfg.declares(st) && rng.IntN(4) == 0 {
			ps = append(ps, probeSpec{store: st, sni: names[rng.IntN(len(names))]})
		}
	}
	rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	return ps
}

// ipProbes adds an IP address as written (n), other spellings of it and
// its neighbour.
func ipProbes(rng *rand.Rand, n string, a netip.Addr, add func(string)) {
	add(n)
	add(spellIP(rng, a.String()))
	add(spellIP(rng, a.String()))
	if a.Is4() {
		b := a.As4()
		b[3]++
		add(netip.AddrFrom4(b).String())
	} else {
		b := a.As16()
		b[15]++
		add(expand(netip.AddrFrom16(b), false))
	}
}

// nameProbes adds a host name as written and in other cases, names under
// it or its wildcard, its parents, and near misses.
func nameProbes(rng *rand.Rand, n string, add func(string)) {
	add(n)
	add(mixCase(rng, n))
	add(strings.ToUpper(n))
	if rest, ok := strings.CutPrefix(n, "*."); ok {
		l := labelPool[rng.IntN(len(labelPool))]
		add(l + "." + rest)
		add(mixCase(rng, l+"."+rest))
		add("z." + l + "." + rest)
		add(rest)
	} else {
		add("z." + n)
	}
	if p, ok := certstore.WildcardParent(n); ok {
		add(p)
		if p2, ok := certstore.WildcardParent(p); ok {
			add("z." + p2)
		}
	}
	add(n + ".")
	add(n + "x")
	add("x" + n)
	if len(n) > 1 {
		add(n[:len(n)-1])
	}
}

// sample returns n of xs, in their order.
func sample[T any](rng *rand.Rand, xs []T, n int) []T {
	idx := rng.Perm(len(xs))[:n]
	slices.Sort(idx)
	out := make([]T, n)
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}
